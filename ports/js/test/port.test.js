'use strict';
// Hand-checked examples of spec.md: the worked example and some findings.
const test = require('node:test');
const assert = require('node:assert/strict');
const { openComponent, wire } = require('../index');
const { limBkt, limCfg, limIpKey, limResp503, limTake } = require('../lim');
const { Gate } = require('../gate');
const { keyHash, parseSeed, siphash } = require('../siphash');
const { ExactStore, FaultStore, Throttle } = require('../throttle');

const B = (s) => Buffer.from(s, 'latin1');

// tl is a gate bucket's tks and last, or null when no way holds the key.
const tl = (b) => (b === null ? null : { tks: b.tks, last: b.last });

test('worked example', () => {
  const g = new Gate(2n, 1n, 10n, 2n, 64n, 4n, 100000000n);
  assert.equal(g.admit(B('a'), 0n).verdict, 'pass');
  assert.deepEqual([g.inFlight, tl(g.bucket(B('a'), 0n))], [1n, { tks: 1n, last: 0n }]);
  assert.equal(g.admit(B('a'), 1n).verdict, 'pass');
  assert.deepEqual([g.inFlight, tl(g.bucket(B('a'), 1n))], [2n, { tks: 0n, last: 0n }]);
  const shed = g.admit(B('b'), 2n);
  assert.equal(shed.verdict, 'shed');
  assert.equal(shed.retry_after, 1n);
  assert.deepEqual(shed.response, limResp503(1n));
  g.release();
  g.release();
  assert.equal(g.inFlight, 0n);
  const lim = g.admit(B('a'), 4n);
  assert.deepEqual([lim.verdict, lim.retry, lim.retry_after], ['limited', 10n, 1n]);
  assert.equal(g.admit(B('a'), 10n).verdict, 'pass');
  assert.deepEqual(tl(g.bucket(B('a'), 10n)), { tks: 0n, last: 10n });
});

test('FIND-14: an aimed collision makes its victim wait, with ways 2 only', () => {
  for (const [ways, victimPasses, attackerPasses] of [[2n, 5, 35], [3n, 15, null]]) {
    const g = new Gate(15n, 1n, 1000n, 1000n, 1n, ways, 1000000n);
    const victim = [];
    let attackers = 0;
    for (let now = 0n; now < 15n; now++) {
      for (const a of ['x1', 'x2', 'x3']) if (g.admit(B(a), now).verdict === 'pass') attackers++;
      victim.push(g.admit(B('v'), now).verdict);
    }
    assert.deepEqual(victim, [...Array(victimPasses).fill('pass'), ...Array(15 - victimPasses).fill('limited')], `ways ${ways}`);
    if (attackerPasses !== null) assert.equal(attackers, attackerPasses); // FIND-14 counts them with ways 2
  }
});

const ZERO_SEED = '0'.repeat(32);

test('dispatcher takes vector ops', () => {
  const s = openComponent('gate', { gate: { cap: '2', refil: '1', ivl: '10', maxif: '2', sets: '64', ways: '4', tick_nanos: '100000000', seed: ZERO_SEED } });
  // spec.md's worked example: siphash(0, 97) mod 64 = 1
  assert.deepEqual(s.do({ op: 'admit', ip: 'a', now: '0' }), { verdict: 'pass', set: '1', way: '0', retry: '0', retry_after: '0' });
  assert.deepEqual(s.do({ op: 'bucket', ip: 'b', now: '0' }), { touched: false });
  assert.deepEqual(s.do({ op: 'bucket', ip: 'a', now: '0' }), { touched: true, tks: '1', last: '0' });
  assert.throws(() => new Gate(2n, 1n, 10n, 2n, 0n, 1n, 1n), wire.ConfigError);
  assert.throws(() => new Gate(2n, 1n, 10n, 2n, 1n, 0n, 1n), wire.ConfigError);
  assert.deepEqual(openComponent('lim').do({ op: 'lim_ip_key', ip: { hex: '0061' } }), { key: '97' });
});

