'use strict';
// Component lim: seed 000's pure functions (spec.md LIM-1..LIM-18). BigInt is exact (LIM-1).
const { MAX_INT64, OpError, arg, emitBytes, int64, parseBytes, bmax, bmin, floorDiv, ceilDiv } = require('./wire');
const mutants = require('./mutants');

const KEY_MOD = 4294967291n; // 2^32 - 5 (LIM-16)
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d, 0x0b, 0x0c]); // ASCII whitespace, for key_trimmed

const limErrOk = () => 0n; // LIM-2
const limErrParam = () => 1n;

function limCfg(cap, refil, ivl, maxif) { // LIM-3
  const good = cap >= 1n && refil >= 1n && ivl >= 1n && (maxif >= 1n || mutants.active('cfg_ignores_maxif'));
  return { ok: good ? 1n : 0n, err: good ? limErrOk() : limErrParam(), cap, refil, ivl, maxif };
}

function cfgValid(c) { // LIM-4
  return c.ok === 1n && c.err === 0n && c.cap >= 1n && c.refil >= 1n && c.ivl >= 1n && (c.maxif >= 1n || mutants.active('cfg_ignores_maxif'));
}

const limBkt = (tks, last) => ({ tks, last }); // LIM-5
const limBktNew = (cap, now) => ({ // LIM-6
  tks: mutants.active('bucket_born_empty') ? 0n : cap,
  last: mutants.active('bucket_born_at_zero') ? 0n : now,
});

function limTake(b, c, now, cost) {
  const { tks, last } = b;
  const badCost = cost < 1n && !mutants.active('negative_cost_mints');
  const badTks = tks < 0n && !mutants.active('negative_tks_accepted');
  if (!cfgValid(c) || badCost || badTks) return { ok: 0n, retry: 0n, tks, last }; // LIM-7
  let steps = 0n;
  let last2 = last; // LIM-8
  if (now < last && mutants.active('step_back_rewinds_last')) last2 = now;
  if (mutants.active('step_back_trunc_div')) { // BigInt division truncates toward zero
    steps = (now - last) / c.ivl;
    last2 = last + steps * c.ivl;
  } else if (now >= last) { // LIM-9
    steps = floorDiv(now - last, c.ivl);
    if (now > last && mutants.active('steps_late')) steps = floorDiv(now - last - 1n, c.ivl);
    if (mutants.active('steps_uint32')) steps = BigInt.asUintN(32, steps);
    last2 = last + steps * c.ivl;
    if (steps >= 1n && mutants.active('refill_resets_last')) last2 = now;
  }
  let tks2 = bmin(c.cap, tks + steps * c.refil); // LIM-10
  if (steps === 0n && mutants.active('clamp_only_on_refill')) tks2 = tks;
  if (mutants.active('steps_mul_wraps')) tks2 = bmin(c.cap, BigInt.asIntN(64, tks + steps * c.refil));
  if (mutants.active('clamp_before_add')) tks2 = bmin(c.cap, tks) + steps * c.refil;
  if (mutants.active('tokens_int32')) tks2 = BigInt.asIntN(32, tks2);
  if (tks2 >= cost && !(tks2 === cost && mutants.active('cost_equal_rejects'))) { // LIM-11
    return { ok: 1n, retry: 0n, tks: tks2 - cost, last: last2 };
  }
  let retry = limRetry(c, tks2, last2, now, cost);
  if (cost > c.cap && mutants.active('cost_over_cap_retry_zero')) retry = 0n; // "never", as x/time/rate's InfDuration
  return { ok: 0n, retry: bmin(retry, MAX_INT64), tks: tks2, last: mutants.active('reject_keeps_last') ? last : last2 }; // LIM-13
}

function limRetry(c, tks2, last2, now, cost) { // LIM-12: exact ceiling
  const need = cost - tks2;
  if (mutants.active('retry_trunc_plus_one')) return floorDiv(need * c.ivl, c.refil) + 1n;
  if (mutants.active('retry_floor')) return floorDiv(need * c.ivl, c.refil);
  if (mutants.active('retry_ignores_refil')) return need * c.ivl;
  if (mutants.active('retry_float64')) return BigInt(Math.ceil(Number(need) * Number(c.ivl) / Number(c.refil)));
  if (mutants.active('retry_mul_wraps')) return ceilDiv(BigInt.asIntN(64, need * c.ivl), c.refil);
  if (mutants.active('retry_true_wait')) return last2 + ceilDiv(need, c.refil) * c.ivl - now;
  if (mutants.active('retry_assumes_cost_one')) return ceilDiv(c.ivl, c.refil); // one token's wait
  return ceilDiv(need * c.ivl, c.refil);
}

