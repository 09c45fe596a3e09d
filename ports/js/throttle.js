'use strict';
// Component throttle: seed 003's failure counter with bans (spec.md THR-1..THR-17), its
// store's seven operations (STORE-1..STORE-9) and fault injection (STORE-10).
const { MAX_INT64, MAX_UINT64, ConfigError, OpError, StoreError, arg, parseBytes, uint64, bmax, bmin } = require('./wire');
const mutants = require('./mutants');

const DEFAULT_CONFIG = { threshold: 5n, window_secs: 900n, ban_secs: 900n }; // THR-2

// THR-4: a stamp t counts at now iff t + window > now (exact, no upper bound).
function inWindow(t, now, window) {
  if (mutants.active('window_inclusive')) return t + window >= now;
  if (mutants.active('window_short')) return t + window > now + 1n;
  if (mutants.active('window_upper_bound')) return t <= now && now < t + window;
  if (mutants.active('fixed_window_aligned')) return t / window === now / window; // one counter per window
  return t + window > now;
}

// STORE-9: purge keeps what count still sees.
const keptByPurge = (t, now, window) => (mutants.active('purge_window_inclusive') ? t + window >= now : inWindow(t, now, window));

const hexKey = (key) => Buffer.from(key).toString('hex'); // a Map key for a byte string
const storeKey = (key) => {
  if (mutants.active('key_cut_64')) return hexKey(Buffer.from(key).subarray(0, 64));
  return hexKey(mutants.active('key_cut_4') ? Buffer.from(key).subarray(0, 4) : key);
};

// Every stamp of every key; a key maps to { stamps: [BigInt], until: BigInt }.
class ExactStore {
  constructor() {
    this.keys = new Map();
    this.ring = 0n; // stamps_ring_threshold: the most stamps a key keeps, in insertion order
  }

  entry(key) {
    const k = storeKey(key);
    if (!this.keys.has(k)) this.keys.set(k, { stamps: [], until: 0n });
    return this.keys.get(k);
  }

  banUntil(key) { // STORE-2
    const e = this.keys.get(storeKey(key));
    return e ? e.until : 0n;
  }

  count(key, now, window) { // STORE-3 (THR-4)
    const e = this.keys.get(storeKey(key));
    if (!e) return 0n;
    let n = BigInt(e.stamps.filter((t) => inWindow(t, now, window)).length);
    if (mutants.active('count_assumes_sorted')) { // newest first, stopping at the first expired
      n = 0n;
      for (let i = e.stamps.length - 1; i >= 0 && inWindow(e.stamps[i], now, window); i--) n++;
    }
    return mutants.active('count_uint8') ? BigInt.asUintN(8, n) : n;
  }

  addFailure(key, now, window) { // STORE-4
    const { stamps } = this.entry(key);
    const t = mutants.active('stamps_uint32') ? BigInt.asUintN(32, now) : now;
    if (!(mutants.active('stamps_dedup_same_second') && stamps.includes(t))) stamps.push(t);
    if (mutants.active('stamps_ring_16') && stamps.length > 16) stamps.splice(0, stamps.length - 16);
    if (this.ring > 0n && stamps.length > Number(this.ring)) stamps.splice(0, stamps.length - Number(this.ring));
    return this.count(key, now, window);
  }

  ban(key, until) { // STORE-5
    const e = this.entry(key);
    e.until = mutants.active('ban_shortens') ? until : bmax(e.until, until);
    return e.until;
  }

  clearFailures(key) { // STORE-6
    const e = this.keys.get(storeKey(key));
    if (e) e.stamps = [];
  }

  // The ban_fault_rolls_back mutant: the stamp now that add_failure added, taken out again.
  dropStamp(key, now) {
    const e = this.keys.get(storeKey(key));
    const i = e ? e.stamps.lastIndexOf(now) : -1;
    if (i >= 0) e.stamps.splice(i, 1);
  }

  clear(key) { this.keys.delete(storeKey(key)); } // STORE-7

  static tracked(e) { // STORE-8
    return e.stamps.length > 0 || (e.until > 0n && !mutants.active('purge_drops_bans'));
  }

