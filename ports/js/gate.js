'use strict';
// Component gate: the composition layer (spec.md GATE-1..GATE-19): a table of sets of
// ways, each way empty or holding one key and its bucket, a set chosen by SipHash-2-4 of the
// key under the gate's seed, and one eviction budget per set.
const { MAX_INT64, ConfigError, OpError, arg, emitBytes, int64, parseBytes, bmax, bmin, ceilDiv, floorDiv } = require('./wire');
const { cfgValid, limAcq, limBktNew, limCfg, limIpKey, limRel, limResp503, limTake } = require('./lim');
const { SEED_BYTES, keyHash, parseSeed } = require('./siphash');
const mutants = require('./mutants');

const NANOS_PER_SECOND = 1000000000n;
const MAX_INT32 = (1n << 31n) - 1n;

// GATE-12: exact ceiling, at least 1, saturated at MaxInt64.
function retryAfterSecs(retry, tickNanos) {
  let s = ceilDiv(retry * tickNanos, NANOS_PER_SECOND);
  if (mutants.active('retry_after_float64')) s = BigInt(Math.ceil(Number(retry) * Number(tickNanos) / 1e9));
  if (mutants.active('retry_after_ticks_per_second')) s = ceilDiv(retry, NANOS_PER_SECOND / tickNanos); // throws at 0
  if (mutants.active('retry_after_floor')) s = floorDiv(retry * tickNanos, NANOS_PER_SECOND);
  if (mutants.active('retry_after_mul_wraps')) s = ceilDiv(BigInt.asIntN(64, retry * tickNanos), NANOS_PER_SECOND);
  return bmin(bmax(1n, s), mutants.active('retry_after_int32') ? MAX_INT32 : MAX_INT64);
}

// The gate_table_per_config mutant's tables: one per config, process-wide.
const TABLES = new Map();

const ZERO_SEED = Buffer.alloc(SEED_BYTES); // a valid, public seed (GATE-18): vectors pin theirs

// A gate of limCfg(cap, refil, ivl, maxif), sets x ways ways, ticks of tickNanos nanoseconds
// and the 16-byte Buffer seed; throws ConfigError when GATE-1 refuses them.
class Gate {
  constructor(cap, refil, ivl, maxif, sets, ways, tickNanos, seed = ZERO_SEED) {
    this.lim = limCfg(cap, refil, ivl, maxif);
    const badSeed = !Buffer.isBuffer(seed) || seed.length !== SEED_BYTES;
    if (!cfgValid(this.lim) || sets < 1n || ways < 1n || tickNanos < 1n || badSeed) throw new ConfigError('gate config refused'); // GATE-1
    this.seed = seed;
    this.sets = sets;
    this.ways = ways;
    if (mutants.active('sets_uint16')) this.sets = BigInt.asUintN(16, sets) || 1n;
    if (mutants.active('sets_uint32')) this.sets = BigInt.asUintN(32, sets) || 1n;
    if (mutants.active('sets_capped_4096')) this.sets = sets < 4096n ? sets : 4096n;
    if (mutants.active('ways_capped_8')) this.ways = bmin(ways, 8n);
    if (mutants.active('ways_capped_16')) this.ways = bmin(ways, 16n);
    if (mutants.active('ways_uint8')) this.ways = BigInt.asUintN(8, ways) || 1n;
    this.maxif = mutants.active('maxif_uint16') ? BigInt.asUintN(16, maxif) : maxif;
    this.tickNanos = mutants.active('tick_nanos_uint32') ? BigInt.asUintN(32, tickNanos) : tickNanos;
    this.inFlight = 0n; // GATE-2
    this.table = new Map(); // set (decimal) -> Map(way (decimal) -> {key, tks, last, used}); absent = empty
    this.budgets = new Map(); // set (decimal) -> its eviction budget {tks, last}; absent at start (GATE-2)
    this.firstAdmit = null; // the tick of the gate's first admit, for budget_born_at_first_admit
    this.uses = 0n; // a counter of takes, for the evict_lru mutant
    if (mutants.active('gate_table_per_config')) { // every gate of this config shares one table
      const key = [cap, refil, ivl, maxif, sets, ways, tickNanos, seed.toString('hex')].join(',');
      if (!TABLES.has(key)) TABLES.set(key, new Map());
      this.table = TABLES.get(key);
      this.table.clear();
    }
  }

  setOf(key) { // GATE-13: h mod sets, h GATE-18's hash of the key under the seed
    if (mutants.active('set_unkeyed')) return key % this.sets;
    const h = keyHash(this.seed, key);
    if (mutants.active('set_bitmask')) return h & (this.sets - 1n);
    if (mutants.active('set_signed_hash')) return ((BigInt.asIntN(64, h) % this.sets) + this.sets) % this.sets; // Java's floorMod
    if (mutants.active('set_hash_low32')) return BigInt.asUintN(32, h) % this.sets;
    return h % this.sets;
  }

  ways_(s) {
    const k = s.toString();
    if (!this.table.has(k)) this.table.set(k, new Map());
    return this.table.get(k);
  }

