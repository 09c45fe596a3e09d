"""Component lim: seed 000's pure functions (spec.md LIM-1..LIM-18).

Python ints are unbounded, so every intermediate is exact (LIM-1)."""

from . import mutants
from .wire import MAX_INT64, OpError, arg, emit_bytes, int64, parse_bytes

KEY_MOD = 4294967291  # 2^32 - 5 (LIM-16)


def lim_err_ok():  # LIM-2
    return 0


def lim_err_param():  # LIM-2
    return 1


def lim_cfg(cap, refil, ivl, maxif):  # LIM-3
    good = cap >= 1 and refil >= 1 and ivl >= 1 and maxif >= 1
    return {"ok": 1 if good else 0, "err": lim_err_ok() if good else lim_err_param(),
            "cap": cap, "refil": refil, "ivl": ivl, "maxif": maxif}


def cfg_valid(c):  # LIM-4
    return (c["ok"] == 1 and c["err"] == 0 and c["cap"] >= 1 and c["refil"] >= 1
            and c["ivl"] >= 1 and c["maxif"] >= 1)


def lim_bkt(tks, last):  # LIM-5
    return {"tks": tks, "last": last}


def lim_bkt_new(cap, now):  # LIM-6
    return {"tks": cap, "last": now}


def lim_take(b, c, now, cost):
    tks, last = b["tks"], b["last"]
    if not cfg_valid(c) or cost < 1 or tks < 0:  # LIM-7
        return {"ok": 0, "retry": 0, "tks": tks, "last": last}
    if now < last:  # LIM-8
        steps, last2 = 0, last
        if mutants.active("step_back_rewinds_last"):
            last2 = now
    else:  # LIM-9
        steps = (now - last) // c["ivl"]
        last2 = last + steps * c["ivl"]
        if mutants.active("refill_resets_last") and steps >= 1:
            last2 = now
    tks2 = min(c["cap"], tks + steps * c["refil"])  # LIM-10
    if mutants.active("clamp_only_on_refill") and steps == 0:
        tks2 = tks
    if tks2 >= cost:  # LIM-11
        return {"ok": 1, "retry": 0, "tks": tks2 - cost, "last": last2}
    retry = -(-((cost - tks2) * c["ivl"]) // c["refil"])  # LIM-12: exact ceiling
    if mutants.active("retry_trunc_plus_one"):
        retry = (cost - tks2) * c["ivl"] // c["refil"] + 1
    return {"ok": 0, "retry": min(retry, MAX_INT64), "tks": tks2, "last": last2}  # LIM-13


def lim_acq(n, maxif):  # LIM-14
    if mutants.active("inflight_off_by_one"):
        maxif += 1
    if n >= 0 and n + 1 <= maxif:
        return {"ok": 1, "n": n + 1}
    return {"ok": 0, "n": n}


def lim_rel(n):  # LIM-15
    return n - 1 if n >= 1 else 0


def lim_ip_key(ip):  # LIM-16: ip is bytes
    h = 0
    if mutants.active("key_codepoints"):
        ip = [ord(ch) for ch in ip.decode("utf-8", "replace")]
    for c in ip:
        h = (h * 131 + c) % KEY_MOD
    return h


def lim_resp_503(retry):  # LIM-17, LIM-18
    d = str(max(retry, 0)).encode("ascii")
    return (b"HTTP/1.1 503 Service Unavailable\r\n"
            b"Retry-After: " + d + b"\r\n"
            b"Content-Type: text/plain; charset=utf-8\r\n"
            b"Content-Length: 12\r\n"
            b"\r\n"
            b"lim rejected")


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
