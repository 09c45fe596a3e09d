"""Component gate: the composition layer (spec.md GATE-1..GATE-19): a table of sets of
ways, each way empty or holding one key and its bucket, a set chosen by SipHash-2-4 of the
key under the gate's seed, and one eviction budget per set."""

import math

from . import mutants
from .siphash import SEED_BYTES, key_hash, parse_seed
from .lim import cfg_valid, lim_acq, wrap, lim_bkt_new, lim_cfg, lim_ip_key, lim_rel, lim_resp_503, lim_take
from .wire import MAX_INT64, ConfigError, OpError, arg, emit_bytes, int64, parse_bytes

NANOS_PER_SECOND = 10 ** 9
MAX_INT32 = (1 << 31) - 1


def retry_after_secs(retry, tick_nanos):  # GATE-12: exact ceiling, at least 1, saturated
    s = -(-(retry * tick_nanos) // NANOS_PER_SECOND)
    if mutants.active("retry_after_float64"):
        s = math.ceil(float(retry) * float(tick_nanos) / 1e9)
    if mutants.active("retry_after_ticks_per_second"):
        s = -(-retry // (NANOS_PER_SECOND // tick_nanos))  # raises at 0 ticks a second
    if mutants.active("retry_after_floor"):
        s = retry * tick_nanos // NANOS_PER_SECOND
    if mutants.active("retry_after_mul_wraps"):
        s = -(-wrap(retry * tick_nanos, 64) // NANOS_PER_SECOND)
    return min(max(1, s), MAX_INT32 if mutants.active("retry_after_int32") else MAX_INT64)


# The gate_table_per_config mutant's tables: one per config, process-wide.
_TABLES = {}


ZERO_SEED = bytes(SEED_BYTES)  # a valid, public seed (GATE-18): vectors pin theirs


class Gate:
    """A gate of lim_cfg(cap, refil, ivl, maxif), sets x ways ways, ticks of tick_nanos
    nanoseconds and the 16-byte seed; raises ConfigError when GATE-1 refuses them."""

    def __init__(self, cap, refil, ivl, maxif, sets, ways, tick_nanos, seed=ZERO_SEED):
        self.lim = lim_cfg(cap, refil, ivl, maxif)
        bad_seed = not isinstance(seed, bytes) or len(seed) != SEED_BYTES
        if not cfg_valid(self.lim) or sets < 1 or ways < 1 or tick_nanos < 1 or bad_seed:  # GATE-1
            raise ConfigError("gate config refused")
        self.seed = seed
        self.sets, self.ways = sets, ways
        if mutants.active("sets_uint16"):
            self.sets = sets % (1 << 16) or 1
        if mutants.active("sets_uint32"):
            self.sets = sets % (1 << 32) or 1
        if mutants.active("sets_capped_4096"):
            self.sets = min(sets, 4096)
        if mutants.active("ways_capped_8"):
            self.ways = min(ways, 8)
        if mutants.active("ways_capped_16"):
            self.ways = min(ways, 16)
        if mutants.active("ways_uint8"):
            self.ways = ways % (1 << 8) or 1
        self.maxif = maxif % (1 << 16) if mutants.active("maxif_uint16") else maxif
        self.tick_nanos = tick_nanos % (1 << 32) if mutants.active("tick_nanos_uint32") else tick_nanos
        self.in_flight = 0  # GATE-2
        self.table = {}  # set -> {way: {"key", "tks", "last", "used"}}; an absent way is empty
        self.budgets = {}  # set -> its eviction budget {"tks", "last"}; absent at start (GATE-2)
        self.first_admit = None  # the tick of the gate's first admit, for budget_born_at_first_admit
        self.uses = 0  # a counter of takes, for the evict_lru mutant
        if mutants.active("gate_table_per_config"):  # every gate of this config shares one table
            self.table = _TABLES.setdefault((cap, refil, ivl, maxif, sets, ways, tick_nanos, seed), {})
            self.table.clear()

    def set_of(self, key):  # GATE-13: h mod sets, h GATE-18's hash of the key under the seed
        if mutants.active("set_unkeyed"):
            return key % self.sets
        h = key_hash(self.seed, key)
        if mutants.active("set_bitmask"):
            return h & (self.sets - 1)
        if mutants.active("set_signed_hash"):
            return wrap(h, 64) % self.sets  # Java's floorMod of the signed hash
        if mutants.active("set_hash_low32"):
            return (h & 0xFFFFFFFF) % self.sets
        return h % self.sets

    def admit(self, ip, now):
        key = lim_ip_key(ip)
        s = self.set_of(key)
        if self.first_admit is None:
            self.first_admit = now
        if mutants.active("gate_wrong_order"):
            return self._admit_take_first(s, key, now)
        acq = lim_acq(self.in_flight, self.maxif)  # GATE-4
        if not acq["ok"]:  # GATE-9
            if mutants.active("shed_after_placement"):
                self._reserve(s, key, now)
            return self._shed(0 if mutants.active("shed_set_zero") else s)
        w, r = self._take(s, key, now)
        if mutants.active("limited_keeps_inflight") and not r["ok"]:
            self.in_flight = acq["n"]
        if w is None:  # GATE-19: the budget refused the eviction
            return self._refused(s, r)
        if r["ok"]:  # GATE-7
            self.in_flight = acq["n"] % (1 << 8) if mutants.active("inflight_uint8") else acq["n"]
            return {"verdict": "pass", "set": s, "way": w, "retry": 0, "retry_after": 0}
        return self._limited(s, w, r)

    def _admit_take_first(self, s, key, now):  # the gate_wrong_order mutant
        w, r = self._take(s, key, now)
        if w is None:
            return self._refused(s, r)
        if not r["ok"]:
            return self._limited(s, w, r)
        acq = lim_acq(self.in_flight, self.maxif)
        if not acq["ok"]:
            return self._shed(s)
        self.in_flight = acq["n"]
        return {"verdict": "pass", "set": s, "way": w, "retry": 0, "retry_after": 0}

    def _refilled(self, b, now):
        """tks' of b at now (LIM-10): a take of cap tokens reports it."""
        cap = self.lim["cap"]
        r = lim_take(b, self.lim, now, cap)
        return r["tks"] + cap if r["ok"] else r["tks"]

    def _full(self, b, now):  # GATE-14
        t, cap = self._refilled(b, now), self.lim["cap"]
        if mutants.active("full_on_step_back") and now < b["last"]:
            return True
        if mutants.active("forget_by_ttl"):
            return now >= b["last"] and (now - b["last"]) // self.lim["ivl"] * self.lim["refil"] >= cap
        if mutants.active("forget_nonfull"):
            return t >= cap - 1
        if mutants.active("full_strict"):
            return t > cap
        return t >= cap

    def _place(self, s, key, now):
        """The way of set s for key at now and the bucket it takes from (GATE-15, GATE-16),
        or None and the budget's refusing take when the set's budget refused the eviction
        (GATE-19): then no way changed."""
        ways = self.table.setdefault(s, {})
        born = lim_bkt_new(self.lim["cap"], now)  # GATE-10
        old = next((w for w, e in ways.items() if self._holds(e, key)), None)
        if old is not None and not self._full(ways[old], now):  # GATE-15 (a)
            return old, ways[old]
        if old is not None and mutants.active("full_own_way_reused"):
            return old, born
        if old is None and mutants.active("budget_charges_newcomers"):
            self._charge(s, now, 1)
        two = mutants.active("place_empty_before_full")  # empty ways first, then full ones
        for p in range(2 if two else 1):
            w = 0
            while w < self.ways:  # GATE-15 (b): ends by len(ways) + 1
                e = ways.get(w)
                if (e is None and p == 0) or (e is not None and (p == 1 or not two) and self._full(e, now)):
                    if old is not None and old != w:
                        del ways[old]
                    return w, born
                w += 1
        victim = self._evict(ways, now)  # GATE-16: every way is filled, so ways is finite
        refused = self._pay(s, ways[victim], now)
        if refused is not None:
            if mutants.active("refused_retry_victim"):  # the budget's take, made on the victim's bucket
                c = self.lim["cap"] - self._refilled(ways[victim], now)
                refused = dict(refused, retry=lim_take(ways[victim], self.lim, now, c)["retry"])
            if mutants.active("refused_evicts_anyway"):
                del ways[victim]
            return None, refused
        if mutants.active("full_set_inherits"):
            return victim, ways[victim]  # the newcomer takes from the evicted key's bucket
        return victim, born

    def _evict(self, ways, now):
        if mutants.active("evict_lru"):
            return min(range(self.ways), key=lambda w: ways[w]["used"])
        score = (lambda w: ways[w]["tks"]) if mutants.active("evict_stored_tks") else (lambda w: self._refilled(ways[w], now))
        order = range(self.ways - 1, -1, -1) if mutants.active("evict_ties_highest") else range(self.ways)
        better = (lambda a, b: a < b) if mutants.active("evict_min_tokens") else (lambda a, b: a > b)
        best = None
        for w in order:
            if best is None or better(score(w), score(best)):
                best = w
        return best

    def _pay(self, s, victim, now):
        """GATE-16, GATE-19: the set s's budget pays cap - tks' of the victim's bucket at now;
        None when it paid, else its take's refusing result."""
        if mutants.active("evict_free"):
            return None
        cap = self.lim["cap"]
        cost = cap - self._refilled(victim, now)  # >= 1: a victim is not full
        if mutants.active("budget_cost_cap"):
            cost = cap
        if mutants.active("budget_cost_one"):
            cost = 1
        if mutants.active("budget_cost_stored_tks"):
            cost = cap - victim["tks"]
        r = self._charge(s, now, cost)
        return None if r["ok"] else r

    def _charge(self, s, now, cost):
        """The take of cost tokens from set s's budget at now (GATE-19), kept on both outcomes."""
        cap = self.lim["cap"]
        if mutants.active("budget_per_gate"):
            s = 0  # one budget, whichever set evicts
        budget = self.budgets.get(s)
        reborn = not mutants.active("budget_not_reborn") and not mutants.active("budget_never_refills")
        if mutants.active("budget_born_at_first_admit"):
            budget = lim_bkt_new(cap, self.first_admit) if budget is None else budget
        elif budget is None or (reborn and self._full(budget, now)):
            budget = lim_bkt_new(cap, now)  # GATE-19: born full where absent or full at now
        at = budget["last"] if mutants.active("budget_never_refills") else now  # a counter: no steps
        r = lim_take(budget, self.lim, at, cost)
        self.budgets[s] = {"tks": r["tks"], "last": r["last"]}  # GATE-19: on both outcomes
        return r

    def _take(self, s, key, now):
        """The way of s that holds key after its take at now and the take's result; None and
        the budget's take when the budget refused an eviction (nothing written, GATE-19)."""
        w, b = self._place(s, key, now)
        if w is None:
            return None, b
        r = lim_take(b, self.lim, now, 1)  # GATE-5
        self.uses += 1
        self._write(s, w, key, r)
        return w, r

    def _write(self, s, w, key, b):  # GATE-6: way w of set s now holds key and the bucket b
        ways = self.table.setdefault(s, {})
        if mutants.active("table_capped_1024") and w not in ways:  # an arena of 1024 entries
            if sum(len(m) for m in self.table.values()) >= 1024:
                return  # the arena is full: the key is not kept
        ways[w] = {"key": key, "tks": b["tks"], "last": b["last"], "used": self.uses}

    def _reserve(self, s, key, now):  # shed_after_placement: placed before the in-flight gate
        w, b = self._place(s, key, now)
        if w is not None:
            self._write(s, w, key, b)

    @staticmethod
    def _holds(e, key):  # by the whole key, or for way_tag_16 by its low 16 bits
        if mutants.active("way_tag_16"):
            return e["key"] & 0xFFFF == key & 0xFFFF
        return e["key"] == key

    @staticmethod
    def _shed(s):  # GATE-9, GATE-17: a shed names no way
        return {"verdict": "shed", "set": s, "retry": 0, "retry_after": 1,
                "response": lim_resp_503(0 if mutants.active("shed_retry_after_zero") else 1)}

    def _limited(self, s, w, r):
        ra = retry_after_secs(r["retry"], self.tick_nanos)  # GATE-8
        return {"verdict": "limited", "set": s, "way": w, "retry": r["retry"], "retry_after": ra,
                "response": lim_resp_503(ra)}

    def _refused(self, s, r):
        """GATE-19, GATE-17: a refused eviction is limited with the budget take's retry, and
        names no way (no way holds the key)."""
        d = self._limited(s, 0, r)
        if not mutants.active("refused_way_zero"):
            del d["way"]
        return d

    def release(self):  # GATE-11
        self.in_flight = lim_rel(self.in_flight)

    def bucket(self, ip, now):
        """Inspection: the stored bucket of ip's key, or None when no way holds it or its
        bucket is full at now (GATE-14; spec.md's operations table)."""
        key = lim_ip_key(ip)
        for e in self.table.get(self.set_of(key), {}).values():
            if not self._holds(e, key):
                continue
            if self._full(e, now) and not mutants.active("bucket_ignores_full"):
                return None
            if mutants.active("bucket_reads_refilled"):
                r = lim_take(e, self.lim, now, self.lim["cap"])
                return {"tks": r["tks"] + self.lim["cap"] if r["ok"] else r["tks"], "last": r["last"]}
            return e
        return None

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
            b = self.bucket(parse_bytes(arg(op, "ip"), "ip"), int64(arg(op, "now"), "now"))
            if b is None:
                return {"touched": False}
            return {"touched": True, "tks": str(b["tks"]), "last": str(b["last"])}
        raise OpError("gate: unknown op %r" % (name,))


def open_gate(config):
    g = arg(config or {}, "gate")
    if not isinstance(g, dict):
        raise OpError("config.gate: not an object")
    f = lambda k: int64(arg(g, k), "config.gate." + k)
    seed = parse_seed(arg(g, "seed"), "config.gate.seed")  # VEC-9: 32 hex digits
    return Gate(f("cap"), f("refil"), f("ivl"), f("maxif"), f("sets"), f("ways"), f("tick_nanos"), seed)
