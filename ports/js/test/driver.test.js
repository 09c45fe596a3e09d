'use strict';
// The protocol driver (spec.md PROTO-1..PROTO-11) and the mutant switch, run as subprocesses
// and, for the sessions of every mutant, in process.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { spawn, spawnSync } = require('child_process');
const driver = require('../driver');
const mutants = require('../mutants');

const DRIVER = path.join(__dirname, '..', 'driver.js');
const ROOT = path.join(__dirname, '..', '..', '..');
const VECTORS = path.join(ROOT, 'conformance', 'vectors');
const MUTANTS = JSON.parse(fs.readFileSync(path.join(ROOT, 'ports', 'mutants.json'), 'utf8')).map((m) => m.name);
const HELLO = { protocol: 'limcheck-port/3', name: 'limcheck-js', version: require('../index').VERSION, components: ['lim', 'gate', 'throttle', 'throttle_faults'] };

// Time limits are a generous base times LIMCHECK_TEST_SLOWDOWN, the knob the
// Go tests read too: a healthy driver on a busy machine never counts as hung.
const WAIT_MS = 60000 * Number(process.env.LIMCHECK_TEST_SLOWDOWN || 1);

function env(mutant) {
  const e = { ...process.env };
  delete e.LIMCHECK_MUTANT;
  if (mutant !== undefined) e.LIMCHECK_MUTANT = mutant;
  return e;
}

// Numbers requests 1.. (seq) and runs them through one driver; its parsed stdout lines.
function session(reqs, mutant) {
  const input = reqs.map((r, i) => JSON.stringify({ seq: i + 1, ...r }) + '\n').join('');
  const p = spawnSync(process.execPath, [DRIVER], { input, env: env(mutant), encoding: 'utf8' });
  assert.equal(p.status, 0, p.stderr);
  const lines = p.stdout.split('\n');
  assert.equal(lines.pop(), '');
  return lines.map((l) => JSON.parse(l));
}

// One instance (inst 1) of component with config, then ops.
const on = (component, config, ...ops) => [{ op: 'open', inst: 1, component, config }, ...ops.map((o) => ({ inst: 1, ...o }))];
const ZERO_SEED = '0'.repeat(32);
const SEED = '000102030405060708090a0b0c0d0e0f'; // GATE-18's check-value seed
const gate = (cap, refil, ivl, maxif, sets, tickNanos, ways = '2', seed = ZERO_SEED) => ({ gate: { cap, refil, ivl, maxif, sets, ways, tick_nanos: tickNanos, seed } });
const adm = (ip, now) => ({ op: 'admit', ip, now });
const thr = (threshold, windowSecs, banSecs) => ({ throttle: { threshold, window_secs: windowSecs, ban_secs: banSecs } });
const take = (tks, last, cap, refil, ivl, now, cost) => ({ op: 'lim_take', tks, last, cap, refil, ivl, maxif: '1', now, cost });
const rf = (key, now) => ({ op: 'record_failure', key, now });
const keys = (n) => Array.from({ length: n }, (_, i) => `k${i}`); // k0, k1, ...

// Two instances (inst 1 and 2) of component with config side by side, each op on 1 then on 2
// (spec.md VEC-15): a port whose instances share state (PROTO-12) answers them differently.
const twin = (component, config, ...ops) => [1, 2].map((inst) => ({ op: 'open', inst, component, config }))
  .concat(ops.flatMap((o) => [{ inst: 1, ...o }, { inst: 2, ...o }]));