// GATE-18: SipHash-2-4 of k as 8 little-endian bytes; GATE-1 and VEC-9: the config's seed.
test('GATE-18: SipHash-2-4 check values', () => {
  const k16 = Buffer.from([...Array(16).keys()]);
  assert.equal(keyHash(k16, 0x0706050403020100n), 0x93f5f5799a932462n); // GATE-18's check value
  assert.equal(siphash(k16, Buffer.from([...Array(15).keys()])), 0xa129ca6149be45e5n); // the paper's 15-byte message
  assert.equal(siphash(k16, Buffer.alloc(0)), 0x726fdb47dd0e0e31n); // the reference's first vector
  assert.equal(keyHash(Buffer.alloc(16), 97n), 9317687229460025665n); // the worked example's "a"
  assert.equal(keyHash(Buffer.alloc(16), 97n) % 64n, 1n);
  const g = new Gate(1n, 1n, 10n, 1n, 64n, 1n, 1n);
  const h = new Gate(1n, 1n, 10n, 1n, 64n, 1n, 1n, k16);
  assert.deepEqual([g.admit(B('a'), 0n).set, h.admit(B('a'), 0n).set], [1n, keyHash(k16, 97n) % 64n]);
});

test('GATE-1, VEC-9: the config\'s seed', () => {
  const cfg = (seed) => ({ gate: { cap: '1', refil: '1', ivl: '1', maxif: '1', sets: '1', ways: '1', tick_nanos: '1', seed } });
  assert.deepEqual(openComponent('gate', cfg('000102030405060708090a0b0c0d0e0f')).seed, Buffer.from([...Array(16).keys()]));
  assert.deepEqual(openComponent('gate', cfg('F'.repeat(32))).seed, Buffer.alloc(16, 0xff));
  for (const bad of ['', '00'.repeat(15), '00'.repeat(17), '0'.repeat(31), 'g'.repeat(32), ` ${'0'.repeat(31)}`, `${'0'.repeat(32)}\n`]) {
    assert.throws(() => openComponent('gate', cfg(bad)), wire.ConfigError, JSON.stringify(bad));
  }
  for (const bad of [0, null, ['0'.repeat(32)], { hex: '0'.repeat(32) }]) {
    assert.throws(() => openComponent('gate', cfg(bad)), wire.OpError, JSON.stringify(bad));
  }
  const c = cfg(ZERO_SEED);
  delete c.gate.seed;
  assert.throws(() => openComponent('gate', c), wire.OpError);
  assert.throws(() => new Gate(1n, 1n, 1n, 1n, 1n, 1n, 1n, Buffer.alloc(15)), wire.ConfigError);
  assert.deepEqual(parseSeed('ab'.repeat(16)), Buffer.alloc(16, 0xab));
});

// A limited decision of set 0; way null: the budget refused an eviction (GATE-19).
function limited(retry, way = null, retryAfter = 1n) {
  const d = { verdict: 'limited', set: 0n, way, retry, retry_after: retryAfter, response: limResp503(retryAfter) };
  if (way === null) delete d.way;
  return d;
}
const passed = (way = 0n, set = 0n) => ({ verdict: 'pass', set, way, retry: 0n, retry_after: 0n });

// Runs admit(ip, now) for each [ip, now, want] on g.
function steps(g, table) {
  table.forEach(([ip, now, want], i) => assert.deepEqual(g.admit(B(ip), now), want, `step ${i}: admit(${ip}, t${now})`));
}

// GATE-16, GATE-19: an eviction costs cap - tks' of its victim, paid by its set's budget.
test('FIND-16: turns pay from the budget', () => {
  const g = new Gate(1n, 1n, 1000n, 10n, 1n, 1n, 1n);
  steps(g, [
    ['a', 0n, passed()],
    ['b', 0n, passed()], // evicts a at a cost of 1 - 0 = 1: the budget 1 -> 0
    ['a', 0n, limited(1000n)], // the budget is empty: no way
    ['b', 0n, limited(1000n, 0n)], // b's own bucket
  ]);
  assert.equal(g.inFlight, 2n);
});