function limAcq(n, maxif) { // LIM-14
  if (mutants.active('inflight_off_by_one')) maxif += 1n;
  if (mutants.active('inflight_one_short')) maxif -= 1n;
  if ((n >= 0n || mutants.active('acq_accepts_negative')) && n + 1n <= maxif) return { ok: 1n, n: n + 1n };
  return { ok: 0n, n };
}

const limRel = (n) => (n >= 1n || mutants.active('rel_no_floor') ? n - 1n : 0n); // LIM-15

const lossyUtf8 = new TextDecoder('utf-8', { ignoreBOM: true }); // invalid bytes: U+FFFD

function limIpKey(ip) { // LIM-16: ip is a Buffer/Uint8Array, hashed byte by byte
  let h = 0n;
  if (mutants.active('key_codepoints')) ip = Array.from(lossyUtf8.decode(ip), (ch) => ch.codePointAt(0));
  if (mutants.active('key_utf8_replace')) ip = Buffer.from(lossyUtf8.decode(ip), 'utf8');
  if (mutants.active('key_latin1')) ip = Buffer.from(Buffer.from(ip).toString('latin1'), 'utf8');
  if (mutants.active('key_nul_terminated') && ip.indexOf(0) >= 0) ip = ip.subarray(0, ip.indexOf(0));
  if (mutants.active('key_lowercase')) ip = Array.from(ip, (c) => (c >= 0x41 && c <= 0x5a ? c + 32 : c));
  if (mutants.active('key_trimmed')) {
    let a = 0;
    let b = ip.length;
    while (a < b && WHITESPACE.has(ip[a])) a++;
    while (b > a && WHITESPACE.has(ip[b - 1])) b--;
    ip = ip.subarray(a, b);
  }
  if (mutants.active('ip_key_cut_256')) ip = ip.subarray(0, 256);
  for (let c of ip) {
    if (mutants.active('key_signed_bytes') && c >= 128) c -= 256; // Java's byte, C's signed char
    if (mutants.active('key_signed_bytes')) h = (((h * 131n + BigInt(c)) % KEY_MOD) + KEY_MOD) % KEY_MOD; // floorMod
    else if (mutants.active('key_hash_wraps_32')) h = BigInt.asUintN(32, h * 131n + BigInt(c)) % KEY_MOD;
    else if (mutants.active('key_hash_reduce_once')) h = BigInt.asUintN(64, h * 131n + BigInt(c));
    else h = (h * 131n + BigInt(c)) % KEY_MOD;
  }
  return h % KEY_MOD;
}

function limResp503(retry) { // LIM-17, LIM-18
  let d = bmax(retry, 0n).toString(10);
  if (mutants.active('resp_negative_retry')) d = retry.toString(10);
  if (mutants.active('resp_retry_float64')) d = BigInt(Number(bmax(retry, 0n))).toString(10);
  const status = mutants.active('resp_reason_phrase') ? 'HTTP/1.1 503 Service Temporarily Unavailable' : 'HTTP/1.1 503 Service Unavailable';
  const retryAfter = `Retry-After: ${d}`;
  const contentType = 'Content-Type: text/plain; charset=utf-8';
  let headers = [retryAfter, contentType, 'Content-Length: 12'];
  let body = 'lim rejected';
  if (mutants.active('resp_header_order')) headers = [contentType, retryAfter, 'Content-Length: 12'];
  if (mutants.active('resp_body_newline')) [headers, body] = [[retryAfter, contentType, 'Content-Length: 13'], `${body}\n`];
  if (mutants.active('resp_no_content_length')) headers = headers.slice(0, 2);
  const eol = mutants.active('resp_lf_only') ? '\n' : '\r\n';
  return Buffer.from([status, ...headers, '', body].join(eol), 'latin1');
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
