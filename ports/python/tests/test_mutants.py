"""The protocol driver (driver.py) as limcheck runs it, and the planted bugs of
ports/mutants.json: each one must change the replies of a short session."""

import json
import os
import subprocess
import sys
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PORT = os.path.dirname(HERE)
sys.path.insert(0, PORT)
import driver  # noqa: E402
from limcheck_port import mutants  # noqa: E402
from limcheck_port.lim import lim_ip_key  # noqa: E402
from limcheck_port.siphash import key_hash  # noqa: E402
DRIVER = os.path.join(PORT, "driver.py")
MUTANTS_JSON = os.path.join(PORT, "..", "mutants.json")
MAX_UINT64 = str((1 << 64) - 1)
MAX_INT64 = (1 << 63) - 1
# Every time limit here is a generous base times LIMCHECK_TEST_SLOWDOWN, the
# knob the Go tests read too: a healthy driver on a busy machine never
# counts as hung.
SLOWDOWN = float(os.environ.get("LIMCHECK_TEST_SLOWDOWN") or 1)
WAIT = 60 * SLOWDOWN

HELLO = {"protocol": "limcheck-port/3", "name": "limcheck-python", "version": "3.2.0",
         "components": ["lim", "gate", "throttle", "throttle_faults"]}


def env(mutant=None):
    # Without PYTHONUNBUFFERED too: the driver must flush by itself (PROTO-7).
    e = {k: v for k, v in os.environ.items() if k not in ("LIMCHECK_MUTANT", "PYTHONUNBUFFERED")}
    if mutant is not None:
        e["LIMCHECK_MUTANT"] = mutant
    return e


def requests(component, config, ops, twin=False):
    """open + ops + close on instance 1, each with its seq; twin: on instances 1 and 2
    opened side by side, each op on 1 then on 2 (spec.md VEC-15)."""
    insts = (1, 2) if twin else (1,)
    reqs = [{"op": "open", "inst": i, "component": component} for i in insts]
    if config is not None:
        for r in reqs:
            r["config"] = config
    reqs += [dict(op, inst=i) for op in ops for i in insts] + [{"op": "close", "inst": i} for i in insts]
    return [dict(r, seq=i + 1) for i, r in enumerate(reqs)]


def replies_of(reqs, replies, twin=False):
    """The ops' replies (their result or fault), checking the opens and closes."""
    n = 2 if twin else 1
    assert [r["seq"] for r in replies] == list(range(1, len(reqs) + 1)), replies
    assert all(r == {"seq": r["seq"], "result": {}} for r in replies[:n] + replies[-n:]), replies
    return [r.get("result", r) for r in replies[n:-n]]


def session(component, config, ops, mutant=None):
    """Runs the driver as a process on open + ops + close, with LIMCHECK_MUTANT=mutant;
    returns the ops' replies."""
    reqs = requests(component, config, ops)
    lines = "".join(json.dumps(r) + "\n" for r in reqs)
    p = subprocess.run([sys.executable, DRIVER], input=lines, capture_output=True, text=True,
                       env=env(mutant), timeout=WAIT)
    assert p.returncode == 0, (p.returncode, p.stderr)
    out = [json.loads(line) for line in p.stdout.splitlines()]
    assert out[0] == HELLO, out[0]
    return replies_of(reqs, out[1:])


def session_in_process(component, config, ops, mutant="", twin=False):
    """session, in this process: driver.answer with mutant planted (mutants.ACTIVE, which
    the driver reads from LIMCHECK_MUTANT at import), the same code a driver process runs
    on each request, without a process start per session."""
    reqs = requests(component, config, ops, twin)
    saved, mutants.ACTIVE = mutants.ACTIVE, mutant
    try:
        instances = {}
        replies = [json.loads(json.dumps({"seq": r["seq"], **driver.answer(json.loads(json.dumps(r)), instances)}))
                   for r in reqs]
    finally:
        mutants.ACTIVE = saved
    return replies_of(reqs, replies, twin)


ZERO_SEED = "0" * 32
SEED = "000102030405060708090a0b0c0d0e0f"  # GATE-18's check-value seed


def gate(cap, refil, ivl, maxif, sets, tick_nanos, ways=2, seed=ZERO_SEED):
    return {"gate": {"cap": str(cap), "refil": str(refil), "ivl": str(ivl), "maxif": str(maxif),
                     "sets": str(sets), "ways": str(ways), "tick_nanos": str(tick_nanos), "seed": seed}}


def throttle(threshold, window_secs, ban_secs):
    return {"throttle": {"threshold": str(threshold), "window_secs": str(window_secs),
                         "ban_secs": str(ban_secs)}}


def take(tks, last, now, cap=1, refil=1, ivl=10, maxif=1, cost=1):
    return {"op": "lim_take", "tks": str(tks), "last": str(last), "cap": str(cap), "refil": str(refil),
            "ivl": str(ivl), "maxif": str(maxif), "now": str(now), "cost": str(cost)}


def took(ok, retry, tks, last):
    return {"ok": str(ok), "retry": str(retry), "tks": str(tks), "last": str(last)}


def resp(d):
    return ("HTTP/1.1 503 Service Unavailable\r\nRetry-After: %d\r\n"
            "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nlim rejected" % d)


def admit(ip, now):
    return {"op": "admit", "ip": ip, "now": str(now)}


def passed(s, w=0):
    return {"verdict": "pass", "set": str(s), "way": str(w), "retry": "0", "retry_after": "0"}


def bucket(ip, now):
    return {"op": "bucket", "ip": ip, "now": str(now)}


def refused(retry, retry_after=1, s=0):
    """A budget's refusal of an eviction (GATE-19): limited, and no way."""
    return {"verdict": "limited", "set": str(s), "retry": str(retry), "retry_after": str(retry_after),
            "response": resp(retry_after)}


def held(tks, last):
    return {"touched": True, "tks": str(tks), "last": str(last)}


UNHELD = {"touched": False}