test('FIND-27: a newcomer waits for the budget', () => {
  const g = new Gate(1n, 1n, 1000n, 10n, 1n, 1n, 1n);
  steps(g, [['a', 0n, passed()], ['b', 0n, passed()], ['c', 0n, limited(1000n)]]);
  assert.deepEqual([tl(g.bucket(B('c'), 0n)), tl(g.bucket(B('b'), 0n)), g.inFlight], [null, { tks: 0n, last: 0n }, 2n]);
  assert.deepEqual([...g.budgets], [['0', { tks: 0n, last: 0n }]]);
  steps(g, [['c', 0n, limited(1000n)]]); // still refused: b kept its way
});

test('GATE-16: an eviction costs cap - tks\' of its victim, not cap', () => {
  const g = new Gate(3n, 1n, 10n, 10n, 1n, 1n, 1n);
  steps(g, [
    ['a', 0n, passed()], // a {2, 0}
    ['b', 0n, passed()], // evicts a: 3 - 2 = 1, budget 3 -> 2
    ['a', 0n, passed()], // evicts b: budget 2 -> 1
    ['b', 0n, passed()], // budget 1 -> 0
    ['a', 0n, limited(10n)], // 1 token short: ceil(1 * 10 / 1)
    ['b', 0n, passed()], // b's own way
    ['b', 0n, passed()], // b {0, 0}
    ['a', 5n, limited(30n)], // the victim b costs 3: ceil((3 - 0) * 10 / 1)
  ]);
});

test('GATE-2, GATE-19: a budget is born at its set\'s first eviction', () => {
  const g = new Gate(1n, 1n, 5n, 10n, 1n, 1n, 1n);
  steps(g, [
    ['a', 13n, passed()],
    ['e', 16n, passed()], // the budget is born {1, 16} and pays: {0, 16}
    ['b', 18n, limited(5n)], // no whole step since 16
  ]);
});

test('GATE-19: a budget full at now is born again at now', () => {
  const g = new Gate(1n, 1n, 5n, 10n, 1n, 1n, 1n);
  steps(g, [
    ['b', 1n, passed()],
    ['a', 1n, passed()], // budget {0, 1}
    ['c', 19n, passed()], // a is full at 19: c takes its way, no eviction
    ['e', 19n, passed()], // evicts c; the budget, full at 19, is born {1, 19}: {0, 19}
    ['a', 22n, limited(5n)], // refilled from {0, 16} it would pay
  ]);
});

test('GATE-19: the set keeps the budget take\'s result on a refusal too', () => {
  const g = new Gate(2n, 1n, 10n, 10n, 1n, 1n, 1n);
  steps(g, [
    ['b', 1n, passed()], // b {1, 1}
    ['a', -2n, passed()], // evicts b (cost 1); budget {2, -2} -> {1, -2}
    ['b', 3n, passed()], // evicts a (cost 1); budget {0, -2}
    ['b', 11n, passed()], // b {0, 3}
    // e would evict b ({0, 3}: no step by 12, cost 2); the budget refills to {1, 8}, refuses
    // and keeps {1, 8}
    ['e', 12n, limited(10n)],
  ]);
  assert.deepEqual(g.budgets.get('0'), { tks: 1n, last: 8n });
  // at 5 < 8 the kept budget stays at 1 token (LIM-8), 1 short; {0, -2} would be 2 short
  steps(g, [['d', 5n, limited(10n)]]);
});

test('GATE-19: each set has its own budget', () => {
  const g = new Gate(1n, 1n, 1000n, 10n, 2n, 1n, 1n); // zero seed, 2 sets: a and c in set 1, b and h in set 0
  steps(g, [['a', 0n, passed(0n, 1n)], ['c', 0n, passed(0n, 1n)], ['b', 0n, passed()], ['h', 0n, passed()]]);
});

