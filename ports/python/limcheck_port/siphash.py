"""SipHash-2-4 (Aumasson and Bernstein, 2012), the gate's keyed set index (spec.md GATE-18).

Python ints are unbounded: every sum and shift is masked to 64 bits."""

import re

from . import mutants
from .wire import ConfigError, OpError

MASK = (1 << 64) - 1
SEED_BYTES = 16
_SEED = re.compile(r"[0-9a-fA-F]{32}\Z")


def parse_seed(v, what="seed"):
    """The seed's 16 bytes from its text form, 32 hex digits (VEC-9; either case, as VEC-7's
    readers). Not a string is a malformed op (as a JSON number for an integer, VEC-18); a
    string that spells no 16-byte value is a refused config (GATE-1)."""
    if not isinstance(v, str):
        raise OpError("%s: not a string: %r" % (what, v))
    if not _SEED.match(v):
        raise ConfigError("%s: %r is not 32 hex digits (GATE-1: a seed of 16 bytes)" % (what, v))
    return bytes.fromhex(v)


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & MASK


def _round(v):
    """One SipRound of the reference, on the list v of four 64-bit words."""
    v[0] = (v[0] + v[1]) & MASK
    v[1] = _rotl(v[1], 13) ^ v[0]
    v[0] = _rotl(v[0], 32)
    v[2] = (v[2] + v[3]) & MASK
    v[3] = _rotl(v[3], 16) ^ v[2]
    v[0] = (v[0] + v[3]) & MASK
    v[3] = _rotl(v[3], 21) ^ v[0]
    v[2] = (v[2] + v[1]) & MASK
    v[1] = _rotl(v[1], 17) ^ v[2]
    v[2] = _rotl(v[2], 32)


def siphash(seed, msg, c=2, d=4):
    """SipHash-c-d of the bytes msg keyed by the 16 bytes seed, as an unsigned 64-bit int:
    k0 and k1 are the seed's bytes 0..7 and 8..15 read little-endian, each 8-byte block of
    msg is read little-endian, and the last block carries len(msg) mod 256 in its top byte."""
    order = "big" if mutants.active("seed_big_endian") else "little"
    k0, k1 = int.from_bytes(seed[0:8], order), int.from_bytes(seed[8:16], order)
    if mutants.active("seed_halves_swapped"):
        k0, k1 = k1, k0
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D,  # "somepseudorandom"
         k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]  # "lygeneratedbytes"
    tail = len(msg) - len(msg) % 8
    blocks = [int.from_bytes(msg[i:i + 8], "little") for i in range(0, tail, 8)]
    blocks.append(int.from_bytes(msg[tail:], "little") | (len(msg) & 0xFF) << 56)
    for m in blocks:
        v[3] ^= m
        for _ in range(c):
            _round(v)
        v[0] ^= m
    v[2] ^= 0xFF
    for _ in range(d):
        _round(v)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def key_hash(seed, k):
    """GATE-18's h: SipHash-2-4 under seed of the key k as 8 little-endian bytes."""
    msg = k.to_bytes(8, "little")  # GATE-18: k as an unsigned 64-bit integer, little-endian
    if mutants.active("siphash_msg_4_bytes"):
        msg = k.to_bytes(4, "little")  # k < 2^32 - 5 fits, and the hash still differs
    if mutants.active("siphash_msg_decimal"):
        msg = str(k).encode("ascii")
    if mutants.active("siphash_1_3"):
        return siphash(seed, msg, 1, 3)
    return siphash(seed, msg)
