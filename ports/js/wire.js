'use strict';
// The JSON form of values (spec.md VEC-6, VEC-7) and the errors the ports share.
// Every 64-bit value is a BigInt; every byte string a Buffer.
const mutants = require('./mutants');

const MIN_INT64 = -(1n << 63n);
const MAX_INT64 = (1n << 63n) - 1n;
const MAX_UINT64 = (1n << 64n) - 1n;

class ConfigError extends Error {} // a config refused at construction (GATE-1, THR-6)
class StoreError extends Error {} // a failed store operation (STORE-1)
class OpError extends Error {} // a malformed op: unknown name, missing or ill-formed argument

const INT_RE = /^-?(0|[1-9][0-9]*)$/;
const HEX_RE = /^([0-9a-fA-F]{2})*$/;
// A UTF-16 surrogate that is not half of a high-low pair (VEC-7: refused).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// A canonical decimal string (VEC-6) in [lo, hi]; a JSON number is refused.
function parseInt64Range(v, lo, hi, what) {
  if (typeof v !== 'string' || !INT_RE.test(v) || v === '-0') {
    throw new OpError(`${what}: not a canonical decimal string: ${JSON.stringify(v)}`);
  }
  const n = mutants.active('wire_int_float64') ? BigInt(Number(v)) : BigInt(v); // Number: a float64
  if (n < lo || n > hi) throw new OpError(`${what}: ${v} out of range [${lo}, ${hi}]`);
  return n;
}
const int64 = (v, what = 'integer') => parseInt64Range(v, MIN_INT64, MAX_INT64, what);
const uint64 = (v, what = 'integer') => parseInt64Range(v, 0n, MAX_UINT64, what);

// A JSON string (its UTF-8 bytes) or {"hex": ...} (VEC-7).
function parseBytes(v, what = 'bytes') {
  if (typeof v === 'string') {
    if (LONE_SURROGATE.test(v)) { // String.prototype.isWellFormed needs Node 20
      throw new OpError(`${what}: string has no UTF-8 form (lone surrogate)`);
    }
    return Buffer.from(v, 'utf8');
  }
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v.hex === 'string' && HEX_RE.test(v.hex)) {
    if (mutants.active('key_hex_as_text')) return Buffer.from(v.hex, 'latin1');
    return Buffer.from(v.hex, 'hex');
  }
  throw new OpError(`${what}: not a byte string: ${JSON.stringify(v)}`);
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
// Bytes in the writer's form: a string when valid UTF-8, else lowercase hex.
function emitBytes(b) {
  try {
    return utf8.decode(b);
  } catch (e) {
    return { hex: Buffer.from(b).toString('hex') };
  }
}

function arg(op, name) {
  if (op === null || typeof op !== 'object' || !Object.prototype.hasOwnProperty.call(op, name)) {
    throw new OpError(`op ${op && op.op}: missing argument ${JSON.stringify(name)}`);
  }
  return op[name];
}

const bmax = (a, b) => (a > b ? a : b);
const bmin = (a, b) => (a < b ? a : b);
// floor and ceiling of a / b for b > 0 (BigInt division truncates toward zero).
const floorDiv = (a, b) => (a >= 0n ? a / b : -((-a + b - 1n) / b));
const ceilDiv = (a, b) => -floorDiv(-a, b);

module.exports = {
  MIN_INT64, MAX_INT64, MAX_UINT64, ConfigError, StoreError, OpError,
  parseInt64Range, int64, uint64, parseBytes, emitBytes, arg, bmax, bmin, floorDiv, ceilDiv,
};
