"""Planted bugs, for checking that limcheck catches them (ports/mutants.json describes each).

LIMCHECK_MUTANT=<name> in the environment plants that one bug; it is read once, at import.
Without it the port is exactly spec.md's. A bug site reads `if mutants.active("name"):`."""

import os

NAMES = (
    "retry_after_floor",
    "step_back_rewinds_last",
    "threshold_off_by_one",
    "success_lifts_ban",
    "check_any_empty_full",
    "fault_fail_closed",
    "window_inclusive",
    "inflight_off_by_one",
    "gate_wrong_order",
    "key_codepoints",
    "refill_resets_last",
    "retry_trunc_plus_one",
    "clamp_only_on_refill",
    "limited_keeps_inflight",
    "ban_shortens",
    "ban_until_inclusive",
    "ban_until_wraps",
    "record_failure_checks_ban",
    "check_any_first_ban",
    "purge_counts_stamps",
    "tokens_int32",
    "steps_mul_wraps",
    "clamp_before_add",
    "step_back_trunc_div",
    "retry_float64",
    "retry_mul_wraps",
    "retry_after_mul_wraps",
    "retry_after_int32",
    "ban_until_int64",
    "remaining_wraps",
    "threshold_uint8",
    "ban_secs_uint32",
    "window_uint32",
    "key_hash_wraps_32",
    "key_hash_reduce_once",
    "resp_retry_float64",
    "key_utf8_replace",
    "key_latin1",
    "key_nul_terminated",
    "key_lowercase",
    "key_trimmed",
    "key_hex_as_text",
    "key_cut_4",
    "empty_key_ignored",
    "check_any_first_key_only",
    "check_any_last_key_wins",
    "check_any_first_allow",
    "check_any_drops_repeats",
    "check_any_max_remaining",
    "check_any_unavailable_first",
    "window_short",
    "window_upper_bound",
    "purge_window_inclusive",
    "ban_ends_early",
    "purge_ban_strict",
    "steps_late",
    "cost_equal_rejects",
    "inflight_one_short",
    "threshold_early",
    "retry_floor",
    "retry_ignores_refil",
    "retry_true_wait",
    "reject_keeps_last",
    "negative_cost_mints",
    "negative_tks_accepted",
    "cfg_ignores_maxif",
    "bucket_born_empty",
    "bucket_born_at_zero",
    "rel_no_floor",
    "acq_accepts_negative",
    "slot_bitmask",
    "resp_lf_only",
    "resp_header_order",
    "resp_body_newline",
    "resp_no_content_length",
    "resp_negative_retry",
    "resp_reason_phrase",
    "shed_retry_after_zero",
    "reset_keeps_ban",
    "success_noop",
    "purge_drops_bans",
    "stamps_dedup_same_second",
    "fault_after_effect",
    "ban_error_swallowed",
    "fault_fail_open",
    "purge_error_zero",
    "gate_table_per_config",
    "throttle_process_store",
)

ACTIVE = os.environ.get("LIMCHECK_MUTANT", "")


def known():
    """False when LIMCHECK_MUTANT names no mutant of NAMES."""
    return ACTIVE == "" or ACTIVE in NAMES


def active(name):
    assert name in NAMES, name  # a misspelt bug site would never fire
    return ACTIVE == name