// For every mutant, a short session whose replies the mutant changes.
const KILLS = {
  retry_after_floor: on('gate', gate('1', '1', '10', '5', '1', '150000000'), { op: 'admit', ip: 'a', now: '0' }, { op: 'admit', ip: 'a', now: '0' }),
  step_back_rewinds_last: on('lim', undefined, take('0', '10', '1', '1', '10', '5', '1')),
  threshold_off_by_one: on('throttle', thr('1', '60', '60'), rf('k', '0')),
  success_lifts_ban: on('throttle', thr('1', '60', '60'), rf('k', '0'), { op: 'record_success', key: 'k' }, { op: 'check', key: 'k', now: '1' }),
  check_any_empty_full: on('throttle', thr('5', '60', '60'), { op: 'check_any', keys: [], now: '0' }),
  fault_fail_closed: on('throttle_faults', thr('5', '60', '60'), { op: 'set_faults', faults: [{ op: 'ban_until' }] }, { op: 'check', key: 'k', now: '0' }),
  window_inclusive: on('throttle', thr('5', '10', '60'), rf('k', '0'), { op: 'check', key: 'k', now: '10' }),
  inflight_off_by_one: on('lim', undefined, { op: 'lim_acq', n: '1', maxif: '1' }),
  gate_wrong_order: on('gate', gate('5', '1', '10', '1', '1', '1'), { op: 'admit', ip: 'a', now: '0' }, { op: 'admit', ip: 'a', now: '0' }, { op: 'bucket', ip: 'a', now: '0' }),
  key_codepoints: on('lim', undefined, { op: 'lim_ip_key', ip: 'é' }),
  refill_resets_last: on('lim', undefined, take('0', '0', '5', '1', '10', '15', '1')),
  retry_trunc_plus_one: on('lim', undefined, take('0', '0', '1', '1', '10', '0', '1')),
  clamp_only_on_refill: on('lim', undefined, take('10', '0', '3', '1', '10', '5', '1')),
  limited_keeps_inflight: on('gate', gate('1', '1', '10', '5', '1', '1'), { op: 'admit', ip: 'a', now: '0' }, { op: 'admit', ip: 'a', now: '0' }, { op: 'in_flight' }),
  ban_shortens: on('throttle', thr('1', '100', '100'), rf('k', '50'), rf('k', '0')),
  ban_until_inclusive: on('throttle', thr('1', '10', '10'), rf('k', '0'), { op: 'check', key: 'k', now: '10' }),
  ban_until_wraps: on('throttle', thr('1', '10', '10'), rf('k', '18446744073709551610')),
  record_failure_checks_ban: on('throttle', thr('1', '100', '100'), rf('k', '0'), rf('k', '1')),
  check_any_first_ban: on('throttle', thr('1', '60', '60'), rf('a', '10'), rf('b', '20'), { op: 'check_any', keys: ['a', 'b'], now: '25' }),
  purge_counts_stamps: on('throttle', thr('5', '10', '60'), rf('k', '0'), rf('k', '1'), { op: 'purge_expired', now: '100' }),
  tokens_int32: on('lim', undefined, take('2147483648', '0', '2147483648', '1', '10', '0', '1')),
  steps_mul_wraps: on('lim', undefined, take('1', '0', '10', '9223372036854775807', '1', '1', '1')),
  clamp_before_add: on('lim', undefined, take('0', '0', '1', '1', '10', '20', '1')),
  step_back_trunc_div: on('lim', undefined, take('1', '20', '1', '1', '10', '0', '1')),
  retry_float64: on('lim', undefined, take('0', '0', '1', '4', '9007199254740993', '0', '1')),
  retry_mul_wraps: on('lim', undefined, take('0', '0', '1', '1', '9223372036854775807', '0', '2')),
  retry_after_mul_wraps: on('gate', gate('1', '1', '2', '5', '1', '9223372036854775807'), { op: 'admit', ip: 'a', now: '0' }, { op: 'admit', ip: 'a', now: '0' }),
  retry_after_int32: on('gate', gate('1', '1', '4294967296', '5', '1', '1000000000'), { op: 'admit', ip: 'a', now: '0' }, { op: 'admit', ip: 'a', now: '0' }),
  ban_until_int64: on('throttle', thr('1', '10', '10'), rf('k', '9223372036854775807')),
  remaining_wraps: on('throttle', thr('1', '100', '1'), rf('k', '0'), rf('k', '0'), { op: 'check', key: 'k', now: '1' }),
  threshold_uint8: on('throttle', thr('256', '10', '10'), { op: 'check', key: 'k', now: '0' }),
  ban_secs_uint32: on('throttle', thr('1', '10', '4294967296'), rf('k', '0')),
  window_uint32: on('throttle', thr('2', '4294967296', '10'), rf('k', '0')),
  key_hash_wraps_32: on('lim', undefined, { op: 'lim_ip_key', ip: '10.0.0.1' }),
  key_hash_reduce_once: on('lim', undefined, { op: 'lim_ip_key', ip: '0:0:0:0:0:0:0:1' }),
  resp_retry_float64: on('lim', undefined, { op: 'lim_resp_503', retry: '9223372036854775807' }),
  key_utf8_replace: on('lim', undefined, { op: 'lim_ip_key', ip: { hex: 'fffe' } }),
  key_latin1: on('lim', undefined, { op: 'lim_ip_key', ip: '\u00e9' }),
  key_nul_terminated: on('lim', undefined, { op: 'lim_ip_key', ip: '\u0000a' }),
  key_lowercase: on('lim', undefined, { op: 'lim_ip_key', ip: 'A' }),
  key_trimmed: on('lim', undefined, { op: 'lim_ip_key', ip: '\n' }),
  key_hex_as_text: on('lim', undefined, { op: 'lim_ip_key', ip: { hex: 'ff' } }),
  key_cut_4: on('throttle', thr('1', '10', '10'), rf('acct:bob', '0'), { op: 'check', key: 'acct:h\u00e9', now: '0' }),
  empty_key_ignored: on('throttle', thr('1', '10', '10'), rf('', '0')),
  check_any_first_key_only: on('throttle', thr('1', '10', '10'), rf('b', '0'), { op: 'check_any', keys: ['a', 'b'], now: '0' }),
  check_any_last_key_wins: on('throttle', thr('1', '10', '10'), rf('b', '0'), { op: 'check_any', keys: ['b', 'a'], now: '0' }),
  check_any_first_allow: on('throttle', thr('1', '10', '10'), rf('b', '0'), { op: 'check_any', keys: ['a', 'b'], now: '0' }),
  check_any_drops_repeats: on('throttle', thr('2', '10', '10'), rf('a', '0'), { op: 'check_any', keys: ['a', 'a'], now: '0' }),
  check_any_max_remaining: on('throttle', thr('2', '10', '10'), rf('a', '0'), { op: 'check_any', keys: ['a', 'b'], now: '0' }),
  check_any_unavailable_first: on('throttle_faults', thr('1', '10', '10'), rf('a', '0'), { op: 'set_faults', faults: [{ op: 'count', keys: ['b'] }] }, { op: 'check_any', keys: ['a', 'b'], now: '0' }),
  window_short: on('throttle', thr('2', '10', '10'), rf('k', '0'), { op: 'check', key: 'k', now: '9' }),
  window_upper_bound: on('throttle', thr('2', '10', '10'), rf('k', '5'), { op: 'check', key: 'k', now: '0' }),
  purge_window_inclusive: on('throttle', thr('2', '10', '10'), rf('k', '0'), { op: 'purge_expired', now: '10' }),
  ban_ends_early: on('throttle', thr('1', '10', '10'), rf('k', '0'), { op: 'check', key: 'k', now: '9' }),
  purge_ban_strict: on('throttle', thr('1', '10', '10'), rf('k', '0'), { op: 'purge_expired', now: '10' }),
  steps_late: on('lim', undefined, take('0', '0', '1', '1', '10', '10', '1')),
  cost_equal_rejects: on('lim', undefined, take('1', '0', '1', '1', '10', '0', '1')),
  inflight_one_short: on('lim', undefined, { op: 'lim_acq', n: '0', maxif: '1' }),
  threshold_early: on('throttle', thr('2', '10', '10'), rf('k', '0')),
  retry_floor: on('lim', undefined, take('0', '0', '1', '3', '10', '0', '1')),
  retry_ignores_refil: on('lim', undefined, take('0', '0', '1', '2', '10', '0', '1')),
  retry_true_wait: on('lim', undefined, take('0', '0', '1', '1', '10', '5', '1')),
  reject_keeps_last: on('lim', undefined, take('0', '0', '2', '1', '10', '10', '2')),
  negative_cost_mints: on('lim', undefined, take('0', '0', '1', '1', '10', '0', '0')),
  negative_tks_accepted: on('lim', undefined, take('-1', '0', '5', '5', '10', '10', '1')),
  cfg_ignores_maxif: on('lim', undefined, { op: 'lim_cfg', cap: '1', refil: '1', ivl: '1', maxif: '0' }),
  bucket_born_empty: on('lim', undefined, { op: 'lim_bkt_new', cap: '5', now: '7' }),
  bucket_born_at_zero: on('lim', undefined, { op: 'lim_bkt_new', cap: '5', now: '7' }),
  rel_no_floor: on('lim', undefined, { op: 'lim_rel', n: '0' }),
  acq_accepts_negative: on('lim', undefined, { op: 'lim_acq', n: '-1', maxif: '1' }),
  set_bitmask: on('gate', gate('1', '1', '10', '1', '3', '1'), { op: 'admit', ip: 'a', now: '0' }),
  resp_lf_only: on('lim', undefined, { op: 'lim_resp_503', retry: '1' }),
  resp_header_order: on('lim', undefined, { op: 'lim_resp_503', retry: '1' }),
  resp_body_newline: on('lim', undefined, { op: 'lim_resp_503', retry: '1' }),
  resp_no_content_length: on('lim', undefined, { op: 'lim_resp_503', retry: '1' }),
  resp_negative_retry: on('lim', undefined, { op: 'lim_resp_503', retry: '-1' }),
  resp_reason_phrase: on('lim', undefined, { op: 'lim_resp_503', retry: '1' }),
  shed_retry_after_zero: on('gate', gate('2', '1', '10', '1', '1', '1'), { op: 'admit', ip: 'a', now: '0' }, { op: 'admit', ip: 'a', now: '0' }),
  reset_keeps_ban: on('throttle', thr('1', '10', '10'), rf('k', '0'), { op: 'reset', key: 'k' }, { op: 'check', key: 'k', now: '0' }),
  success_noop: on('throttle', thr('2', '10', '10'), rf('k', '0'), { op: 'record_success', key: 'k' }, { op: 'check', key: 'k', now: '0' }),
  purge_drops_bans: on('throttle', thr('1', '1', '100'), rf('k', '0'), { op: 'purge_expired', now: '5' }, { op: 'check', key: 'k', now: '5' }),
  stamps_dedup_same_second: on('throttle', thr('2', '10', '10'), rf('k', '0'), rf('k', '0')),
  fault_after_effect: on('throttle_faults', thr('2', '10', '10'), { op: 'set_faults', faults: [{ op: 'add_failure' }] }, rf('k', '0'), { op: 'set_faults', faults: [] }, { op: 'check', key: 'k', now: '0' }),
  ban_error_swallowed: on('throttle_faults', thr('1', '10', '10'), { op: 'set_faults', faults: [{ op: 'ban' }] }, rf('k', '0')),
  fault_fail_open: on('throttle_faults', thr('1', '10', '10'), { op: 'set_faults', faults: [{ op: 'count' }] }, { op: 'check', key: 'k', now: '0' }),
  gate_table_per_config: twin('gate', gate('1', '1', '10', '5', '1', '1'), { op: 'admit', ip: 'a', now: '0' }),
  throttle_process_store: twin('throttle', thr('2', '60', '60'), rf('k', '0')),
  purge_error_zero: on('throttle_faults', thr('1', '10', '10'), { op: 'set_faults', faults: [{ op: 'purge' }] }, { op: 'purge_expired', now: '0' }),
  threshold_uint16: on('throttle', thr('65537', '10', '10'), { op: 'check', key: 'k', now: '0' }),
  threshold_uint32: on('throttle', thr('4294967297', '10', '10'), { op: 'check', key: 'k', now: '0' }),
  sets_uint16: on('gate', gate('1', '1', '10', '1', '65537', '1'), { op: 'admit', ip: 'a', now: '0' }),
  sets_uint32: on('gate', gate('1', '1', '10', '1', '4294967297', '1'), { op: 'admit', ip: 'a', now: '0' }),
  sets_capped_4096: on('gate', gate('1', '1', '10', '1', '4097', '1'), { op: 'admit', ip: 'a', now: '0' }),
  check_any_first_16: on('throttle', thr('1', '10', '10'), rf('b', '0'), { op: 'check_any', keys: [...Array(16).fill('a'), 'b'], now: '0' }),
  check_any_first_64: on('throttle', thr('1', '10', '10'), rf('b', '0'), { op: 'check_any', keys: [...Array(64).fill('a'), 'b'], now: '0' }),
  key_cut_64: on('throttle', thr('1', '10', '10'), rf(`${'x'.repeat(64)}1`, '0'), { op: 'check', key: `${'x'.repeat(64)}2`, now: '0' }),
  ip_key_cut_256: on('lim', undefined, { op: 'lim_ip_key', ip: 'a'.repeat(257) }),
  stamps_ring_16: on('throttle', thr('17', '10', '10'), ...Array(17).fill(rf('k', '0'))),
  // The table of spec 2.0 (GATE-14..GATE-16): one set of two ways, or of one.
  evict_lru: on('gate', gate('3', '1', '100', '9', '1', '1'), adm('a', '0'), adm('a', '0'), adm('b', '1'), adm('c', '2')),
  full_set_inherits: on('gate', gate('1', '1', '1000', '9', '1', '1', '1'), adm('a', '0'), adm('b', '0')),
  forget_nonfull: on('gate', gate('2', '1', '10', '9', '1', '1', '1'), adm('a', '0'), adm('a', '0'), { op: 'bucket', ip: 'a', now: '19' }),
  evict_ties_highest: on('gate', gate('1', '1', '10', '9', '1', '1'), adm('a', '0'), adm('b', '0'), adm('c', '0')),
  full_strict: on('gate', gate('2', '1', '10', '9', '1', '1', '1'), adm('a', '0'), adm('a', '0'), { op: 'bucket', ip: 'a', now: '20' }),
  evict_stored_tks: on('gate', gate('3', '2', '100', '9', '1', '1'), adm('a', '0'), adm('a', '0'), adm('a', '0'), adm('b', '50'), adm('b', '50'), adm('c', '100')),
  // The seed (GATE-13, GATE-18): "a" (key 97) in 64 sets.
  set_unkeyed: on('gate', gate('1', '1', '10', '1', '64', '1', '1', SEED), adm('a', '0')),
  seed_halves_swapped: on('gate', gate('1', '1', '10', '1', '64', '1', '1', SEED), adm('a', '0')),
  seed_big_endian: on('gate', gate('1', '1', '10', '1', '64', '1', '1', SEED), adm('a', '0')),
  siphash_1_3: on('gate', gate('1', '1', '10', '1', '64', '1', '1'), adm('a', '0')),
  siphash_msg_4_bytes: on('gate', gate('1', '1', '10', '1', '64', '1', '1'), adm('a', '0')),
  siphash_msg_decimal: on('gate', gate('1', '1', '10', '1', '64', '1', '1'), adm('a', '0')),
  // The eviction budget (GATE-16, GATE-19): one set of one way unless said.
  evict_free: on('gate', gate('1', '1', '1000', '10', '1', '1', '1'), adm('a', '0'), adm('b', '0'), adm('c', '0')),
  budget_cost_cap: on('gate', gate('3', '1', '10', '10', '1', '1', '1'), adm('a', '0'), adm('b', '0'), adm('a', '0')),
  budget_cost_one: on('gate', gate('2', '1', '10', '10', '1', '1', '1'), adm('a', '0'), adm('a', '0'), adm('b', '0'), adm('c', '0')),
  budget_born_at_first_admit: on('gate', gate('1', '1', '5', '10', '1', '1', '1'), adm('a', '13'), adm('e', '16'), adm('b', '18')),
  budget_per_gate: on('gate', gate('1', '1', '1000', '10', '2', '1', '1'), adm('a', '0'), adm('c', '0'), adm('b', '0'), adm('h', '0')),
  refused_way_zero: on('gate', gate('1', '1', '1000', '10', '1', '1', '1'), adm('a', '0'), adm('b', '0'), adm('c', '0')),
  refused_evicts_anyway: on('gate', gate('1', '1', '1000', '10', '1', '1', '1'), adm('a', '0'), adm('b', '0'), adm('c', '0'), { op: 'bucket', ip: 'b', now: '0' }),
  refused_retry_victim: on('gate', gate('2', '2', '2', '10', '1', '1', '1'), adm('e', '13'), adm('c', '14'), adm('c', '15'), adm('a', '8')),
  // Issue 29's catalogue: limits a port sets itself, placement, eviction and forgetting read
  // loosely, what a shed and a read compute, stores that keep a ring or assume sorted stamps,
  // faults, and the driver.
  ways_capped_8: on('gate', gate('2', '1', '1000', '100', '1', '1', '9'), ...keys(9).map((k) => adm(k, '0'))),
  ways_capped_16: on('gate', gate('2', '1', '1000', '100', '1', '1', '17'), ...keys(17).map((k) => adm(k, '0'))),
  ways_uint8: on('gate', gate('2', '1', '1000', '100', '1', '1', '257'), adm('a', '0'), adm('b', '0')),
  way_tag_16: on('gate', gate('1', '1', '1000', '10', '1', '1', '4'), adm('10.0.0.1', '0'), adm('10.0.153.23', '0')), // keys equal below bit 16
  place_empty_before_full: on('gate', gate('1', '1', '10', '10', '1', '1'), adm('a', '0'), adm('b', '100')),
  full_own_way_reused: on('gate', gate('1', '1', '10', '10', '1', '1'), adm('a', '0'), adm('b', '0'), adm('b', '100')),
  evict_min_tokens: on('gate', gate('3', '1', '100', '9', '1', '1'), adm('a', '0'), adm('a', '0'), adm('b', '0'), adm('c', '0')),
  budget_cost_stored_tks: on('gate', gate('4', '1', '10', '10', '1', '1', '1'), adm('a', '0'), adm('a', '0'), adm('a', '0'), adm('a', '0'), adm('b', '20'), adm('c', '20')),
  budget_never_refills: on('gate', gate('1', '1', '1000', '10', '1', '1', '1'), adm('a', '0'), adm('b', '0'), adm('a', '1000'), adm('b', '1000')),
  budget_not_reborn: on('gate', gate('1', '1', '10', '10', '1', '1', '1'), adm('a', '0'), adm('b', '0'), adm('a', '15'), adm('b', '15'), adm('a', '20')),
  budget_charges_newcomers: on('gate', gate('1', '1', '1000', '10', '1', '1', '1'), adm('a', '0'), adm('b', '0')),
  bucket_reads_refilled: on('gate', gate('5', '1', '10', '10', '1', '1', '1'), adm('a', '0'), adm('a', '0'), { op: 'bucket', ip: 'a', now: '15' }),
  bucket_ignores_full: on('gate', gate('1', '1', '10', '10', '1', '1', '1'), adm('a', '0'), { op: 'bucket', ip: 'a', now: '1000' }),
  shed_set_zero: on('gate', gate('2', '1', '10', '1', '64', '1'), adm('a', '0'), adm('a', '0')),
  shed_after_placement: on('gate', gate('1', '1', '1000', '1', '1', '1', '1'), adm('a', '0'), adm('b', '0'), { op: 'release' }, { op: 'bucket', ip: 'a', now: '0' }),
  inflight_uint8: on('gate', gate('300', '1', '1000', '300', '1', '1', '1'), ...Array(256).fill(adm('a', '0')), { op: 'in_flight' }),
  maxif_uint16: on('gate', gate('10', '1', '1000', '65537', '1', '1'), adm('a', '0'), adm('a', '0')),
  tick_nanos_uint32: on('gate', gate('1', '1', '10', '5', '1', '4294967296'), adm('a', '0'), adm('a', '0')),
  retry_after_float64: on('gate', gate('1', '1', '9007199254740993', '5', '1', '1000000000'), adm('a', '0'), adm('a', '0')),
  retry_after_ticks_per_second: on('gate', gate('1', '1', '10', '5', '1', '300000000'), adm('a', '0'), adm('a', '0')),
  set_signed_hash: on('gate', gate('1', '1', '10', '5', '3', '1'), adm('a', '0')), // a's hash is above 2^63
  set_hash_low32: on('gate', gate('1', '1', '10', '5', '1000', '1'), adm('a', '0')),
  table_capped_1024: on('gate', gate('1', '1', '1000000', '1099511627776', '4611686018427387904', '1', '1'), ...keys(1025).map((k) => adm(k, '0')), { op: 'bucket', ip: 'k1024', now: '0' }),
  forget_by_ttl: on('gate', gate('2', '1', '10', '10', '1', '1', '1'), adm('a', '0'), adm('a', '15'), { op: 'bucket', ip: 'a', now: '15' }),
  full_on_step_back: on('gate', gate('1', '1', '10', '10', '1', '1', '1'), adm('a', '10'), adm('a', '5')),
  steps_uint32: on('lim', undefined, take('0', '0', '1', '1', '1', '4294967296', '1')),
  retry_assumes_cost_one: on('lim', undefined, take('0', '0', '3', '1', '10', '0', '3')),
  key_signed_bytes: on('lim', undefined, { op: 'lim_ip_key', ip: '\u00e9' }),
  cost_over_cap_retry_zero: on('lim', undefined, take('2', '0', '2', '1', '10', '0', '3')),
  count_uint8: on('throttle', thr('300', '1000', '10'), ...Array(256).fill(rf('k', '0'))),
  stamps_uint32: on('throttle', thr('2', '10', '10'), rf('k', '4294967301'), { op: 'check', key: 'k', now: '4294967301' }),
  stamps_ring_threshold: on('throttle', thr('2', '50', '1'), rf('k', '100'), rf('k', '100'), rf('k', '0'), { op: 'check', key: 'k', now: '101' }),
  count_assumes_sorted: on('throttle', thr('3', '50', '10'), rf('k', '100'), rf('k', '0'), { op: 'check', key: 'k', now: '60' }),
  ban_never_expires: on('throttle', thr('1', '10', '10'), rf('k', '0'), { op: 'check', key: 'k', now: '10' }),
  success_clears_every_key: on('throttle', thr('2', '100', '10'), rf('a', '0'), { op: 'record_success', key: 'b' }, { op: 'check', key: 'a', now: '0' }),
  purge_returns_remaining: on('throttle', thr('1', '10', '10'), rf('a', '0'), rf('b', '100'), rf('c', '100'), { op: 'purge_expired', now: '50' }),
  check_any_merged_count: on('throttle', thr('3', '100', '10'), rf('a', '0'), rf('b', '0'), { op: 'check_any', keys: ['a', 'b'], now: '0' }),
  record_failure_computed_until: on('throttle', thr('1', '10', '100'), rf('k', '50'), rf('k', '0')),
  fixed_window_aligned: on('throttle', thr('2', '10', '10'), rf('k', '9'), rf('k', '10')),
  faults_appended: on('throttle_faults', thr('1', '10', '10'), { op: 'set_faults', faults: [{ op: 'count' }] }, { op: 'set_faults', faults: [] }, { op: 'check', key: 'k', now: '0' }),
  purge_fault_any_rule: on('throttle_faults', thr('1', '10', '10'), { op: 'set_faults', faults: [{ op: 'purge', keys: ['k'] }] }, { op: 'purge_expired', now: '0' }),
  ban_fault_rolls_back: on('throttle_faults', thr('1', '10', '10'), { op: 'set_faults', faults: [{ op: 'ban' }] }, rf('k', '0'), { op: 'set_faults', faults: [] }, { op: 'check', key: 'k', now: '0' }),
  ban_until_fault_ignored: on('throttle_faults', thr('2', '10', '10'), { op: 'set_faults', faults: [{ op: 'ban_until' }] }, { op: 'check', key: 'k', now: '0' }),
  clear_fault_half_done: on('throttle_faults', thr('2', '10', '10'), rf('k', '0'), { op: 'set_faults', faults: [{ op: 'clear' }] }, { op: 'reset', key: 'k' }, { op: 'set_faults', faults: [] }, { op: 'check', key: 'k', now: '0' }),
  inst_by_component: twin('gate', gate('1', '1', '10', '5', '1', '1'), adm('a', '0')),
  wire_int_float64: on('lim', undefined, { op: 'lim_rel', n: '9007199254740993' }),
};

