'use strict';
// Component gate: the composition layer (spec.md GATE-1..GATE-12).
const { MAX_INT64, ConfigError, OpError, arg, emitBytes, int64, parseBytes, bmax, bmin, ceilDiv, floorDiv } = require('./wire');
const { cfgValid, limAcq, limBktNew, limCfg, limIpKey, limRel, limResp503, limTake } = require('./lim');
const mutants = require('./mutants');

const NANOS_PER_SECOND = 1000000000n;
const MAX_INT32 = (1n << 31n) - 1n;

// GATE-12: exact ceiling, at least 1, saturated at MaxInt64.
function retryAfterSecs(retry, tickNanos) {
  let s = ceilDiv(retry * tickNanos, NANOS_PER_SECOND);
  if (mutants.active('retry_after_floor')) s = floorDiv(retry * tickNanos, NANOS_PER_SECOND);
  if (mutants.active('retry_after_mul_wraps')) s = ceilDiv(BigInt.asIntN(64, retry * tickNanos), NANOS_PER_SECOND);
  return bmin(bmax(1n, s), mutants.active('retry_after_int32') ? MAX_INT32 : MAX_INT64);
}

// The gate_table_per_config mutant's bucket tables: one per config, process-wide.
const TABLES = new Map();

class Gate {
  constructor(cap, refil, ivl, maxif, slots, tickNanos) {
    this.lim = limCfg(cap, refil, ivl, maxif);
    if (!cfgValid(this.lim) || slots < 1n || tickNanos < 1n) throw new ConfigError('gate config refused'); // GATE-1
    this.slots = slots;
    if (mutants.active('slots_uint16')) this.slots = BigInt.asUintN(16, slots) || 1n;
    if (mutants.active('slots_uint32')) this.slots = BigInt.asUintN(32, slots) || 1n;
    if (mutants.active('slots_capped_4096')) this.slots = slots < 4096n ? slots : 4096n;
    this.tickNanos = tickNanos;
    this.inFlight = 0n; // GATE-2
    this.buckets = new Map(); // slot (as decimal string) -> bucket; absent = untouched (sparse)
    if (mutants.active('gate_table_per_config')) { // every gate of this config shares one table
      const key = [cap, refil, ivl, maxif, slots, tickNanos].join(',');
      if (!TABLES.has(key)) TABLES.set(key, new Map());
      this.buckets = TABLES.get(key);
      this.buckets.clear();
    }
  }

  slotOf(ip) { // GATE-3
    if (mutants.active('slot_bitmask')) return limIpKey(ip) & (this.slots - 1n);
    return limIpKey(ip) % this.slots;
  }

  admit(ip, now) {
    const slot = this.slotOf(ip);
    if (mutants.active('gate_wrong_order')) return this.admitTakeFirst(slot, now);
    const acq = limAcq(this.inFlight, this.lim.maxif); // GATE-4
    if (acq.ok !== 1n) return Gate.shed(slot);
    const r = this.take(slot, now);
    if (r.ok === 1n) { // GATE-7
      this.inFlight = acq.n;
      return { verdict: 'pass', slot, retry: 0n, retry_after: 0n };
    }
    if (mutants.active('limited_keeps_inflight')) this.inFlight = acq.n;
    return this.limited(slot, r);
  }

  admitTakeFirst(slot, now) { // the gate_wrong_order mutant: the take before lim_acq
    const r = this.take(slot, now);
    if (r.ok !== 1n) return this.limited(slot, r);
    const acq = limAcq(this.inFlight, this.lim.maxif);
    if (acq.ok !== 1n) return Gate.shed(slot);
    this.inFlight = acq.n;
    return { verdict: 'pass', slot, retry: 0n, retry_after: 0n };
  }

  take(slot, now) {
    const b = this.buckets.get(slot.toString()) || limBktNew(this.lim.cap, now); // GATE-10
    const r = limTake(b, this.lim, now, 1n); // GATE-5
    this.buckets.set(slot.toString(), { tks: r.tks, last: r.last }); // GATE-6
    return r;
  }

  static shed(slot) { // GATE-9
    return { verdict: 'shed', slot, retry: 0n, retry_after: 1n, response: limResp503(mutants.active('shed_retry_after_zero') ? 0n : 1n) };
  }

  limited(slot, r) { // GATE-8
    const ra = retryAfterSecs(r.retry, this.tickNanos);
    return { verdict: 'limited', slot, retry: r.retry, retry_after: ra, response: limResp503(ra) };
  }

  release() { this.inFlight = limRel(this.inFlight); } // GATE-11

  // Inspection: the slot's bucket, or null while untouched (a slot outside [0, slots) is
  // untouched: spec.md's operations table).
  bucket(slot) { return this.buckets.get(slot.toString()) || null; }

  do(op) {
    switch (op.op) {
      case 'admit': {
        const r = this.admit(parseBytes(arg(op, 'ip'), 'ip'), int64(arg(op, 'now'), 'now'));
        const out = {};
        for (const [k, v] of Object.entries(r)) {
          out[k] = k === 'verdict' ? v : k === 'response' ? emitBytes(v) : v.toString();
        }
        return out;
      }
      case 'release': this.release(); return {};
      case 'in_flight': return { n: this.inFlight.toString() };
      case 'bucket': {
        const b = this.bucket(int64(arg(op, 'slot'), 'slot'));
        if (b === null) return { touched: false };
        return { touched: true, tks: b.tks.toString(), last: b.last.toString() };
      }
      default: throw new OpError(`gate: unknown op ${JSON.stringify(op.op)}`);
    }
  }
}

function openGate(config) {
  const g = arg(config || {}, 'gate');
  if (g === null || typeof g !== 'object' || Array.isArray(g)) throw new OpError('config.gate: not an object');
  const f = (k) => int64(arg(g, k), `config.gate.${k}`);
  return new Gate(f('cap'), f('refil'), f('ivl'), f('maxif'), f('slots'), f('tick_nanos'));
}

module.exports = { NANOS_PER_SECOND, retryAfterSecs, Gate, openGate };
