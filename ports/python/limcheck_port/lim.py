"""Component lim: seed 000's pure functions (spec.md LIM-1..LIM-18).

Python ints are unbounded, so every intermediate is exact (LIM-1)."""

import math

from . import mutants
from .wire import MAX_INT64, OpError, arg, emit_bytes, int64, parse_bytes

KEY_MOD = 4294967291  # 2^32 - 5 (LIM-16)
WHITESPACE = b" \t\n\r\x0b\x0c"  # ASCII whitespace, for the key_trimmed mutant


def wrap(x, bits):
    """x in a signed two's-complement integer of that many bits (the narrow-type mutants)."""
    half = 1 << (bits - 1)
    return (x + half) % (2 * half) - half


def ceil_div(a, b):  # b > 0
    return -(-a // b)


def lim_err_ok():  # LIM-2
    return 0


def lim_err_param():  # LIM-2
    return 1


def lim_cfg(cap, refil, ivl, maxif):  # LIM-3
    good = cap >= 1 and refil >= 1 and ivl >= 1 and (maxif >= 1 or mutants.active("cfg_ignores_maxif"))
    return {"ok": 1 if good else 0, "err": lim_err_ok() if good else lim_err_param(),
            "cap": cap, "refil": refil, "ivl": ivl, "maxif": maxif}


def cfg_valid(c):  # LIM-4
    return (c["ok"] == 1 and c["err"] == 0 and c["cap"] >= 1 and c["refil"] >= 1
            and c["ivl"] >= 1 and (c["maxif"] >= 1 or mutants.active("cfg_ignores_maxif")))


def lim_bkt(tks, last):  # LIM-5
    return {"tks": tks, "last": last}


def lim_bkt_new(cap, now):  # LIM-6
    return {"tks": 0 if mutants.active("bucket_born_empty") else cap,
            "last": 0 if mutants.active("bucket_born_at_zero") else now}


def lim_take(b, c, now, cost):
    tks, last = b["tks"], b["last"]
    bad_cost = cost < 1 and not mutants.active("negative_cost_mints")
    bad_tks = tks < 0 and not mutants.active("negative_tks_accepted")
    if not cfg_valid(c) or bad_cost or bad_tks:  # LIM-7
        return {"ok": 0, "retry": 0, "tks": tks, "last": last}
    if mutants.active("step_back_trunc_div"):
        d = now - last
        steps = d // c["ivl"] if d >= 0 else -(-d // c["ivl"])  # truncated toward zero
        last2 = last + steps * c["ivl"]
    elif now < last:  # LIM-8
        steps, last2 = 0, last
        if mutants.active("step_back_rewinds_last"):
            last2 = now
    else:  # LIM-9
        steps = (now - last) // c["ivl"]
        if mutants.active("steps_late") and now > last:
            steps = (now - last - 1) // c["ivl"]
        if mutants.active("steps_uint32"):
            steps %= 1 << 32
        last2 = last + steps * c["ivl"]
        if mutants.active("refill_resets_last") and steps >= 1:
            last2 = now
    tks2 = min(c["cap"], tks + steps * c["refil"])  # LIM-10
    if mutants.active("clamp_only_on_refill") and steps == 0:
        tks2 = tks
    if mutants.active("steps_mul_wraps"):
        tks2 = min(c["cap"], wrap(tks + steps * c["refil"], 64))
    if mutants.active("clamp_before_add"):
        tks2 = min(c["cap"], tks) + steps * c["refil"]
    if mutants.active("tokens_int32"):
        tks2 = wrap(tks2, 32)
    if tks2 >= cost and not (mutants.active("cost_equal_rejects") and tks2 == cost):  # LIM-11
        return {"ok": 1, "retry": 0, "tks": tks2 - cost, "last": last2}
    retry = _retry(c, tks2, last2, now, cost)
    if mutants.active("cost_over_cap_retry_zero") and cost > c["cap"]:
        retry = 0  # "never", as x/time/rate's InfDuration
    return {"ok": 0, "retry": min(retry, MAX_INT64),  # LIM-13
            "tks": tks2, "last": last if mutants.active("reject_keeps_last") else last2}


def _retry(c, tks2, last2, now, cost):  # LIM-12: exact ceiling
    need, ivl, refil = cost - tks2, c["ivl"], c["refil"]
    if mutants.active("retry_trunc_plus_one"):
        return need * ivl // refil + 1
    if mutants.active("retry_floor"):
        return need * ivl // refil
    if mutants.active("retry_ignores_refil"):
        return need * ivl
    if mutants.active("retry_float64"):
        return math.ceil(float(need) * float(ivl) / float(refil))
    if mutants.active("retry_mul_wraps"):
        return ceil_div(wrap(need * ivl, 64), refil)
    if mutants.active("retry_true_wait"):
        return last2 + ceil_div(need, refil) * ivl - now
    if mutants.active("retry_assumes_cost_one"):
        return ceil_div(ivl, refil)  # one token's wait
    return ceil_div(need * ivl, refil)


def lim_acq(n, maxif):  # LIM-14
    if mutants.active("inflight_off_by_one"):
        maxif += 1
    if mutants.active("inflight_one_short"):
        maxif -= 1
    if (n >= 0 or mutants.active("acq_accepts_negative")) and n + 1 <= maxif:
        return {"ok": 1, "n": n + 1}
    return {"ok": 0, "n": n}


def lim_rel(n):  # LIM-15
    return n - 1 if n >= 1 or mutants.active("rel_no_floor") else 0


def lim_ip_key(ip):  # LIM-16: ip is bytes
    h = 0
    if mutants.active("key_codepoints"):
        ip = [ord(ch) for ch in ip.decode("utf-8", "replace")]
    if mutants.active("key_utf8_replace"):
        ip = ip.decode("utf-8", "replace").encode("utf-8")
    if mutants.active("key_latin1"):
        ip = ip.decode("latin-1").encode("utf-8")
    if mutants.active("key_nul_terminated"):
        ip = ip.split(b"\0", 1)[0]
    if mutants.active("key_lowercase"):
        ip = ip.lower()
    if mutants.active("key_trimmed"):
        ip = ip.strip(WHITESPACE)
    if mutants.active("ip_key_cut_256"):
        ip = ip[:256]
    for c in ip:
        if mutants.active("key_signed_bytes"):  # Java's byte, C's signed char; floorMod
            h = (h * 131 + (c - 256 if c >= 128 else c)) % KEY_MOD
        elif mutants.active("key_hash_wraps_32"):
            h = (h * 131 + c) % (1 << 32) % KEY_MOD
        elif mutants.active("key_hash_reduce_once"):
            h = (h * 131 + c) % (1 << 64)
        else:
            h = (h * 131 + c) % KEY_MOD
    return h % KEY_MOD


def lim_resp_503(retry):  # LIM-17, LIM-18
    d = str(max(retry, 0)).encode("ascii")
    if mutants.active("resp_negative_retry"):
        d = str(retry).encode("ascii")
    if mutants.active("resp_retry_float64"):
        d = str(int(float(max(retry, 0)))).encode("ascii")
    status = b"HTTP/1.1 503 Service Unavailable"
    if mutants.active("resp_reason_phrase"):
        status = b"HTTP/1.1 503 Service Temporarily Unavailable"
    retry_after = b"Retry-After: " + d
    content_type = b"Content-Type: text/plain; charset=utf-8"
    headers = [retry_after, content_type, b"Content-Length: 12"]
    body = b"lim rejected"
    if mutants.active("resp_header_order"):
        headers = [content_type, retry_after, b"Content-Length: 12"]
    if mutants.active("resp_body_newline"):
        headers, body = [retry_after, content_type, b"Content-Length: 13"], body + b"\n"
    if mutants.active("resp_no_content_length"):
        headers = headers[:2]
    eol = b"\n" if mutants.active("resp_lf_only") else b"\r\n"
    return eol.join([status] + headers + [b"", body])


def _str(d):
    return {k: str(v) for k, v in d.items()}


class Lim:
    """The lim component as a vector subject: no config, no state."""

    def do(self, op):
        name = op.get("op")
        i = lambda k: int64(arg(op, k), k)
        if name == "lim_cfg":
            return _str(lim_cfg(i("cap"), i("refil"), i("ivl"), i("maxif")))
        if name == "lim_bkt_new":
            return _str(lim_bkt_new(i("cap"), i("now")))
        if name == "lim_take":
            # The op carries the four parameters; the config is lim_cfg's (VEC: see README).
            c = lim_cfg(i("cap"), i("refil"), i("ivl"), i("maxif"))
            return _str(lim_take(lim_bkt(i("tks"), i("last")), c, i("now"), i("cost")))
        if name == "lim_acq":
            return _str(lim_acq(i("n"), i("maxif")))
        if name == "lim_rel":
            return {"n": str(lim_rel(i("n")))}
        if name == "lim_ip_key":
            return {"key": str(lim_ip_key(parse_bytes(arg(op, "ip"), "ip")))}
        if name == "lim_resp_503":
            return {"response": emit_bytes(lim_resp_503(i("retry")))}
        raise OpError("lim: unknown op %r" % (name,))


def open_lim(config):
    if config is not None:
        raise OpError("lim takes no config (VEC-9)")
    return Lim()