test('--list-mutants lists ports/mutants.json, and every mutant has a session here', () => {
  const p = spawnSync(process.execPath, [DRIVER, '--list-mutants'], { env: env(), encoding: 'utf8' });
  assert.equal(p.status, 0);
  assert.deepEqual(p.stdout.split('\n').filter(Boolean).sort(), [...MUTANTS].sort());
  assert.deepEqual(Object.keys(KILLS).sort(), [...MUTANTS].sort());
});

test('an unknown LIMCHECK_MUTANT exits 2 before the hello', () => {
  const p = spawnSync(process.execPath, [DRIVER], { input: '', env: env('no_such_mutant'), encoding: 'utf8' });
  assert.equal(p.status, 2);
  assert.equal(p.stdout, '');
  assert.match(p.stderr, /^unknown LIMCHECK_MUTANT "no_such_mutant"/);
});

test('hello, open, config refusal, store error, faults, close', () => {
  const r = session([
    ...on('throttle_faults', thr('1', '60', '60'), { op: 'set_faults', faults: [{ op: 'add_failure', keys: ['k'] }] }, rf('k', '0'), rf('j', '0')),
    { op: 'open', inst: 2, component: 'gate', config: gate('0', '1', '1', '1', '1', '1') },
    { op: 'in_flight', inst: 2 },
    { op: 'admit', inst: 1, ip: 'a', now: '0' },
    { op: 'check', inst: 1, key: 'k', now: '-1' },
    { op: 'close', inst: 1 },
    { op: 'check', inst: 1, key: 'k', now: '0' },
  ]);
  assert.deepEqual(r, [
    HELLO,
    { seq: 1, result: {} },
    { seq: 2, result: {} },
    { seq: 3, result: { error: 'store' } },
    { seq: 4, result: { verdict: 'banned', until: '60' } },
    { seq: 5, result: { error: 'config' } },
    { seq: 6, fault: 'OpError: instance 2 is not open' },
    { seq: 7, fault: 'OpError: throttle_faults: unknown op "admit"' },
    { seq: 8, fault: 'OpError: now: -1 out of range [0, 18446744073709551615]' },
    { seq: 9, result: {} },
    { seq: 10, fault: 'OpError: instance 1 is not open' },
  ]);
});

