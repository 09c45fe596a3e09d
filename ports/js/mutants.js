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
]);

const LISTED = new Set(NAMES);
const name = process.env.LIMCHECK_MUTANT || '';
const known = name === '' || LISTED.has(name);

// Whether the bug `n` is planted; `n` must be a listed name (a typo at a call site throws).
function active(n) {
  if (!LISTED.has(n)) throw new Error(`mutants.active: unlisted mutant ${JSON.stringify(n)}`);
  return n === name;
}

module.exports = { NAMES, name, known, active };