def zero_seed_set(ip, sets):
    """ip's set among sets under the zero seed (GATE-13, GATE-18), by the port's own hash."""
    return key_hash(bytes(16), lim_ip_key(ip.encode())) % sets
PASS0 = passed(0)


def rf(key, now):
    return {"op": "record_failure", "key": key, "now": str(now)}


def check(key, now):
    return {"op": "check", "key": key, "now": str(now)}


def allow(n):
    return {"verdict": "allow", "remaining": str(n)}


def banned(until):
    return {"verdict": "banned", "until": str(until)}


# name -> (component, config, [(op, the spec's result)]): the smallest session I found
# whose replies the mutant changes.
CASES = {
    "retry_after_floor": ("gate", gate(1, 1, 15, 9, 1, 100000000), [
        (admit("a", 0), PASS0),
        (admit("a", 0), {"verdict": "limited", "set": "0", "way": "0", "retry": "15", "retry_after": "2",
                         "response": resp(2)}),  # 15 ticks of 0.1 s: ceil(1.5) = 2
    ]),
    "step_back_rewinds_last": ("lim", None, [(take(0, 10, 5), took(0, 10, 0, 10))]),
    "threshold_off_by_one": ("throttle", throttle(1, 10, 10), [(rf("k", 0), banned(10))]),
    "success_lifts_ban": ("throttle", throttle(1, 10, 10), [
        (rf("k", 0), banned(10)),
        ({"op": "record_success", "key": "k"}, {}),
        (check("k", 0), banned(10)),
    ]),
    "check_any_empty_full": ("throttle", throttle(5, 10, 10), [
        ({"op": "check_any", "keys": [], "now": "0"}, allow(0)),
    ]),
    "fault_fail_closed": ("throttle_faults", throttle(1, 10, 10), [
        ({"op": "set_faults", "faults": [{"op": "ban_until"}]}, {}),
        (check("k", 0), {"verdict": "unavailable"}),
    ]),
    "window_inclusive": ("throttle", throttle(2, 10, 10), [
        (rf("k", 0), allow(1)),
        (check("k", 10), allow(2)),  # 0 + 10 > 10 is false: the stamp no longer counts
    ]),
    "inflight_off_by_one": ("lim", None, [
        ({"op": "lim_acq", "n": "1", "maxif": "1"}, {"ok": "0", "n": "1"}),
    ]),
    "gate_wrong_order": ("gate", gate(2, 1, 10, 1, 1, 1), [
        (admit("a", 0), PASS0),
        (admit("a", 0), {"verdict": "shed", "set": "0", "retry": "0", "retry_after": "1",
                         "response": resp(1)}),
        (bucket("a", 0), held(1, 0)),  # no token spent
    ]),
    "key_codepoints": ("lim", None, [
        ({"op": "lim_ip_key", "ip": "\u00e9"}, {"key": str(0xc3 * 131 + 0xa9)}),  # UTF-8 c3 a9
    ]),
    "refill_resets_last": ("lim", None, [(take(0, 0, 15), took(1, 0, 0, 10))]),
    "retry_trunc_plus_one": ("lim", None, [(take(0, 0, 0), took(0, 10, 0, 0))]),
    "clamp_only_on_refill": ("lim", None, [(take(10, 0, 0, cap=3), took(1, 0, 2, 0))]),
    "limited_keeps_inflight": ("gate", gate(1, 1, 10, 5, 1, 1), [
        (admit("a", 0), PASS0),
        (admit("a", 0), {"verdict": "limited", "set": "0", "way": "0", "retry": "10", "retry_after": "1",
                         "response": resp(1)}),
        ({"op": "in_flight"}, {"n": "1"}),
    ]),
    "ban_shortens": ("throttle", throttle(1, 10, 100), [
        (rf("k", 50), banned(150)),
        (rf("k", 0), banned(150)),  # the clock stepped back: ban(k, 100) keeps 150
    ]),
    "ban_until_inclusive": ("throttle", throttle(1, 10, 10), [
        (rf("k", 0), banned(10)),
        (check("k", 10), allow(1)),
    ]),
    "ban_until_wraps": ("throttle", throttle(1, 10, 10), [(rf("k", MAX_UINT64), banned(MAX_UINT64))]),
    "record_failure_checks_ban": ("throttle", throttle(1, 10, 10), [
        (rf("k", 0), banned(10)),
        (rf("k", 1), banned(11)),  # counted, and the ban written again: max(10, 11)
    ]),
    "check_any_first_ban": ("throttle", throttle(1, 10, 10), [
        (rf("a", 0), banned(10)),
        (rf("b", 5), banned(15)),
        ({"op": "check_any", "keys": ["a", "b"], "now": "5"}, banned(15)),
    ]),
    "purge_counts_stamps": ("throttle", throttle(3, 10, 10), [
        (rf("k", 0), allow(2)),
        (rf("k", 0), allow(1)),
        ({"op": "purge_expired", "now": "100"}, {"count": "1"}),  # one key, two stamps
    ]),
    "tokens_int32": ("lim", None, [(take(1 << 31, 0, 0, cap=1 << 31), took(1, 0, 2147483647, 0))]),
    "steps_mul_wraps": ("lim", None, [(take(1, 0, 1, cap=10, refil=MAX_INT64, ivl=1), took(1, 0, 9, 1))]),
    "clamp_before_add": ("lim", None, [(take(0, 0, 20), took(1, 0, 0, 20))]),
    "step_back_trunc_div": ("lim", None, [(take(1, 20, 0), took(1, 0, 0, 20))]),
    "retry_float64": ("lim", None, [
        (take(0, 0, 0, refil=4, ivl=(1 << 53) + 1), took(0, 2251799813685249, 0, 0)),
    ]),
    "retry_mul_wraps": ("lim", None, [(take(0, 0, 0, ivl=MAX_INT64, cost=2), took(0, MAX_INT64, 0, 0))]),
    "retry_after_mul_wraps": ("gate", gate(1, 1, 2, 5, 1, MAX_INT64), [
        (admit("a", 0), PASS0),
        (admit("a", 0), {"verdict": "limited", "set": "0", "way": "0", "retry": "2", "retry_after": "18446744074",
                         "response": resp(18446744074)}),
    ]),
    "retry_after_int32": ("gate", gate(1, 1, 1 << 32, 5, 1, 1000000000), [
        (admit("a", 0), PASS0),
        (admit("a", 0), {"verdict": "limited", "set": "0", "way": "0", "retry": "4294967296", "retry_after": "4294967296",
                         "response": resp(4294967296)}),
    ]),
    "ban_until_int64": ("throttle", throttle(1, 10, 10), [(rf("k", MAX_INT64), banned(9223372036854775817))]),
    "remaining_wraps": ("throttle", throttle(1, 100, 1), [
        (rf("k", 0), banned(1)),
        (rf("k", 0), banned(1)),
        (check("k", 1), allow(0)),
    ]),
    "threshold_uint8": ("throttle", throttle(256, 10, 10), [(check("k", 0), allow(256))]),
    "ban_secs_uint32": ("throttle", throttle(1, 10, 1 << 32), [(rf("k", 0), banned(1 << 32))]),
    "window_uint32": ("throttle", throttle(2, 1 << 32, 10), [(rf("k", 0), allow(1))]),
    "key_hash_wraps_32": ("lim", None, [({"op": "lim_ip_key", "ip": "10.0.0.1"}, {"key": "1086976027"})]),
    "key_hash_reduce_once": ("lim", None, [
        ({"op": "lim_ip_key", "ip": "0:0:0:0:0:0:0:1"}, {"key": "2269459780"}),
    ]),
    "resp_retry_float64": ("lim", None, [
        ({"op": "lim_resp_503", "retry": "9223372036854775807"}, {"response": resp(9223372036854775807)}),
    ]),
    "key_utf8_replace": ("lim", None, [({"op": "lim_ip_key", "ip": {"hex": "fffe"}}, {"key": "33659"})]),
    "key_latin1": ("lim", None, [({"op": "lim_ip_key", "ip": "\u00e9"}, {"key": "25714"})]),
    "key_nul_terminated": ("lim", None, [({"op": "lim_ip_key", "ip": "\u0000a"}, {"key": "97"})]),
    "key_lowercase": ("lim", None, [({"op": "lim_ip_key", "ip": "A"}, {"key": "65"})]),
    "key_trimmed": ("lim", None, [({"op": "lim_ip_key", "ip": "\n"}, {"key": "10"})]),
    "key_hex_as_text": ("lim", None, [({"op": "lim_ip_key", "ip": {"hex": "ff"}}, {"key": "255"})]),
    "key_cut_4": ("throttle", throttle(1, 10, 10), [
        (rf("acct:bob", 0), banned(10)),
        (check("acct:h\u00e9", 0), allow(1)),
    ]),
    "empty_key_ignored": ("throttle", throttle(1, 10, 10), [(rf("", 0), banned(10))]),
    "check_any_first_key_only": ("throttle", throttle(1, 10, 10), [
        (rf("b", 0), banned(10)),
        ({"op": "check_any", "keys": ["a", "b"], "now": "0"}, banned(10)),
    ]),
    "check_any_last_key_wins": ("throttle", throttle(1, 10, 10), [
        (rf("b", 0), banned(10)),
        ({"op": "check_any", "keys": ["b", "a"], "now": "0"}, banned(10)),
    ]),
    "check_any_first_allow": ("throttle", throttle(1, 10, 10), [
        (rf("b", 0), banned(10)),
        ({"op": "check_any", "keys": ["a", "b"], "now": "0"}, banned(10)),
    ]),
    "check_any_drops_repeats": ("throttle", throttle(2, 10, 10), [
        (rf("a", 0), allow(1)),
        ({"op": "check_any", "keys": ["a", "a"], "now": "0"}, allow(1)),
    ]),
    "check_any_max_remaining": ("throttle", throttle(2, 10, 10), [
        (rf("a", 0), allow(1)),
        ({"op": "check_any", "keys": ["a", "b"], "now": "0"}, allow(1)),
    ]),
    "check_any_unavailable_first": ("throttle_faults", throttle(1, 10, 10), [
        (rf("a", 0), banned(10)),
        ({"op": "set_faults", "faults": [{"op": "count", "keys": ["b"]}]}, {}),
        ({"op": "check_any", "keys": ["a", "b"], "now": "0"}, banned(10)),
    ]),
    "window_short": ("throttle", throttle(2, 10, 10), [(rf("k", 0), allow(1)), (check("k", 9), allow(1))]),
    "window_upper_bound": ("throttle", throttle(2, 10, 10), [
        (rf("k", 5), allow(1)),
        (check("k", 0), allow(1)),
    ]),
    "purge_window_inclusive": ("throttle", throttle(2, 10, 10), [
        (rf("k", 0), allow(1)),
        ({"op": "purge_expired", "now": "10"}, {"count": "1"}),
    ]),
    "ban_ends_early": ("throttle", throttle(1, 10, 10), [
        (rf("k", 0), banned(10)),
        (check("k", 9), banned(10)),
    ]),
    "purge_ban_strict": ("throttle", throttle(1, 10, 10), [
        (rf("k", 0), banned(10)),
        ({"op": "purge_expired", "now": "10"}, {"count": "1"}),
    ]),
    "steps_late": ("lim", None, [(take(0, 0, 10), took(1, 0, 0, 10))]),
    "cost_equal_rejects": ("lim", None, [(take(1, 0, 0), took(1, 0, 0, 0))]),
    "inflight_one_short": ("lim", None, [({"op": "lim_acq", "n": "0", "maxif": "1"}, {"ok": "1", "n": "1"})]),
    "threshold_early": ("throttle", throttle(2, 10, 10), [(rf("k", 0), allow(1))]),
    "retry_floor": ("lim", None, [(take(0, 0, 0, refil=3), took(0, 4, 0, 0))]),
    "retry_ignores_refil": ("lim", None, [(take(0, 0, 0, refil=2), took(0, 5, 0, 0))]),
    "retry_true_wait": ("lim", None, [(take(0, 0, 5), took(0, 10, 0, 0))]),
    "reject_keeps_last": ("lim", None, [(take(0, 0, 10, cap=2, cost=2), took(0, 10, 1, 10))]),
    "negative_cost_mints": ("lim", None, [(take(0, 0, 0, cost=0), took(0, 0, 0, 0))]),
    "negative_tks_accepted": ("lim", None, [(take(-1, 0, 10, cap=5, refil=5), took(0, 0, -1, 0))]),
    "cfg_ignores_maxif": ("lim", None, [
        ({"op": "lim_cfg", "cap": "1", "refil": "1", "ivl": "1", "maxif": "0"},
         {"ok": "0", "err": "1", "cap": "1", "refil": "1", "ivl": "1", "maxif": "0"}),
    ]),
    "bucket_born_empty": ("lim", None, [
        ({"op": "lim_bkt_new", "cap": "5", "now": "7"}, {"tks": "5", "last": "7"}),
    ]),
    "bucket_born_at_zero": ("lim", None, [
        ({"op": "lim_bkt_new", "cap": "5", "now": "7"}, {"tks": "5", "last": "7"}),
    ]),
    "rel_no_floor": ("lim", None, [({"op": "lim_rel", "n": "0"}, {"n": "0"})]),
    "acq_accepts_negative": ("lim", None, [
        ({"op": "lim_acq", "n": "-1", "maxif": "1"}, {"ok": "0", "n": "-1"}),
    ]),
    "set_bitmask": ("gate", gate(1, 1, 10, 1, 3, 1), [(admit("a", 0), passed(1))]),  # h & 2 = 0
    "resp_lf_only": ("lim", None, [({"op": "lim_resp_503", "retry": "1"}, {"response": resp(1)})]),
    "resp_header_order": ("lim", None, [({"op": "lim_resp_503", "retry": "1"}, {"response": resp(1)})]),
    "resp_body_newline": ("lim", None, [({"op": "lim_resp_503", "retry": "1"}, {"response": resp(1)})]),
    "resp_no_content_length": ("lim", None, [({"op": "lim_resp_503", "retry": "1"}, {"response": resp(1)})]),
    "resp_negative_retry": ("lim", None, [({"op": "lim_resp_503", "retry": "-1"}, {"response": resp(0)})]),
    "resp_reason_phrase": ("lim", None, [({"op": "lim_resp_503", "retry": "1"}, {"response": resp(1)})]),
    "shed_retry_after_zero": ("gate", gate(2, 1, 10, 1, 1, 1), [
        (admit("a", 0), PASS0),
        (admit("a", 0), {"verdict": "shed", "set": "0", "retry": "0", "retry_after": "1",
                         "response": resp(1)}),
    ]),
    "reset_keeps_ban": ("throttle", throttle(1, 10, 10), [
        (rf("k", 0), banned(10)),
        ({"op": "reset", "key": "k"}, {}),
        (check("k", 0), allow(1)),
    ]),
    "success_noop": ("throttle", throttle(2, 10, 10), [
        (rf("k", 0), allow(1)),
        ({"op": "record_success", "key": "k"}, {}),
        (check("k", 0), allow(2)),
    ]),
    "purge_drops_bans": ("throttle", throttle(1, 1, 100), [
        (rf("k", 0), banned(100)),
        ({"op": "purge_expired", "now": "5"}, {"count": "0"}),
        (check("k", 5), banned(100)),
    ]),
    "stamps_dedup_same_second": ("throttle", throttle(2, 10, 10), [
        (rf("k", 0), allow(1)),
        (rf("k", 0), banned(10)),
    ]),
    "fault_after_effect": ("throttle_faults", throttle(2, 10, 10), [
        ({"op": "set_faults", "faults": [{"op": "add_failure"}]}, {}),
        (rf("k", 0), {"error": "store"}),
        ({"op": "set_faults", "faults": []}, {}),
        (check("k", 0), allow(2)),
    ]),
    "ban_error_swallowed": ("throttle_faults", throttle(1, 10, 10), [
        ({"op": "set_faults", "faults": [{"op": "ban"}]}, {}),
        (rf("k", 0), {"error": "store"}),
    ]),
    "fault_fail_open": ("throttle_faults", throttle(1, 10, 10), [
        ({"op": "set_faults", "faults": [{"op": "count"}]}, {}),
        (check("k", 0), {"verdict": "unavailable"}),
    ]),
    # Isolation (PROTO-12): two instances side by side (TWIN), each op on both.
    "gate_table_per_config": ("gate", gate(1, 1, 10, 5, 1, 1), [(admit("a", 0), PASS0)]),
    "throttle_process_store": ("throttle", throttle(2, 60, 60), [(rf("k", 0), allow(1))]),
    "purge_error_zero": ("throttle_faults", throttle(1, 10, 10), [
        ({"op": "set_faults", "faults": [{"op": "purge"}]}, {}),
        ({"op": "purge_expired", "now": "0"}, {"error": "store"}),
    ]),
    "threshold_uint16": ("throttle", throttle(65537, 10, 10), [(check("k", 0), allow(65537))]),
    "threshold_uint32": ("throttle", throttle((1 << 32) + 1, 10, 10), [(check("k", 0), allow((1 << 32) + 1))]),
    # h = siphash(0, 97) = 9317687229460025665 for "a" (spec.md's worked example)
    "sets_uint16": ("gate", gate(1, 1, 10, 1, 65537, 1), [(admit("a", 0), passed(8949))]),
    "sets_uint32": ("gate", gate(1, 1, 10, 1, (1 << 32) + 1, 1), [(admit("a", 0), passed(2128182807))]),
    "sets_capped_4096": ("gate", gate(1, 1, 10, 1, 4097, 1), [(admit("a", 0), passed(2509))]),
    "check_any_first_16": ("throttle", throttle(1, 10, 10), [
        (rf("b", 0), banned(10)),
        ({"op": "check_any", "keys": ["a"] * 16 + ["b"], "now": "0"}, banned(10)),
    ]),
    "check_any_first_64": ("throttle", throttle(1, 10, 10), [
        (rf("b", 0), banned(10)),
        ({"op": "check_any", "keys": ["a"] * 64 + ["b"], "now": "0"}, banned(10)),
    ]),
    "key_cut_64": ("throttle", throttle(1, 10, 10), [
        (rf("x" * 64 + "1", 0), banned(10)),
        (check("x" * 64 + "2", 0), allow(1)),
    ]),
    "ip_key_cut_256": ("lim", None, [({"op": "lim_ip_key", "ip": "a" * 257}, {"key": "3485219017"})]),
    "stamps_ring_16": ("throttle", throttle(17, 10, 10), [(rf("k", 0), allow(17 - i)) for i in range(1, 17)] + [
        (rf("k", 0), banned(10)),  # the 17th failure: a ring of 16 never counts it
    ]),
    # The table of spec 2.0 (GATE-14..GATE-16): one set of two ways, or of one.
    "evict_lru": ("gate", gate(3, 1, 100, 9, 1, 1), [
        (admit("a", 0), passed(0)), (admit("a", 0), passed(0)), (admit("b", 1), passed(0, 1)),
        (admit("c", 2), passed(0, 1)),  # b has 2 tokens, a 1: b goes, not a (least recently used)
    ]),
    "full_set_inherits": ("gate", gate(1, 1, 1000, 9, 1, 1, ways=1), [
        (admit("a", 0), passed(0)), (admit("b", 0), passed(0)),  # b is born full, not a's empty bucket
    ]),
    "forget_nonfull": ("gate", gate(2, 1, 10, 9, 1, 1, ways=1), [
        (admit("a", 0), passed(0)), (admit("a", 0), passed(0)), (bucket("a", 19), held(0, 0)),
    ]),
    "evict_ties_highest": ("gate", gate(1, 1, 10, 9, 1, 1), [
        (admit("a", 0), passed(0)), (admit("b", 0), passed(0, 1)), (admit("c", 0), passed(0, 0)),
    ]),
    "full_strict": ("gate", gate(2, 1, 10, 9, 1, 1, ways=1), [
        (admit("a", 0), passed(0)), (admit("a", 0), passed(0)), (bucket("a", 20), UNHELD),
    ]),
    "evict_stored_tks": ("gate", gate(3, 2, 100, 9, 1, 1), [
        (admit("a", 0), passed(0)), (admit("a", 0), passed(0)), (admit("a", 0), passed(0)),
        (admit("b", 50), passed(0, 1)), (admit("b", 50), passed(0, 1)),
        (admit("c", 100), passed(0, 0)),  # a refills to 2 by 100, b stays at 1: a goes
    ]),
    # The seed (GATE-13, GATE-18): "a" (key 97) in 64 sets under GATE-18's check-value seed.
    "set_unkeyed": ("gate", gate(1, 1, 10, 1, 64, 1, seed=SEED), [(admit("a", 0), passed(29))]),  # not 97 mod 64
    "seed_halves_swapped": ("gate", gate(1, 1, 10, 1, 64, 1, seed=SEED), [(admit("a", 0), passed(29))]),
    "seed_big_endian": ("gate", gate(1, 1, 10, 1, 64, 1, seed=SEED), [(admit("a", 0), passed(29))]),
    "siphash_1_3": ("gate", gate(1, 1, 10, 1, 64, 1), [(admit("a", 0), passed(1))]),
    "siphash_msg_4_bytes": ("gate", gate(1, 1, 10, 1, 64, 1), [(admit("a", 0), passed(1))]),
    "siphash_msg_decimal": ("gate", gate(1, 1, 10, 1, 64, 1), [(admit("a", 0), passed(1))]),
    # The eviction budget (GATE-16, GATE-19): one set of one way unless said.
    "evict_free": ("gate", gate(1, 1, 1000, 10, 1, 1, ways=1), [  # FIND-27
        (admit("a", 0), PASS0), (admit("b", 0), PASS0), (admit("c", 0), refused(1000)),
    ]),
    "budget_cost_cap": ("gate", gate(3, 1, 10, 10, 1, 1, ways=1), [
        (admit("a", 0), PASS0), (admit("b", 0), PASS0),  # a has 2: the eviction costs 1, not 3
        (admit("a", 0), PASS0),
    ]),
    "budget_cost_one": ("gate", gate(2, 1, 10, 10, 1, 1, ways=1), [
        (admit("a", 0), PASS0), (admit("a", 0), PASS0),
        (admit("b", 0), PASS0),  # a has 0: the eviction costs 2, the whole budget
        (admit("c", 0), refused(10)),
    ]),
    "budget_born_at_first_admit": ("gate", gate(1, 1, 5, 10, 1, 1, ways=1), [
        (admit("a", 13), PASS0), (admit("e", 16), PASS0),  # the budget is born {1, 16}, not {1, 13}
        (admit("b", 18), refused(5)),
    ]),
    "budget_per_gate": ("gate", gate(1, 1, 1000, 10, 2, 1, ways=1), [  # a, c in set 1; b, h in 0
        (admit("a", 0), passed(1)), (admit("c", 0), passed(1)),
        (admit("b", 0), PASS0), (admit("h", 0), PASS0),  # set 0's own budget pays
    ]),
    "refused_way_zero": ("gate", gate(1, 1, 1000, 10, 1, 1, ways=1), [
        (admit("a", 0), PASS0), (admit("b", 0), PASS0), (admit("c", 0), refused(1000)),
    ]),
    "refused_evicts_anyway": ("gate", gate(1, 1, 1000, 10, 1, 1, ways=1), [
        (admit("a", 0), PASS0), (admit("b", 0), PASS0), (admit("c", 0), refused(1000)),
        (bucket("b", 0), held(0, 0)),
    ]),
    "refused_retry_victim": ("gate", gate(2, 2, 2, 10, 1, 1, ways=1), [
        (admit("e", 13), PASS0), (admit("c", 14), PASS0), (admit("c", 15), PASS0),
        (admit("a", 8), refused(1)),  # the budget's 1 token of 2: 1 tick; c's 0 would say 2
    ]),
    # Issue 29's catalogue: limits a port sets itself, placement, eviction and forgetting read
    # loosely, what a shed and a read compute, stores that keep a ring or assume sorted
    # stamps, faults, and the driver.
    "ways_capped_8": ("gate", gate(2, 1, 1000, 100, 1, 1, ways=9), [
        (admit("k%d" % i, 0), passed(0, i)) for i in range(9)]),
    "ways_capped_16": ("gate", gate(2, 1, 1000, 100, 1, 1, ways=17), [
        (admit("k%d" % i, 0), passed(0, i)) for i in range(17)]),
    "ways_uint8": ("gate", gate(2, 1, 1000, 100, 1, 1, ways=257), [
        (admit("a", 0), passed(0)), (admit("b", 0), passed(0, 1))]),
    # keys 1086976027 and 1374875675: equal below bit 16
    "way_tag_16": ("gate", gate(1, 1, 1000, 10, 1, 1, ways=4), [
        (admit("10.0.0.1", 0), passed(0)), (admit("10.0.153.23", 0), passed(0, 1))]),
    "place_empty_before_full": ("gate", gate(1, 1, 10, 10, 1, 1), [
        (admit("a", 0), passed(0)), (admit("b", 100), passed(0))]),  # a's full way 0, not empty 1
    "full_own_way_reused": ("gate", gate(1, 1, 10, 10, 1, 1), [
        (admit("a", 0), passed(0)), (admit("b", 0), passed(0, 1)), (admit("b", 100), passed(0))]),
    "evict_min_tokens": ("gate", gate(3, 1, 100, 9, 1, 1), [
        (admit("a", 0), passed(0)), (admit("a", 0), passed(0)), (admit("b", 0), passed(0, 1)),
        (admit("c", 0), passed(0, 1))]),  # b has 2 tokens, a 1: b goes
    "budget_cost_stored_tks": ("gate", gate(4, 1, 10, 10, 1, 1, ways=1), [
        (admit("a", 0), PASS0)] * 4 + [
        (admit("b", 20), PASS0),  # a refilled to 2: the eviction costs 2, not 4
        (admit("c", 20), PASS0)]),
    "budget_never_refills": ("gate", gate(1, 1, 1000, 10, 1, 1, ways=1), [
        (admit("a", 0), PASS0), (admit("b", 0), PASS0), (admit("a", 1000), PASS0),
        (admit("b", 1000), PASS0)]),  # the budget refilled by 1000
    "budget_not_reborn": ("gate", gate(1, 1, 10, 10, 1, 1, ways=1), [
        (admit("a", 0), PASS0), (admit("b", 0), PASS0), (admit("a", 15), PASS0),
        (admit("b", 15), PASS0),  # the budget, full at 15, is born {1, 15}
        (admit("a", 20), refused(10))]),
    "budget_charges_newcomers": ("gate", gate(1, 1, 1000, 10, 1, 1, ways=1), [
        (admit("a", 0), PASS0), (admit("b", 0), PASS0)]),
    "bucket_reads_refilled": ("gate", gate(5, 1, 10, 10, 1, 1, ways=1), [
        (admit("a", 0), PASS0), (admit("a", 0), PASS0), (bucket("a", 15), held(3, 0))]),
    "bucket_ignores_full": ("gate", gate(1, 1, 10, 10, 1, 1, ways=1), [
        (admit("a", 0), PASS0), (bucket("a", 1000), UNHELD)]),
    "shed_set_zero": ("gate", gate(2, 1, 10, 1, 64, 1), [
        (admit("a", 0), passed(1)),
        (admit("a", 0), {"verdict": "shed", "set": "1", "retry": "0", "retry_after": "1", "response": resp(1)})]),
    "shed_after_placement": ("gate", gate(1, 1, 1000, 1, 1, 1, ways=1), [
        (admit("a", 0), PASS0),
        (admit("b", 0), {"verdict": "shed", "set": "0", "retry": "0", "retry_after": "1", "response": resp(1)}),
        ({"op": "release"}, {}), (bucket("a", 0), held(0, 0))]),
    "inflight_uint8": ("gate", gate(300, 1, 1000, 300, 1, 1, ways=1), [
        (admit("a", 0), PASS0)] * 256 + [({"op": "in_flight"}, {"n": "256"})]),
    "maxif_uint16": ("gate", gate(10, 1, 1000, 65537, 1, 1), [(admit("a", 0), PASS0), (admit("a", 0), PASS0)]),
    "tick_nanos_uint32": ("gate", gate(1, 1, 10, 5, 1, 1 << 32), [
        (admit("a", 0), PASS0),
        (admit("a", 0), {"verdict": "limited", "set": "0", "way": "0", "retry": "10", "retry_after": "43",
                         "response": resp(43)})]),  # ceil(42.94967296)
    "retry_after_float64": ("gate", gate(1, 1, (1 << 53) + 1, 5, 1, 10 ** 9), [
        (admit("a", 0), PASS0),
        (admit("a", 0), {"verdict": "limited", "set": "0", "way": "0", "retry": str((1 << 53) + 1),
                         "retry_after": str((1 << 53) + 1), "response": resp((1 << 53) + 1)})]),
    "retry_after_ticks_per_second": ("gate", gate(1, 1, 10, 5, 1, 300000000), [
        (admit("a", 0), PASS0),
        (admit("a", 0), {"verdict": "limited", "set": "0", "way": "0", "retry": "10", "retry_after": "3",
                         "response": resp(3)})]),  # 3.0 s exactly
    "set_signed_hash": ("gate", gate(1, 1, 10, 5, 3, 1), [(admit("a", 0), passed(1))]),  # h >= 2^63
    "set_hash_low32": ("gate", gate(1, 1, 10, 5, 1000, 1), [(admit("a", 0), passed(665))]),  # low 32 bits: 625
    "table_capped_1024": ("gate", gate(1, 1, 10 ** 6, 1 << 40, 1 << 62, 1, ways=1), [
        (admit("10.1.%d" % i, 0), passed(zero_seed_set("10.1.%d" % i, 1 << 62))) for i in range(1025)] + [
        (bucket("10.1.1024", 0), held(0, 0))]),
    "forget_by_ttl": ("gate", gate(2, 1, 10, 10, 1, 1, ways=1), [
        (admit("a", 0), PASS0), (admit("a", 15), PASS0), (bucket("a", 15), held(1, 15))]),
    "full_on_step_back": ("gate", gate(1, 1, 10, 10, 1, 1, ways=1), [
        (admit("a", 10), PASS0),
        (admit("a", 5), {"verdict": "limited", "set": "0", "way": "0", "retry": "10", "retry_after": "1",
                         "response": resp(1)})]),
    "steps_uint32": ("lim", None, [(take(0, 0, 1 << 32, ivl=1), took(1, 0, 0, 1 << 32))]),
    "retry_assumes_cost_one": ("lim", None, [(take(0, 0, 0, cap=3, cost=3), took(0, 30, 0, 0))]),
    "key_signed_bytes": ("lim", None, [({"op": "lim_ip_key", "ip": "\u00e9"}, {"key": "25714"})]),
    "cost_over_cap_retry_zero": ("lim", None, [(take(2, 0, 0, cap=2, cost=3), took(0, 10, 2, 0))]),  # FIND-4
    "count_uint8": ("throttle", throttle(300, 1000, 10), [(rf("k", 0), allow(300 - i)) for i in range(1, 257)]),
    "stamps_uint32": ("throttle", throttle(2, 10, 10), [(rf("k", (1 << 32) + 5), allow(1)), (check("k", (1 << 32) + 5), allow(1))]),
    "stamps_ring_threshold": ("throttle", throttle(2, 50, 1), [
        (rf("k", 100), allow(1)), (rf("k", 100), banned(101)), (rf("k", 0), banned(101)),
        (check("k", 101), allow(0))]),  # both stamps 100 still count
    "count_assumes_sorted": ("throttle", throttle(3, 50, 10), [
        (rf("k", 100), allow(2)), (rf("k", 0), allow(1)), (check("k", 60), allow(2))]),
    "ban_never_expires": ("throttle", throttle(1, 10, 10), [(rf("k", 0), banned(10)), (check("k", 10), allow(1))]),
    "success_clears_every_key": ("throttle", throttle(2, 100, 10), [
        (rf("a", 0), allow(1)), ({"op": "record_success", "key": "b"}, {}), (check("a", 0), allow(1))]),
    "purge_returns_remaining": ("throttle", throttle(1, 10, 10), [
        (rf("a", 0), banned(10)), (rf("b", 100), banned(110)), (rf("c", 100), banned(110)),
        ({"op": "purge_expired", "now": "50"}, {"count": "1"})]),
    "check_any_merged_count": ("throttle", throttle(3, 100, 10), [
        (rf("a", 0), allow(2)), (rf("b", 0), allow(2)),
        ({"op": "check_any", "keys": ["a", "b"], "now": "0"}, allow(2))]),
    "record_failure_computed_until": ("throttle", throttle(1, 10, 100), [
        (rf("k", 50), banned(150)), (rf("k", 0), banned(150))]),
    "fixed_window_aligned": ("throttle", throttle(2, 10, 10), [(rf("k", 9), allow(1)), (rf("k", 10), banned(20))]),
    "faults_appended": ("throttle_faults", throttle(1, 10, 10), [
        ({"op": "set_faults", "faults": [{"op": "count"}]}, {}), ({"op": "set_faults", "faults": []}, {}),
        (check("k", 0), allow(1))]),
    "purge_fault_any_rule": ("throttle_faults", throttle(1, 10, 10), [
        ({"op": "set_faults", "faults": [{"op": "purge", "keys": ["k"]}]}, {}),
        ({"op": "purge_expired", "now": "0"}, {"count": "0"})]),
    "ban_fault_rolls_back": ("throttle_faults", throttle(1, 10, 10), [
        ({"op": "set_faults", "faults": [{"op": "ban"}]}, {}), (rf("k", 0), {"error": "store"}),
        ({"op": "set_faults", "faults": []}, {}), (check("k", 0), allow(0))]),
    "ban_until_fault_ignored": ("throttle_faults", throttle(2, 10, 10), [
        ({"op": "set_faults", "faults": [{"op": "ban_until"}]}, {}), (check("k", 0), {"verdict": "unavailable"})]),
    "clear_fault_half_done": ("throttle_faults", throttle(2, 10, 10), [
        (rf("k", 0), allow(1)), ({"op": "set_faults", "faults": [{"op": "clear"}]}, {}),
        ({"op": "reset", "key": "k"}, {"error": "store"}), ({"op": "set_faults", "faults": []}, {}),
        (check("k", 0), allow(1))]),
    "inst_by_component": ("gate", gate(1, 1, 10, 5, 1, 1), [(admit("a", 0), PASS0)]),  # TWIN
    "wire_int_float64": ("lim", None, [({"op": "lim_rel", "n": str((1 << 53) + 1)}, {"n": str(1 << 53)})]),
}