// The first cases of the vectors (sorted by component and ID), as open, ops, close with the
// replies the vectors expect, until at least n requests.
function vectorSession(n) {
  const reqs = [];
  const want = [];
  let inst = 0;
  for (const comp of fs.readdirSync(VECTORS).sort()) {
    const dir = path.join(VECTORS, comp);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.json')).sort()) {
      if (reqs.length >= n) return { reqs, want };
      const c = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
      inst++;
      reqs.push({ op: 'open', inst, component: comp, config: c.config });
      want.push(c.expect_open ? { error: c.expect_open } : {});
      for (const { expect, ...op } of c.ops || []) {
        reqs.push({ ...op, inst });
        want.push(expect);
      }
      reqs.push({ op: 'close', inst });
      want.push(c.expect_open ? undefined : {}); // closing a refused instance is a fault
    }
  }
  return { reqs, want };
}

test('a pipelined session: 300 requests written before a reply is read', { timeout: WAIT_MS }, async () => {
  const { reqs, want } = vectorSession(300);
  assert.ok(reqs.length >= 300);
  const p = spawn(process.execPath, [DRIVER], { env: env(), stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => p.on('exit', resolve));
  try {
    p.stdin.write(reqs.map((r, i) => JSON.stringify({ seq: i + 1, ...r }) + '\n').join(''));
    const lines = readline.createInterface({ input: p.stdout })[Symbol.asyncIterator]();
    assert.deepEqual(JSON.parse((await lines.next()).value), HELLO);
    for (let i = 0; i < reqs.length; i++) { // every reply comes while stdin is still open (PROTO-7)
      const r = JSON.parse((await lines.next()).value);
      assert.equal(r.seq, i + 1);
      if (want[i] === undefined) assert.equal(typeof r.fault, 'string');
      else assert.deepEqual(r, { seq: i + 1, result: want[i] }, JSON.stringify(reqs[i]));
    }
    p.stdin.end();
    assert.equal(await exited, 0); // PROTO-8
    assert.equal((await lines.next()).done, true);
  } finally {
    if (p.exitCode === null) p.kill();
  }
});

// The unmutated replies to every session of KILLS, from one driver (inst 2k+1 and 2k+2 for
// the k-th's 1 and 2).
const outcome = (r) => ('result' in r ? r.result : r.fault);
let baseline;
function unmutated(m) {
  if (!baseline) {
    baseline = new Map();
    const sessions = Object.values(KILLS).map((reqs, k) => reqs.map((r) => ({ ...r, inst: 2 * k + r.inst })));
    const replies = session(sessions.flat()).slice(1);
    Object.keys(KILLS).forEach((n, k) => baseline.set(n, replies.splice(0, sessions[k].length).map(outcome)));
  }
  return baseline.get(m);
}

// session, in this process: the driver's reply to each request with mutant m planted
// (mutants.plant), the code a driver process runs on each line, without a process start.
function sessionInProcess(reqs, m) {
  mutants.plant(m);
  try {
    const insts = new Map();
    return reqs.map((r, i) => JSON.parse(driver.reply(JSON.stringify({ seq: i + 1, ...r }), i + 1, insts)));
  } finally {
    mutants.plant('');
  }
}

for (const m of MUTANTS) {
  test(`mutant ${m} changes a reply`, () => {
    assert.ok(KILLS[m], `no session for ${m}`);
    const mutated = sessionInProcess(KILLS[m], m).map(outcome);
    assert.deepEqual(sessionInProcess(KILLS[m], '').map(outcome), unmutated(m), 'in process, unmutated');
    assert.notDeepEqual(mutated, unmutated(m));
  });
}

// LIMCHECK_MUTANT plants the bug in a driver process, as limcheck runs it.
for (const m of ['threshold_off_by_one', 'retry_after_floor', 'resp_lf_only']) {
  test(`LIMCHECK_MUTANT=${m} changes a reply of a driver process`, () => {
    assert.notDeepEqual(session(KILLS[m], m).slice(1).map(outcome), unmutated(m));
  });
}