test('GATE-19: a refusal\'s retry is the budget take\'s, not the victim\'s', () => {
  const g = new Gate(2n, 2n, 2n, 10n, 1n, 1n, 1n);
  steps(g, [
    ['e', 13n, passed()],
    ['c', 14n, passed()], // evicts e (cost 1): budget {1, 14}
    ['c', 15n, passed()], // c {0, 14}
    ['a', 8n, limited(1n)], // c costs 2, the budget has 1: ceil(1 * 2 / 2)
  ]);
});

test('GATE-16, GATE-19, DEC-30: a refusal writes no way and reports none', () => {
  const g = new Gate(1n, 1n, 1000n, 10n, 1n, 2n, 1n);
  steps(g, [['a', 0n, passed()], ['b', 0n, passed(1n)], ['c', 0n, passed()], ['d', 0n, limited(1000n)]]);
  assert.deepEqual(['a', 'b', 'c', 'd'].map((ip) => tl(g.bucket(B(ip), 0n))), [null, { tks: 0n, last: 0n }, { tks: 0n, last: 0n }, null]);
  const s = openComponent('gate', { gate: { cap: '1', refil: '1', ivl: '1000', maxif: '10', sets: '1', ways: '1', tick_nanos: '1', seed: ZERO_SEED } });
  for (const ip of ['a', 'b']) s.do({ op: 'admit', ip, now: '0' });
  assert.ok(!('way' in s.do({ op: 'admit', ip: 'c', now: '0' })));
});

test('FIND-1: retry too early and too late', () => {
  const c = limCfg(2n, 2n, 10n, 1n);
  assert.equal(limTake(limBkt(0n, 0n), c, 0n, 1n).retry, 5n);
  assert.equal(limTake(limBkt(0n, 0n), c, 5n, 1n).ok, 0n);
  assert.equal(limTake(limBkt(0n, 0n), c, 10n, 1n).ok, 1n);
  assert.equal(limTake(limBkt(0n, 0n), limCfg(1n, 1n, 10n, 1n), 9n, 1n).retry, 10n);
});

test('FIND-2, FIND-3, FIND-12: keys are of bytes', () => {
  assert.equal(limIpKey(B('10.17.102.130')), 2422100051n);
  assert.equal(limIpKey(B('10.23.191.7')), 2422100051n);
  assert.equal(limIpKey(B('::1')), 1002985n);
  assert.equal(limIpKey(B('0:0:0:0:0:0:0:1')), 2269459780n);
  assert.equal(limIpKey(B('\x00a')), 97n);
  // UTF-8 bytes, not UTF-16 code units: "é" is C3 A9.
  assert.equal(limIpKey(Buffer.from('é', 'utf8')), (0xc3n * 131n + 0xa9n) % 4294967291n);
});

test('FIND-4, FIND-11, FIND-13 and retry saturation', () => {
  const c = limCfg(2n, 1n, 10n, 1n);
  assert.deepEqual(limTake(limBkt(2n, 0n), c, 0n, 3n), { ok: 0n, retry: 10n, tks: 2n, last: 0n });
  assert.deepEqual(limTake(limBkt(2n, 0n), c, 10n, 3n), { ok: 0n, retry: 10n, tks: 2n, last: 10n });
  assert.deepEqual(limTake(limBkt(10n, 0n), limCfg(3n, 1n, 10n, 1n), -5n, 1n), { ok: 1n, retry: 0n, tks: 2n, last: 0n });
  assert.equal(limTake(limBkt(0n, 100n), limCfg(1n, 1n, 10n, 1n), 0n, 1n).retry, 10n);
  assert.equal(limTake(limBkt(0n, 0n), limCfg(1n, 1n, wire.MAX_INT64, 1n), 0n, wire.MAX_INT64).retry, wire.MAX_INT64);
});