# The mutants whose session runs on two instances of its config side by side (VEC-15):
# each op's result is expected of both.
TWIN = {"gate_table_per_config", "throttle_process_store", "inst_by_component"}


def mutant_names():
    with open(MUTANTS_JSON, encoding="utf-8") as f:
        return [m["name"] for m in json.load(f)]


class Mutants(unittest.TestCase):
    def test_every_mutant_has_a_case(self):
        self.assertEqual(sorted(CASES), sorted(mutant_names()))

    def test_each_mutant_changes_its_session(self):
        for name, (component, config, steps) in CASES.items():
            with self.subTest(mutant=name):
                twin = name in TWIN
                ops = [op for op, _ in steps]
                want = [result for _, result in steps for _ in range(2 if twin else 1)]
                self.assertEqual(session_in_process(component, config, ops, twin=twin), want, "the unmutated port")
                self.assertNotEqual(session_in_process(component, config, ops, mutant=name, twin=twin), want)

    def test_limcheck_mutant_plants_the_bug_in_a_driver_process(self):
        for name in ("threshold_off_by_one", "retry_after_floor", "resp_lf_only"):
            with self.subTest(mutant=name):
                component, config, steps = CASES[name]
                ops = [op for op, _ in steps]
                want = [result for _, result in steps]
                self.assertEqual(session(component, config, ops), want, "the unmutated port")
                self.assertNotEqual(session(component, config, ops, mutant=name), want)

    def test_list_mutants_agrees_with_mutants_json(self):
        p = subprocess.run([sys.executable, DRIVER, "--list-mutants"], capture_output=True,
                           text=True, env=env(), timeout=WAIT)
        self.assertEqual((p.returncode, p.stdout.splitlines()), (0, mutant_names()))

    def test_unknown_mutant_exits_2_before_the_hello(self):
        p = subprocess.run([sys.executable, DRIVER], input="", capture_output=True, text=True,
                           env=env("no_such_mutant"), timeout=WAIT)
        self.assertEqual((p.returncode, p.stdout), (2, ""))
        self.assertIn("unknown LIMCHECK_MUTANT", p.stderr)

    def test_empty_mutant_is_none(self):
        self.assertEqual(session("lim", None, [{"op": "lim_rel", "n": "0"}], mutant=""), [{"n": "0"}])