  admit(ip, now) {
    const key = limIpKey(ip);
    const s = this.setOf(key);
    if (this.firstAdmit === null) this.firstAdmit = now;
    if (mutants.active('gate_wrong_order')) return this.admitTakeFirst(s, key, now);
    const acq = limAcq(this.inFlight, this.maxif); // GATE-4
    if (acq.ok !== 1n) {
      if (mutants.active('shed_after_placement')) this.reserve(s, key, now);
      return Gate.shed(mutants.active('shed_set_zero') ? 0n : s);
    }
    const { way, r } = this.take(s, key, now);
    if (r.ok !== 1n && mutants.active('limited_keeps_inflight')) this.inFlight = acq.n;
    if (way === null) return this.refused(s, r); // GATE-19: the budget refused the eviction
    if (r.ok === 1n) { // GATE-7
      this.inFlight = mutants.active('inflight_uint8') ? BigInt.asUintN(8, acq.n) : acq.n;
      return { verdict: 'pass', set: s, way, retry: 0n, retry_after: 0n };
    }
    return this.limited(s, way, r);
  }

  admitTakeFirst(s, key, now) { // the gate_wrong_order mutant: the take before lim_acq
    const { way, r } = this.take(s, key, now);
    if (way === null) return this.refused(s, r);
    if (r.ok !== 1n) return this.limited(s, way, r);
    const acq = limAcq(this.inFlight, this.maxif);
    if (acq.ok !== 1n) return Gate.shed(s);
    this.inFlight = acq.n;
    return { verdict: 'pass', set: s, way, retry: 0n, retry_after: 0n };
  }

  // tks' of b at now (LIM-10): a take of cap tokens reports it.
  refilled(b, now) {
    const cap = this.lim.cap;
    const r = limTake(b, this.lim, now, cap);
    return r.ok === 1n ? r.tks + cap : r.tks;
  }

  full(b, now) { // GATE-14
    const t = this.refilled(b, now);
    const cap = this.lim.cap;
    if (mutants.active('full_on_step_back') && now < b.last) return true;
    if (mutants.active('forget_by_ttl')) return now >= b.last && floorDiv(now - b.last, this.lim.ivl) * this.lim.refil >= cap;
    if (mutants.active('forget_nonfull')) return t >= cap - 1n;
    if (mutants.active('full_strict')) return t > cap;
    return t >= cap;
  }

  // The way of set s for key at now and the bucket it takes from (GATE-15, GATE-16), or way
  // null and the budget's refusing take when the set's budget refused the eviction (GATE-19):
  // then no way changed.
  place(s, key, now) {
    const ways = this.ways_(s);
    const born = limBktNew(this.lim.cap, now); // GATE-10
    let old = null;
    for (const [w, e] of ways) if (this.holds(e, key)) old = w;
    if (old !== null && !this.full(ways.get(old), now)) return { way: BigInt(old), b: ways.get(old) }; // GATE-15 (a)
    if (old !== null && mutants.active('full_own_way_reused')) return { way: BigInt(old), b: born };
    if (old === null && mutants.active('budget_charges_newcomers')) this.charge(s, now, 1n);
    const free = (e) => e === undefined || (!mutants.active('place_empty_before_full') && this.full(e, now));
    for (let pass = 0; pass < (mutants.active('place_empty_before_full') ? 2 : 1); pass++) {
      for (let w = 0n; w < this.ways; w++) { // GATE-15 (b): ends by ways.size + 1
        const e = ways.get(w.toString());
        if (pass === 0 ? free(e) : this.full(e, now)) {
          if (old !== null && old !== w.toString()) ways.delete(old);
          return { way: w, b: born };
        }
      }
    }
    const victim = this.evict(ways, now); // GATE-16: every way is filled, so ways is finite
    let refused = this.pay(s, ways.get(victim.toString()), now);
    if (refused !== null) {
      if (mutants.active('refused_retry_victim')) { // the budget's take, made on the victim's bucket
        const v = ways.get(victim.toString());
        refused = { ...refused, retry: limTake(v, this.lim, now, this.lim.cap - this.refilled(v, now)).retry };
      }
      if (mutants.active('refused_evicts_anyway')) ways.delete(victim.toString());
      return { way: null, b: refused };
    }
    if (mutants.active('full_set_inherits')) return { way: victim, b: ways.get(victim.toString()) };
    return { way: victim, b: born };
  }

  evict(ways, now) {
    const n = Number(this.ways);
    const e = (w) => ways.get(String(w));
    if (mutants.active('evict_lru')) {
      let best = 0;
      for (let w = 1; w < n; w++) if (e(w).used < e(best).used) best = w;
      return BigInt(best);
    }
    const score = (w) => (mutants.active('evict_stored_tks') ? e(w).tks : this.refilled(e(w), now));
    const order = [];
    for (let w = 0; w < n; w++) order.push(w);
    if (mutants.active('evict_ties_highest')) order.reverse();
    const better = mutants.active('evict_min_tokens') ? (a, b) => a < b : (a, b) => a > b;
    let best = null;
    for (const w of order) if (best === null || better(score(w), score(best))) best = w;
    return BigInt(best);
  }