  purge(now, window) { // STORE-9
    let n = 0n;
    for (const [k, e] of [...this.keys]) {
      const before = ExactStore.tracked(e);
      const kept = e.stamps.filter((t) => keptByPurge(t, now, window));
      if (mutants.active('purge_counts_stamps')) n += BigInt(e.stamps.length - kept.length);
      e.stamps = kept;
      if (e.until < now || (e.until === now && !mutants.active('purge_ban_strict'))) e.until = 0n;
      if (!ExactStore.tracked(e)) {
        this.keys.delete(k);
        if (before && !mutants.active('purge_counts_stamps')) n += 1n;
      }
    }
    if (mutants.active('purge_returns_remaining')) return BigInt(this.keys.size); // the keys left, not the keys gone
    return n;
  }
}

const OPS = ['ban_until', 'count', 'add_failure', 'ban', 'clear_failures', 'clear', 'purge'];

// A store under test (STORE-10): rules {op, keys}; a failed op has no effect (STORE-1).
class FaultStore {
  constructor(inner) {
    this.inner = inner;
    this.rules = []; // { op, keys: Set of hex keys }; an empty set = every key
  }

  setFaults(rules) {
    const add = rules.map(({ op, keys }) => ({ op, keys: new Set(keys.map(hexKey)) }));
    this.rules = mutants.active('faults_appended') ? this.rules.concat(add) : add;
  }

  fail(op, key) {
    for (const r of this.rules) {
      let every = r.keys.size === 0;
      if (mutants.active('purge_fault_any_rule') && key === null) every = true;
      if (r.op === op && (every || (key !== null && r.keys.has(hexKey(key))))) throw new StoreError(op);
    }
  }

  run(op, key, f, partial = () => {}) {
    if (mutants.active('fault_after_effect')) {
      const r = f();
      this.fail(op, key);
      return r;
    }
    try {
      this.fail(op, key);
    } catch (e) {
      partial();
      throw e;
    }
    return f();
  }

  banUntil(key) { return this.run('ban_until', key, () => this.inner.banUntil(key)); }
  count(key, now, window) { return this.run('count', key, () => this.inner.count(key, now, window)); }
  addFailure(key, now, window) { return this.run('add_failure', key, () => this.inner.addFailure(key, now, window)); }
  ban(key, until) { return this.run('ban', key, () => this.inner.ban(key, until)); }
  clearFailures(key) { return this.run('clear_failures', key, () => this.inner.clearFailures(key)); }
  clear(key) {
    if (mutants.active('clear_fault_half_done')) { // the stamps go first, then the ban's write fails
      return this.run('clear', key, () => this.inner.clear(key), () => this.inner.clearFailures(key));
    }
    return this.run('clear', key, () => this.inner.clear(key));
  }
  purge(now, window) { return this.run('purge', null, () => this.inner.purge(now, window)); }
}

const allow = (remaining) => ({ verdict: 'allow', remaining });
const banned = (until) => ({ verdict: 'banned', until });
const UNAVAILABLE = Object.freeze({ verdict: 'unavailable' });

class Throttle {
  constructor(store, threshold, windowSecs, banSecs) {
    if (!store || threshold < 1n || windowSecs < 1n || banSecs < 1n) throw new ConfigError('throttle config refused'); // THR-1, THR-6
    this.store = store;
    this.threshold = threshold;
    this.windowSecs = windowSecs;
    this.banSecs = banSecs;
    if (mutants.active('threshold_uint8')) this.threshold = BigInt.asUintN(8, threshold);
    if (mutants.active('threshold_uint16')) this.threshold = BigInt.asUintN(16, threshold);
    if (mutants.active('threshold_uint32')) this.threshold = BigInt.asUintN(32, threshold);
    if (mutants.active('ban_secs_uint32')) this.banSecs = BigInt.asUintN(32, banSecs);
    if (mutants.active('window_uint32')) this.windowSecs = BigInt.asUintN(32, windowSecs);
    if (mutants.active('stamps_ring_threshold')) (store.inner || store).ring = this.threshold;
  }