class Driver(unittest.TestCase):
    def setUp(self):
        self.p = subprocess.Popen([sys.executable, DRIVER], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
        self.addCleanup(self.p.stderr.close)
        self.addCleanup(self.p.stdout.close)
        self.addCleanup(self.p.kill)  # a no-op once it has exited
        self.timer = threading.Timer(WAIT, self.p.kill)  # PROTO-9: no reply fails, never hangs
        self.timer.start()
        self.addCleanup(self.timer.cancel)
        self.seq = 0

    def send(self, req):
        self.seq += 1
        self.p.stdin.write((json.dumps(dict(req, seq=self.seq)) + "\n").encode())

    def send_all(self, *reqs):
        for r in reqs:
            self.send(r)
        self.p.stdin.flush()

    def recv(self):
        line = self.p.stdout.readline()
        if not line.endswith(b"\n"):
            self.fail("no reply; the driver's stderr: %r" % self.p.stderr.read())
        return json.loads(line)

    def finish(self):
        self.p.stdin.close()
        self.assertEqual(self.p.stdout.read(), b"")
        self.assertEqual(self.p.wait(timeout=WAIT), 0)  # PROTO-8

    def test_lockstep_then_pipelined_300(self):
        self.assertEqual(self.recv(), HELLO)  # PROTO-2: before any request
        # Lockstep: each reply must come before the next request is written (no read-ahead).
        self.send({"op": "open", "inst": 3, "component": "gate", "config": gate(2, 1, 10, 2, 64, 100000000)})
        self.p.stdin.flush()
        self.assertEqual(self.recv(), {"seq": 1, "result": {}})
        # Pipelined: 300 requests written before any reply is read (PROTO-7).
        reqs = [({"op": "admit", "ip": "a", "now": str(i), "x-unknown": [i]} if i % 2 == 0
                 else {"op": "release"}) for i in range(298)]
        reqs.append({"op": "in_flight"})
        reqs.append({"op": "close"})
        writer = threading.Thread(target=self.send_all, args=[dict(r, inst=3) for r in reqs])
        writer.start()  # a thread, as limcheck does, so that small pipes cannot deadlock the test
        replies = [self.recv() for _ in reqs]
        writer.join()
        self.assertEqual([r["seq"] for r in replies], list(range(2, 302)))
        self.assertTrue(all(set(r) == {"seq", "result"} for r in replies), replies)
        self.assertEqual(replies[0]["result"], {"verdict": "pass", "set": "1", "way": "0", "retry": "0",
                                                "retry_after": "0"})
        self.assertEqual(replies[-2]["result"], {"n": "0"})
        self.assertEqual(replies[-1]["result"], {})
        self.finish()

    def test_faults_and_config_errors(self):
        self.recv()
        self.send({"op": "open", "inst": 0, "component": "throttle", "config": throttle(0, 1, 1)})
        self.send({"op": "check", "inst": 0, "key": "k", "now": "0"})  # its open was refused
        self.send({"op": "open", "inst": 1, "component": "lim"})
        self.send({"op": "lim_rel", "inst": 1, "n": 0})  # a JSON number: malformed (VEC-6)
        self.send({"op": "lim_fly", "inst": 1})
        self.send({"op": "lim_ip_key", "inst": 1, "ip": {"hex": "ff00"}})
        self.send({"op": "open", "inst": 2, "component": "throttle_faults", "config": throttle(1, 1, 1)})
        self.send({"op": "set_faults", "inst": 2, "faults": [{"op": "add_failure", "keys": ["k"]}]})
        self.send({"op": "record_failure", "inst": 2, "key": "k", "now": "0"})
        self.send({"op": "close", "inst": 1})
        self.send({"op": "lim_rel", "inst": 1, "n": "0"})
        self.p.stdin.flush()
        got = [self.recv() for _ in range(self.seq)]
        self.assertEqual([r["seq"] for r in got], list(range(1, self.seq + 1)))
        self.assertEqual(got[0], {"seq": 1, "result": {"error": "config"}})
        self.assertIn("fault", got[1])
        self.assertEqual(got[2], {"seq": 3, "result": {}})
        self.assertTrue(got[3]["fault"].startswith("OpError: "), got[3])
        self.assertTrue(got[4]["fault"].startswith("OpError: "), got[4])
        self.assertEqual(got[5], {"seq": 6, "result": {"key": str(255 * 131)}})
        self.assertEqual(got[8], {"seq": 9, "result": {"error": "store"}})
        self.assertEqual(got[9], {"seq": 10, "result": {}})
        self.assertIn("fault", got[10])
        self.finish()


if __name__ == "__main__":
    unittest.main()
