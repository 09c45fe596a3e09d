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
)

ACTIVE = os.environ.get("LIMCHECK_MUTANT", "")


def known():
    """False when LIMCHECK_MUTANT names no mutant of NAMES."""
    return ACTIVE == "" or ACTIVE in NAMES


def active(name):
    assert name in NAMES, name  # a misspelt bug site would never fire
    return ACTIVE == name