  check(key, now) {
    if (key.length === 0 && mutants.active('empty_key_ignored')) return allow(this.threshold);
    let until;
    try { until = this.store.banUntil(key); } catch (e) {
      if (!(e instanceof StoreError)) throw e;
      if (!mutants.active('ban_until_fault_ignored')) return this.unavailable(now); // THR-7
      until = 0n; // "no ban known": go on to the count
    }
    if (mutants.active('ban_never_expires') && until > 0n) return banned(until);
    if (now < until || (now === until && mutants.active('ban_until_inclusive'))) { // THR-5
      if (!(now + 1n === until && mutants.active('ban_ends_early'))) return banned(until);
    }
    let n;
    try { n = this.store.count(key, now, this.windowSecs); } catch (e) { if (e instanceof StoreError) return this.unavailable(now); throw e; } // THR-8
    if (mutants.active('remaining_wraps')) return allow(BigInt.asUintN(64, this.threshold - n));
    return allow(this.threshold - bmin(n, this.threshold));
  }

  unavailable(now) {
    if (mutants.active('fault_fail_closed')) return banned(bmin(now + this.banSecs, MAX_UINT64));
    if (mutants.active('fault_fail_open')) return allow(this.threshold);
    return UNAVAILABLE;
  }

  checkAny(keys, now) {
    if (mutants.active('check_any_drops_repeats')) {
      const hex = keys.map(hexKey);
      keys = keys.filter((k, i) => hex.indexOf(hex[i]) === hex.lastIndexOf(hex[i]));
    }
    if (keys.length === 0) return allow(mutants.active('check_any_empty_full') ? this.threshold : 0n); // THR-9
    if (mutants.active('check_any_first_key_only')) keys = keys.slice(0, 1);
    if (mutants.active('check_any_first_16')) keys = keys.slice(0, 16);
    if (mutants.active('check_any_first_64')) keys = keys.slice(0, 64);
    if (mutants.active('check_any_last_key_wins')) return this.check(keys[keys.length - 1], now);
    const rs = keys.map((k) => this.check(k, now)); // THR-10
    if (mutants.active('check_any_first_allow')) {
      const a = rs.find((r) => r.verdict === 'allow');
      if (a) return a;
    }
    const unavailable = rs.some((r) => r.verdict === 'unavailable');
    if (unavailable && mutants.active('check_any_unavailable_first')) return UNAVAILABLE;
    const bans = rs.filter((r) => r.verdict === 'banned');
    if (bans.length) return banned(mutants.active('check_any_first_ban') ? bans[0].until : bans.map((r) => r.until).reduce(bmax));
    if (unavailable) return UNAVAILABLE;
    if (mutants.active('check_any_merged_count')) { // the keys' counts added up
      const used = rs.map((r) => this.threshold - r.remaining).reduce((a, b) => a + b);
      return allow(this.threshold - bmin(used, this.threshold));
    }
    return allow(rs.map((r) => r.remaining).reduce(mutants.active('check_any_max_remaining') ? bmax : bmin));
  }

  // allow/banned, or throws StoreError (THR-11..THR-13).
  recordFailure(key, now) {
    if (key.length === 0 && mutants.active('empty_key_ignored')) return allow(this.threshold);
    if (mutants.active('record_failure_checks_ban')) {
      const u = this.store.banUntil(key);
      if (now < u) return banned(u);
    }
    const n = this.store.addFailure(key, now, this.windowSecs);
    if (n < this.threshold || (n === this.threshold && mutants.active('threshold_off_by_one'))) { // THR-12
      if (!(n + 1n === this.threshold && mutants.active('threshold_early'))) return allow(this.threshold - n);
    }
    let until = bmin(now + this.banSecs, MAX_UINT64); // THR-3
    if (mutants.active('ban_until_wraps')) until = (now + this.banSecs) & MAX_UINT64;
    if (mutants.active('ban_until_int64')) until = bmin(now + this.banSecs, MAX_INT64);
    try {
      const stored = this.store.ban(key, until); // THR-13
      return banned(mutants.active('record_failure_computed_until') ? until : stored);
    } catch (e) {
      if (e instanceof StoreError && mutants.active('ban_error_swallowed')) return banned(until);
      if (e instanceof StoreError && mutants.active('ban_fault_rolls_back')) (this.store.inner || this.store).dropStamp(key, now);
      throw e;
    }
  }

