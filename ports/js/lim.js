'use strict';
// Component lim: seed 000's pure functions (spec.md LIM-1..LIM-18). BigInt is exact (LIM-1).
const { MAX_INT64, OpError, arg, emitBytes, int64, parseBytes, bmax, bmin, floorDiv, ceilDiv } = require('./wire');
const mutants = require('./mutants');

const KEY_MOD = 4294967291n; // 2^32 - 5 (LIM-16)

const limErrOk = () => 0n; // LIM-2
const limErrParam = () => 1n;

function limCfg(cap, refil, ivl, maxif) { // LIM-3
  const good = cap >= 1n && refil >= 1n && ivl >= 1n && maxif >= 1n;
  return { ok: good ? 1n : 0n, err: good ? limErrOk() : limErrParam(), cap, refil, ivl, maxif };
}

function cfgValid(c) { // LIM-4
  return c.ok === 1n && c.err === 0n && c.cap >= 1n && c.refil >= 1n && c.ivl >= 1n && c.maxif >= 1n;
}

const limBkt = (tks, last) => ({ tks, last }); // LIM-5
const limBktNew = (cap, now) => ({ tks: cap, last: now }); // LIM-6

function limTake(b, c, now, cost) {
  const { tks, last } = b;
  if (!cfgValid(c) || cost < 1n || tks < 0n) return { ok: 0n, retry: 0n, tks, last }; // LIM-7
  let steps = 0n;
  let last2 = last; // LIM-8
  if (now < last && mutants.active('step_back_rewinds_last')) last2 = now;
  if (now >= last) { // LIM-9
    steps = floorDiv(now - last, c.ivl);
    last2 = last + steps * c.ivl;
    if (steps >= 1n && mutants.active('refill_resets_last')) last2 = now;
  }
  let tks2 = bmin(c.cap, tks + steps * c.refil); // LIM-10
  if (steps === 0n && mutants.active('clamp_only_on_refill')) tks2 = tks;
  if (tks2 >= cost) return { ok: 1n, retry: 0n, tks: tks2 - cost, last: last2 }; // LIM-11
  let retry = ceilDiv((cost - tks2) * c.ivl, c.refil); // LIM-12: exact ceiling
  if (mutants.active('retry_trunc_plus_one')) retry = floorDiv((cost - tks2) * c.ivl, c.refil) + 1n;
  return { ok: 0n, retry: bmin(retry, MAX_INT64), tks: tks2, last: last2 }; // LIM-13
}

function limAcq(n, maxif) { // LIM-14
  if (mutants.active('inflight_off_by_one')) maxif += 1n;
  if (n >= 0n && n + 1n <= maxif) return { ok: 1n, n: n + 1n };
  return { ok: 0n, n };
}

const limRel = (n) => (n >= 1n ? n - 1n : 0n); // LIM-15

const lossyUtf8 = new TextDecoder('utf-8', { ignoreBOM: true }); // invalid bytes: U+FFFD

function limIpKey(ip) { // LIM-16: ip is a Buffer/Uint8Array, hashed byte by byte
  let h = 0n;
  if (mutants.active('key_codepoints')) ip = Array.from(lossyUtf8.decode(ip), (ch) => ch.codePointAt(0));
  for (const c of ip) h = (h * 131n + BigInt(c)) % KEY_MOD;
  return h;
}

function limResp503(retry) { // LIM-17, LIM-18
  const d = bmax(retry, 0n).toString(10);
  return Buffer.from(
    'HTTP/1.1 503 Service Unavailable\r\n' +
    `Retry-After: ${d}\r\n` +
    'Content-Type: text/plain; charset=utf-8\r\n' +
    'Content-Length: 12\r\n' +
    '\r\n' +
    'lim rejected', 'latin1');
}

const str = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v.toString()]));

// The lim component as a vector subject: no config, no state.
class Lim {
  do(op) {
    const i = (k) => int64(arg(op, k), k);
    switch (op.op) {
      case 'lim_cfg': return str(limCfg(i('cap'), i('refil'), i('ivl'), i('maxif')));
      case 'lim_bkt_new': return str(limBktNew(i('cap'), i('now')));
      case 'lim_take': {
        // The op carries the four parameters; the config is lim_cfg's.
        const c = limCfg(i('cap'), i('refil'), i('ivl'), i('maxif'));
        return str(limTake(limBkt(i('tks'), i('last')), c, i('now'), i('cost')));
      }
      case 'lim_acq': return str(limAcq(i('n'), i('maxif')));
      case 'lim_rel': return { n: limRel(i('n')).toString() };
      case 'lim_ip_key': return { key: limIpKey(parseBytes(arg(op, 'ip'), 'ip')).toString() };
      case 'lim_resp_503': return { response: emitBytes(limResp503(i('retry'))) };
      default: throw new OpError(`lim: unknown op ${JSON.stringify(op.op)}`);
    }
  }
}

function openLim(config) {
  if (config !== undefined && config !== null) throw new OpError('lim takes no config (VEC-9)');
  return new Lim();
}

module.exports = {
  KEY_MOD, limErrOk, limErrParam, limCfg, cfgValid, limBkt, limBktNew, limTake, limAcq, limRel,
  limIpKey, limResp503, Lim, openLim,
};
