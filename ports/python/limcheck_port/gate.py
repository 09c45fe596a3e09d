"""Component gate: the composition layer (spec.md GATE-1..GATE-12)."""

from . import mutants
from .lim import cfg_valid, lim_acq, wrap, lim_bkt_new, lim_cfg, lim_ip_key, lim_rel, lim_resp_503, lim_take
from .wire import MAX_INT64, ConfigError, OpError, arg, emit_bytes, int64, parse_bytes

NANOS_PER_SECOND = 10 ** 9
MAX_INT32 = (1 << 31) - 1


def retry_after_secs(retry, tick_nanos):  # GATE-12: exact ceiling, at least 1, saturated
    s = -(-(retry * tick_nanos) // NANOS_PER_SECOND)
    if mutants.active("retry_after_floor"):
        s = retry * tick_nanos // NANOS_PER_SECOND
    if mutants.active("retry_after_mul_wraps"):
        s = -(-wrap(retry * tick_nanos, 64) // NANOS_PER_SECOND)
    return min(max(1, s), MAX_INT32 if mutants.active("retry_after_int32") else MAX_INT64)


# The gate_table_per_config mutant's bucket tables: one per config, process-wide.
_TABLES = {}


class Gate:
    def __init__(self, cap, refil, ivl, maxif, slots, tick_nanos):
        self.lim = lim_cfg(cap, refil, ivl, maxif)
        if not cfg_valid(self.lim) or slots < 1 or tick_nanos < 1:  # GATE-1
            raise ConfigError("gate config refused")
        self.slots = slots
        if mutants.active("slots_uint16"):
            self.slots = slots % (1 << 16) or 1
        if mutants.active("slots_uint32"):
            self.slots = slots % (1 << 32) or 1
        if mutants.active("slots_capped_4096"):
            self.slots = min(slots, 4096)
        self.tick_nanos = tick_nanos
        self.in_flight = 0  # GATE-2
        self.buckets = {}  # slot -> bucket; absent = untouched (sparse: slots may be huge)
        if mutants.active("gate_table_per_config"):  # every gate of this config shares one table
            self.buckets = _TABLES.setdefault((cap, refil, ivl, maxif, slots, tick_nanos), {})
            self.buckets.clear()

    def slot_of(self, ip):  # GATE-3
        if mutants.active("slot_bitmask"):
            return lim_ip_key(ip) & (self.slots - 1)
        return lim_ip_key(ip) % self.slots

    def admit(self, ip, now):
        slot = self.slot_of(ip)
        if mutants.active("gate_wrong_order"):
            return self._admit_take_first(slot, now)
        acq = lim_acq(self.in_flight, self.lim["maxif"])  # GATE-4
        if not acq["ok"]:  # GATE-9
            return self._shed(slot)
        r = self._take(slot, now)
        if r["ok"]:  # GATE-7
            self.in_flight = acq["n"]
            return {"verdict": "pass", "slot": slot, "retry": 0, "retry_after": 0}
        if mutants.active("limited_keeps_inflight"):
            self.in_flight = acq["n"]
        return self._limited(slot, r)

    def _admit_take_first(self, slot, now):  # the gate_wrong_order mutant
        r = self._take(slot, now)
        if not r["ok"]:
            return self._limited(slot, r)
        acq = lim_acq(self.in_flight, self.lim["maxif"])
        if not acq["ok"]:
            return self._shed(slot)
        self.in_flight = acq["n"]
        return {"verdict": "pass", "slot": slot, "retry": 0, "retry_after": 0}

    def _take(self, slot, now):
        b = self.buckets.get(slot)
        if b is None:  # GATE-10
            b = lim_bkt_new(self.lim["cap"], now)
        r = lim_take(b, self.lim, now, 1)  # GATE-5
        self.buckets[slot] = {"tks": r["tks"], "last": r["last"]}  # GATE-6
        return r

    @staticmethod
    def _shed(slot):  # GATE-9
        return {"verdict": "shed", "slot": slot, "retry": 0, "retry_after": 1,
                "response": lim_resp_503(0 if mutants.active("shed_retry_after_zero") else 1)}

    def _limited(self, slot, r):
        ra = retry_after_secs(r["retry"], self.tick_nanos)  # GATE-8
        return {"verdict": "limited", "slot": slot, "retry": r["retry"], "retry_after": ra,
                "response": lim_resp_503(ra)}

    def release(self):  # GATE-11
        self.in_flight = lim_rel(self.in_flight)

    def bucket(self, slot):
        """Inspection: the slot's bucket, or None while untouched (a slot outside
        [0, slots) is untouched: spec.md's operations table)."""
        return self.buckets.get(slot)

    def do(self, op):
        name = op.get("op")
        if name == "admit":
            r = self.admit(parse_bytes(arg(op, "ip"), "ip"), int64(arg(op, "now"), "now"))
            out = {k: (v if k == "verdict" else emit_bytes(v) if k == "response" else str(v))
                   for k, v in r.items()}
            return out
        if name == "release":
            self.release()
            return {}
        if name == "in_flight":
            return {"n": str(self.in_flight)}
        if name == "bucket":
            b = self.bucket(int64(arg(op, "slot"), "slot"))
            if b is None:
                return {"touched": False}
            return {"touched": True, "tks": str(b["tks"]), "last": str(b["last"])}
        raise OpError("gate: unknown op %r" % (name,))


def open_gate(config):
    g = arg(config or {}, "gate")
    if not isinstance(g, dict):
        raise OpError("config.gate: not an object")
    f = lambda k: int64(arg(g, k), "config.gate." + k)
    return Gate(f("cap"), f("refil"), f("ivl"), f("maxif"), f("slots"), f("tick_nanos"))