  recordSuccess(key) { // THR-14
    if (mutants.active('success_lifts_ban')) this.store.clear(key);
    else if (!mutants.active('success_noop')) this.store.clearFailures(key);
    if (mutants.active('success_clears_every_key')) for (const e of (this.store.inner || this.store).keys.values()) e.stamps = [];
  }

  reset(key) { // THR-15
    if (mutants.active('reset_keeps_ban')) this.store.clearFailures(key);
    else this.store.clear(key);
  }

  purgeExpired(now) { // THR-16
    try {
      return this.store.purge(now, this.windowSecs);
    } catch (e) {
      if (e instanceof StoreError && mutants.active('purge_error_zero')) return 0n;
      throw e;
    }
  }
}

const str = (r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, k === 'verdict' ? v : v.toString()]));

function parseFaults(v) {
  if (!Array.isArray(v)) throw new OpError('faults: not a list');
  return v.map((r) => {
    if (r === null || typeof r !== 'object' || !OPS.includes(r.op)) throw new OpError(`faults: bad rule ${JSON.stringify(r)}`);
    const keys = r.keys === undefined ? [] : r.keys;
    if (!Array.isArray(keys)) throw new OpError('faults: keys not a list');
    return { op: r.op, keys: keys.map((k) => parseBytes(k, 'fault key')) };
  });
}

// The throttle (faults false) or throttle_faults (faults true) component as a vector subject.
class ThrottleSubject {
  constructor(throttle, faults) { this.throttle = throttle; this.faults = faults; }

  do(op) {
    const t = this.throttle;
    const key = () => parseBytes(arg(op, 'key'), 'key');
    const now = () => uint64(arg(op, 'now'), 'now');
    try {
      switch (op.op) {
        case 'check': return str(t.check(key(), now()));
        case 'check_any': {
          const ks = arg(op, 'keys');
          if (!Array.isArray(ks)) throw new OpError('keys: not a list');
          return str(t.checkAny(ks.map((k) => parseBytes(k, 'keys[]')), now()));
        }
        case 'record_failure': return str(t.recordFailure(key(), now()));
        case 'record_success': t.recordSuccess(key()); return {};
        case 'reset': t.reset(key()); return {};
        case 'purge_expired': return { count: t.purgeExpired(now()).toString() };
        case 'set_faults':
          if (this.faults) { t.store.setFaults(parseFaults(arg(op, 'faults'))); return {}; }
          break;
        default: break;
      }
    } catch (e) {
      if (e instanceof StoreError) return { error: 'store' };
      throw e;
    }
    throw new OpError(`${this.faults ? 'throttle_faults' : 'throttle'}: unknown op ${JSON.stringify(op.op)}`);
  }
}

// The throttle_process_store mutant's one store, shared by every throttle of the process.
const PROCESS_STORE = new ExactStore();

function openThrottle(config, faults = false) {
  const c = arg(config || {}, 'throttle');
  if (c === null || typeof c !== 'object' || Array.isArray(c)) throw new OpError('config.throttle: not an object');
  const f = (k) => uint64(arg(c, k), `config.throttle.${k}`);
  let inner = new ExactStore();
  if (mutants.active('throttle_process_store')) { // a new throttle empties and adopts the one store
    PROCESS_STORE.keys.clear();
    inner = PROCESS_STORE;
  }
  const store = faults ? new FaultStore(inner) : inner;
  return new ThrottleSubject(new Throttle(store, f('threshold'), f('window_secs'), f('ban_secs')), faults);
}

module.exports = { DEFAULT_CONFIG, ExactStore, FaultStore, Throttle, ThrottleSubject, openThrottle, OPS };
