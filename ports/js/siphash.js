'use strict';
// SipHash-2-4 (Aumasson and Bernstein, 2012), the gate's keyed set index (spec.md GATE-18).
// Every word is a BigInt kept in 64 bits with BigInt.asUintN.
const { ConfigError, OpError } = require('./wire');
const mutants = require('./mutants');

const SEED_BYTES = 16;
const SEED_RE = /^[0-9a-fA-F]{32}$/;
const u64 = (x) => BigInt.asUintN(64, x);
const rotl = (x, b) => u64((x << b) | (x >> (64n - b)));

// The seed's 16 bytes from its text form, 32 hex digits (VEC-9; either case, as VEC-7's
// readers). Not a string is a malformed op (as a JSON number for an integer, VEC-18); a
// string that spells no 16-byte value is a refused config (GATE-1).
function parseSeed(v, what = 'seed') {
  if (typeof v !== 'string') throw new OpError(`${what}: not a string: ${JSON.stringify(v)}`);
  if (!SEED_RE.test(v)) throw new ConfigError(`${what}: ${JSON.stringify(v)} is not 32 hex digits (GATE-1: a seed of 16 bytes)`);
  return Buffer.from(v, 'hex');
}

// The bytes b (at most 8) as an unsigned integer, little-endian unless bigEndian.
function word(b, bigEndian = false) {
  let x = 0n;
  for (let i = 0; i < b.length; i++) x |= BigInt(b[i]) << BigInt(8 * (bigEndian ? b.length - 1 - i : i));
  return x;
}

// One SipRound of the reference, on the array v of four 64-bit words.
function sipRound(v) {
  v[0] = u64(v[0] + v[1]); v[1] = rotl(v[1], 13n) ^ v[0]; v[0] = rotl(v[0], 32n);
  v[2] = u64(v[2] + v[3]); v[3] = rotl(v[3], 16n) ^ v[2];
  v[0] = u64(v[0] + v[3]); v[3] = rotl(v[3], 21n) ^ v[0];
  v[2] = u64(v[2] + v[1]); v[1] = rotl(v[1], 17n) ^ v[2]; v[2] = rotl(v[2], 32n);
}

// SipHash-c-d of the bytes msg keyed by the 16 bytes seed, as an unsigned 64-bit BigInt: k0
// and k1 are the seed's bytes 0..7 and 8..15 read little-endian, each 8-byte block of msg is
// read little-endian, and the last block carries len(msg) mod 256 in its top byte.
function siphash(seed, msg, c = 2, d = 4) {
  const be = mutants.active('seed_big_endian');
  let [k0, k1] = [word(seed.subarray(0, 8), be), word(seed.subarray(8, 16), be)];
  if (mutants.active('seed_halves_swapped')) [k0, k1] = [k1, k0];
  const v = [k0 ^ 0x736f6d6570736575n, k1 ^ 0x646f72616e646f6dn, // "somepseudorandom"
    k0 ^ 0x6c7967656e657261n, k1 ^ 0x7465646279746573n]; // "lygeneratedbytes"
  const tail = msg.length - (msg.length % 8);
  const blocks = [];
  for (let i = 0; i < tail; i += 8) blocks.push(word(msg.subarray(i, i + 8)));
  blocks.push(word(msg.subarray(tail)) | (BigInt(msg.length & 0xff) << 56n));
  for (const m of blocks) {
    v[3] ^= m;
    for (let i = 0; i < c; i++) sipRound(v);
    v[0] ^= m;
  }
  v[2] ^= 0xffn;
  for (let i = 0; i < d; i++) sipRound(v);
  return v[0] ^ v[1] ^ v[2] ^ v[3];
}

// GATE-18's h: SipHash-2-4 under seed of the key k (a BigInt in [0, 2^64)) as 8
// little-endian bytes.
function keyHash(seed, k) {
  let msg = Buffer.alloc(8);
  msg.writeBigUInt64LE(k); // GATE-18: k as an unsigned 64-bit integer, little-endian
  if (mutants.active('siphash_msg_4_bytes')) msg = msg.subarray(0, 4); // k < 2^32 - 5 fits
  if (mutants.active('siphash_msg_decimal')) msg = Buffer.from(k.toString(10), 'latin1');
  if (mutants.active('siphash_1_3')) return siphash(seed, msg, 1, 3);
  return siphash(seed, msg);
}

module.exports = { SEED_BYTES, parseSeed, siphash, keyHash };