test('FIND-5: counts survive a ban', () => {
  const t = new Throttle(new ExactStore(), 3n, 100n, 10n);
  t.recordFailure(B('k'), 0n);
  t.recordFailure(B('k'), 1n);
  assert.deepEqual(t.recordFailure(B('k'), 2n), { verdict: 'banned', until: 12n });
  assert.deepEqual(t.check(B('k'), 12n), { verdict: 'allow', remaining: 0n });
  assert.deepEqual(t.recordFailure(B('k'), 12n), { verdict: 'banned', until: 22n });
  assert.deepEqual(t.check(B('k'), 103n), { verdict: 'allow', remaining: 2n });
});

test('FIND-6: record_failure allows while a ban holds', () => {
  const t = new Throttle(new ExactStore(), 2n, 100n, 50n);
  t.recordFailure(B('k'), 0n);
  assert.deepEqual(t.recordFailure(B('k'), 1n), { verdict: 'banned', until: 51n });
  t.recordSuccess(B('k'));
  assert.deepEqual(t.recordFailure(B('k'), 2n), { verdict: 'allow', remaining: 1n });
  assert.deepEqual(t.check(B('k'), 2n), { verdict: 'banned', until: 51n });
});

test('FIND-7: a saturated ban ends one second early', () => {
  const t = new Throttle(new ExactStore(), 1n, 900n, 900n);
  assert.deepEqual(t.recordFailure(B('k'), wire.MAX_UINT64 - 5n), { verdict: 'banned', until: wire.MAX_UINT64 });
  assert.deepEqual(t.check(B('k'), wire.MAX_UINT64), { verdict: 'allow', remaining: 0n });
});

test('FIND-10 and STORE-10: purge', () => {
  const s = new FaultStore(new ExactStore());
  const t = new Throttle(s, 2n, 10n, 900n);
  t.recordFailure(B('k'), 0n);
  s.setFaults([{ op: 'purge', keys: [B('k')] }]); // a purge rule listing keys never matches
  assert.equal(t.purgeExpired(100n), 1n);
  assert.deepEqual(t.check(B('k'), 5n), { verdict: 'allow', remaining: 2n });
  s.setFaults([{ op: 'purge', keys: [] }]);
  assert.throws(() => t.purgeExpired(100n), wire.StoreError);
});

test('THR-6: configs refused', () => {
  for (const [a, b, c] of [[0n, 1n, 1n], [1n, 0n, 1n], [1n, 1n, 0n]]) {
    assert.throws(() => new Throttle(new ExactStore(), a, b, c), wire.ConfigError);
  }
  assert.throws(() => new Throttle(null, 5n, 900n, 900n), wire.ConfigError);
});

// VEC-7 (spec DEC-52): a byte string is a JSON string or {"hex": ...} by
// that exact key; hex digits of either case; a lone surrogate, odd-length
// or non-hex digits are refused.
test('VEC-7 byte strings: forms read and refused', () => {
  const { parseBytes } = wire;
  assert.deepEqual(parseBytes('ab'), Buffer.from('ab'));
  assert.deepEqual(parseBytes(JSON.parse('"\\ud83d\\ude00"')), Buffer.from('\u{1F600}', 'utf8'));
  assert.deepEqual(parseBytes({ hex: 'fffe' }), Buffer.from([0xff, 0xfe]));
  assert.deepEqual(parseBytes({ hex: 'FFFE' }), Buffer.from([0xff, 0xfe]));
  for (const bad of ['"\\ud800"', '"\\udc00"', '"\\ud800a"', '"\\ud800\\ud800\\udc00"']) {
    assert.throws(() => parseBytes(JSON.parse(bad)), /lone surrogate/, bad);
  }
  for (const bad of [{ hex: 'fff' }, { hex: 'zz' }, { HEX: 'ff' }, { hex: null }]) {
    assert.throws(() => parseBytes(bad), /not a byte string/, JSON.stringify(bad));
  }
});
