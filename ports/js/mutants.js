'use strict';
// Planted bugs for checking the checker: LIMCHECK_MUTANT=<name> turns one on (read once,
// at load). The names and their meaning are ports/mutants.json's; the Python port plants
// the same ones. Without the variable (or with it empty) the port is exactly as spec.md says.
const NAMES = Object.freeze([
  'retry_after_floor', 'step_back_rewinds_last', 'threshold_off_by_one', 'success_lifts_ban',
  'check_any_empty_full', 'fault_fail_closed', 'window_inclusive', 'inflight_off_by_one',
  'gate_wrong_order', 'key_codepoints', 'refill_resets_last', 'retry_trunc_plus_one',
  'clamp_only_on_refill', 'limited_keeps_inflight', 'ban_shortens', 'ban_until_inclusive',
  'ban_until_wraps', 'record_failure_checks_ban', 'check_any_first_ban', 'purge_counts_stamps',
  'tokens_int32', 'steps_mul_wraps', 'clamp_before_add', 'step_back_trunc_div', 'retry_float64',
  'retry_mul_wraps', 'retry_after_mul_wraps', 'retry_after_int32', 'ban_until_int64',
  'remaining_wraps', 'threshold_uint8', 'ban_secs_uint32', 'window_uint32', 'key_hash_wraps_32',
  'key_hash_reduce_once', 'resp_retry_float64', 'key_utf8_replace', 'key_latin1',
  'key_nul_terminated', 'key_lowercase', 'key_trimmed', 'key_hex_as_text', 'key_cut_4',
  'empty_key_ignored', 'check_any_first_key_only', 'check_any_last_key_wins',
  'check_any_first_allow', 'check_any_drops_repeats', 'check_any_max_remaining',
  'check_any_unavailable_first', 'window_short', 'window_upper_bound', 'purge_window_inclusive',
  'ban_ends_early', 'purge_ban_strict', 'steps_late', 'cost_equal_rejects', 'inflight_one_short',
  'threshold_early', 'retry_floor', 'retry_ignores_refil', 'retry_true_wait', 'reject_keeps_last',
  'negative_cost_mints', 'negative_tks_accepted', 'cfg_ignores_maxif', 'bucket_born_empty',
  'bucket_born_at_zero', 'rel_no_floor', 'acq_accepts_negative', 'set_bitmask', 'resp_lf_only',
  'resp_header_order', 'resp_body_newline', 'resp_no_content_length', 'resp_negative_retry',
  'resp_reason_phrase', 'shed_retry_after_zero', 'reset_keeps_ban', 'success_noop',
  'purge_drops_bans', 'stamps_dedup_same_second', 'fault_after_effect', 'ban_error_swallowed',
  'fault_fail_open', 'purge_error_zero', 'gate_table_per_config', 'throttle_process_store',
  'threshold_uint16', 'threshold_uint32', 'sets_uint16',
  'sets_uint32', 'sets_capped_4096', 'check_any_first_16', 'check_any_first_64', 'key_cut_64',
  'ip_key_cut_256', 'stamps_ring_16', 'evict_lru', 'full_set_inherits', 'forget_nonfull',
  'evict_ties_highest', 'full_strict', 'evict_stored_tks', 'set_unkeyed', 'seed_halves_swapped',
  'seed_big_endian', 'siphash_1_3', 'siphash_msg_4_bytes', 'siphash_msg_decimal', 'evict_free',
  'budget_cost_cap', 'budget_cost_one', 'budget_born_at_first_admit', 'budget_per_gate', 'refused_way_zero', 'refused_evicts_anyway',
  'refused_retry_victim', 'ways_capped_8', 'ways_capped_16', 'ways_uint8', 'way_tag_16',
  'place_empty_before_full', 'full_own_way_reused', 'evict_min_tokens', 'budget_cost_stored_tks',
  'budget_never_refills', 'budget_not_reborn', 'budget_charges_newcomers', 'bucket_reads_refilled',
  'bucket_ignores_full', 'shed_set_zero', 'shed_after_placement', 'inflight_uint8', 'maxif_uint16',
  'tick_nanos_uint32', 'retry_after_float64', 'retry_after_ticks_per_second', 'set_signed_hash',
  'set_hash_low32', 'table_capped_1024', 'forget_by_ttl', 'full_on_step_back', 'steps_uint32',
  'retry_assumes_cost_one', 'key_signed_bytes', 'cost_over_cap_retry_zero', 'count_uint8',
  'stamps_uint32', 'stamps_ring_threshold', 'count_assumes_sorted', 'ban_never_expires',
  'success_clears_every_key', 'purge_returns_remaining', 'check_any_merged_count',
  'record_failure_computed_until', 'fixed_window_aligned', 'faults_appended',
  'purge_fault_any_rule', 'ban_fault_rolls_back',
  'ban_until_fault_ignored', 'clear_fault_half_done', 'inst_by_component', 'wire_int_float64',
 
]);

const LISTED = new Set(NAMES);
const name = process.env.LIMCHECK_MUTANT || '';
const known = name === '' || LISTED.has(name);
let planted = name;

// Whether the bug `n` is planted; `n` must be a listed name (a typo at a call site throws).
function active(n) {
  if (!LISTED.has(n)) throw new Error(`mutants.active: unlisted mutant ${JSON.stringify(n)}`);
  return n === planted;
}

// Plants the bug `n` ('' for none) in this process instead, for the port's own tests, which
// check every mutant's session without a driver process each.
function plant(n) {
  if (n !== '' && !LISTED.has(n)) throw new Error(`mutants.plant: unlisted mutant ${JSON.stringify(n)}`);
  planted = n;
}

module.exports = { NAMES, name, known, active, plant };
