'use strict';
// Hand-checked examples of spec.md: the worked example and some findings.
const test = require('node:test');
const assert = require('node:assert/strict');
const { openComponent, wire } = require('../index');
const { limBkt, limCfg, limIpKey, limResp503, limTake } = require('../lim');
const { Gate } = require('../gate');
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

test('FIND-14: an aimed collision leaves its victim unaffected', () => {
  const g = new Gate(15n, 1n, 1000n, 1000n, 4096n, 2n, 1000000n);
  let passed = 0;
  for (let now = 0n; now < 15n; now++) {
    for (const a of ['198.51.31.69', '198.51.41.115', '198.51.65.104']) g.admit(B(a), now);
    if (g.admit(B('192.0.2.10'), now).verdict === 'pass') passed++;
  }
  assert.equal(passed, 15);
});

test('dispatcher takes vector ops', () => {
  const s = openComponent('gate', { gate: { cap: '2', refil: '1', ivl: '10', maxif: '2', sets: '64', ways: '4', tick_nanos: '100000000' } });
  assert.deepEqual(s.do({ op: 'admit', ip: 'a', now: '0' }), { verdict: 'pass', set: '33', way: '0', retry: '0', retry_after: '0' });
  assert.deepEqual(s.do({ op: 'bucket', ip: 'b', now: '0' }), { touched: false });
  assert.deepEqual(s.do({ op: 'bucket', ip: 'a', now: '0' }), { touched: true, tks: '1', last: '0' });
  assert.throws(() => new Gate(2n, 1n, 10n, 2n, 0n, 1n, 1n), wire.ConfigError);
  assert.throws(() => new Gate(2n, 1n, 10n, 2n, 1n, 0n, 1n), wire.ConfigError);
  assert.deepEqual(openComponent('lim').do({ op: 'lim_ip_key', ip: { hex: '0061' } }), { key: '97' });
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