  // GATE-16, GATE-19: the set s's budget pays cap - tks' of the victim's bucket at now; null
  // when it paid, else its take's refusing result.
  pay(s, victim, now) {
    if (mutants.active('evict_free')) return null;
    const cap = this.lim.cap;
    let cost = cap - this.refilled(victim, now); // >= 1: a victim is not full
    if (mutants.active('budget_cost_cap')) cost = cap;
    if (mutants.active('budget_cost_one')) cost = 1n;
    if (mutants.active('budget_cost_stored_tks')) cost = cap - victim.tks;
    const r = this.charge(s, now, cost);
    return r.ok === 1n ? null : r;
  }

  // The take of cost tokens from set s's budget at now (GATE-19), kept on both outcomes.
  charge(s, now, cost) {
    const cap = this.lim.cap;
    const slot = mutants.active('budget_per_gate') ? '0' : s.toString(); // one budget, whichever set evicts
    let budget = this.budgets.get(slot);
    if (mutants.active('budget_born_at_first_admit')) {
      if (budget === undefined) budget = limBktNew(cap, this.firstAdmit);
    } else if (budget === undefined || (this.full(budget, now) && !mutants.active('budget_not_reborn') && !mutants.active('budget_never_refills'))) {
      budget = limBktNew(cap, now); // GATE-19: born full where absent or full at now
    }
    const at = mutants.active('budget_never_refills') ? budget.last : now; // a counter: no steps
    const r = limTake(budget, this.lim, at, cost);
    this.budgets.set(slot, { tks: r.tks, last: r.last }); // GATE-19: on both outcomes
    return r;
  }

  // The way of s that holds key after its take at now and the take's result; way null and the
  // budget's take when the budget refused an eviction (nothing written, GATE-19).
  take(s, key, now) {
    const { way, b } = this.place(s, key, now);
    if (way === null) return { way, r: b };
    const r = limTake(b, this.lim, now, 1n); // GATE-5
    this.uses += 1n;
    this.write(s, way, key, r);
    return { way, r };
  }

  // way of set s now holds key and the bucket b (GATE-6).
  write(s, way, key, b) {
    const ways = this.ways_(s);
    if (mutants.active('table_capped_1024') && !ways.has(way.toString())) { // an arena of 1024 entries
      let held = 0;
      for (const m of this.table.values()) held += m.size;
      if (held >= 1024) return; // the arena is full: the key is not kept
    }
    ways.set(way.toString(), { key, tks: b.tks, last: b.last, used: this.uses });
  }

  // The shed_after_placement mutant: key placed (GATE-15, GATE-16) before the in-flight gate.
  reserve(s, key, now) {
    const { way, b } = this.place(s, key, now);
    if (way !== null) this.write(s, way, key, b);
  }

  // Whether the way entry e holds key: by the whole key, or for way_tag_16 by its low 16 bits.
  holds(e, key) {
    if (mutants.active('way_tag_16')) return BigInt.asUintN(16, e.key) === BigInt.asUintN(16, key);
    return e.key === key;
  }

  static shed(s) { // GATE-9, GATE-17: a shed names no way
    return { verdict: 'shed', set: s, retry: 0n, retry_after: 1n, response: limResp503(mutants.active('shed_retry_after_zero') ? 0n : 1n) };
  }

  limited(s, way, r) { // GATE-8
    const ra = retryAfterSecs(r.retry, this.tickNanos);
    return { verdict: 'limited', set: s, way, retry: r.retry, retry_after: ra, response: limResp503(ra) };
  }

  // GATE-19, GATE-17: a refused eviction is limited with the budget take's retry, and names no
  // way (no way holds the key).
  refused(s, r) {
    const d = this.limited(s, 0n, r);
    if (!mutants.active('refused_way_zero')) delete d.way;
    return d;
  }

  release() { this.inFlight = limRel(this.inFlight); } // GATE-11

  // Inspection: the stored bucket of ip's key, or null when no way holds it or its bucket
  // is full at now (GATE-14; spec.md's operations table).
  bucket(ip, now) {
    const key = limIpKey(ip);
    const ways = this.table.get(this.setOf(key).toString());
    if (ways === undefined) return null;
    for (const e of ways.values()) {
      if (!this.holds(e, key)) continue;
      if (this.full(e, now) && !mutants.active('bucket_ignores_full')) return null;
      if (mutants.active('bucket_reads_refilled')) {
        const r = limTake(e, this.lim, now, this.lim.cap);
        return { tks: r.ok === 1n ? r.tks + this.lim.cap : r.tks, last: r.last };
      }
      return e;
    }
    return null;
  }

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
        const b = this.bucket(parseBytes(arg(op, 'ip'), 'ip'), int64(arg(op, 'now'), 'now'));
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
  const seed = parseSeed(arg(g, 'seed'), 'config.gate.seed'); // VEC-9: 32 hex digits
  return new Gate(f('cap'), f('refil'), f('ivl'), f('maxif'), f('sets'), f('ways'), f('tick_nanos'), seed);
}

module.exports = { NANOS_PER_SECOND, ZERO_SEED, retryAfterSecs, Gate, openGate };
