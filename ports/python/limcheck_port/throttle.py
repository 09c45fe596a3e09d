"""Component throttle: seed 003's failure counter with bans (spec.md THR-1..THR-17),
its store's seven operations (STORE-1..STORE-9) and fault injection (STORE-10)."""

from . import mutants
from .wire import MAX_INT64, MAX_UINT64, ConfigError, OpError, StoreError, arg, parse_bytes, uint64

DEFAULT_CONFIG = {"threshold": 5, "window_secs": 900, "ban_secs": 900}  # THR-2


def in_window(t, now, window):  # THR-4: exact, no upper bound
    if mutants.active("window_inclusive"):
        return t + window >= now
    if mutants.active("window_short"):
        return t + window > now + 1
    if mutants.active("window_upper_bound"):
        return t <= now < t + window
    if mutants.active("fixed_window_aligned"):
        return t // window == now // window  # one counter per window
    return t + window > now


def kept_by_purge(t, now, window):  # STORE-9: purge keeps what count still sees
    if mutants.active("purge_window_inclusive"):
        return t + window >= now
    return in_window(t, now, window)


def store_key(key):
    if mutants.active("key_cut_64"):
        return key[:64]
    return key[:4] if mutants.active("key_cut_4") else key


class ExactStore:
    """Every stamp of every key, as a list; a key maps to [stamps, ban_until]."""

    def __init__(self):
        self.keys = {}
        self.ring = 0  # stamps_ring_threshold: the most stamps a key keeps, in insertion order

    def _entry(self, key):
        return self.keys.setdefault(store_key(key), [[], 0])

    def ban_until(self, key):  # STORE-2
        e = self.keys.get(store_key(key))
        return e[1] if e else 0

    def count(self, key, now, window):  # STORE-3 (THR-4)
        e = self.keys.get(store_key(key))
        if not e:
            return 0
        n = sum(1 for t in e[0] if in_window(t, now, window))
        if mutants.active("count_assumes_sorted"):  # newest first, stopping at the first expired
            n = 0
            for t in reversed(e[0]):
                if not in_window(t, now, window):
                    break
                n += 1
        return n % (1 << 8) if mutants.active("count_uint8") else n

    def add_failure(self, key, now, window):  # STORE-4
        stamps = self._entry(key)[0]
        t = now % (1 << 32) if mutants.active("stamps_uint32") else now
        if not (mutants.active("stamps_dedup_same_second") and t in stamps):
            stamps.append(t)
        if mutants.active("stamps_ring_16"):
            del stamps[:-16]
        if self.ring and len(stamps) > self.ring:
            del stamps[:len(stamps) - self.ring]
        return self.count(key, now, window)

    def ban(self, key, until):  # STORE-5
        e = self._entry(key)
        e[1] = until if mutants.active("ban_shortens") else max(e[1], until)
        return e[1]

    def clear_failures(self, key):  # STORE-6
        if store_key(key) in self.keys:
            self.keys[store_key(key)][0] = []

    def drop_stamp(self, key, now):
        """The ban_fault_rolls_back mutant: the stamp now that add_failure added, taken out again."""
        e = self.keys.get(store_key(key))
        if e and now in e[0]:
            del e[0][len(e[0]) - 1 - e[0][::-1].index(now)]

    def clear(self, key):  # STORE-7
        self.keys.pop(store_key(key), None)

    @staticmethod
    def _tracked(e):  # STORE-8
        if mutants.active("purge_drops_bans"):
            return len(e[0]) > 0
        return len(e[0]) > 0 or e[1] > 0

    def purge(self, now, window):  # STORE-9
        n = 0
        for key in list(self.keys):
            e = self.keys[key]
            before = self._tracked(e)
            kept = [t for t in e[0] if kept_by_purge(t, now, window)]
            if mutants.active("purge_counts_stamps"):
                n += len(e[0]) - len(kept)
            e[0] = kept
            if e[1] < now or (e[1] == now and not mutants.active("purge_ban_strict")):
                e[1] = 0
            if not self._tracked(e):
                del self.keys[key]
                if not mutants.active("purge_counts_stamps"):
                    n += before
        if mutants.active("purge_returns_remaining"):
            return len(self.keys)  # the keys left, not the keys gone
        return n


OPS = ("ban_until", "count", "add_failure", "ban", "clear_failures", "clear", "purge")


class FaultStore:
    """A store under test (STORE-10): rules {op, keys}; a failed op has no effect (STORE-1)."""

    def __init__(self, inner):
        self.inner = inner
        self.rules = []  # (op, frozenset of keys); empty set = every key

    def set_faults(self, rules):
        add = [(op, frozenset(keys)) for op, keys in rules]
        self.rules = self.rules + add if mutants.active("faults_appended") else add

    def _check(self, op, key):
        for rop, keys in self.rules:
            every = not keys
            if mutants.active("purge_fault_any_rule") and key is None:
                every = True
            if rop == op and (every or (key is not None and key in keys)):
                raise StoreError(op)

    def _do(self, op, key, run, partial=lambda: None):
        if mutants.active("fault_after_effect"):
            r = run()
            self._check(op, key)
            return r
        try:
            self._check(op, key)
        except StoreError:
            partial()
            raise
        return run()

    def ban_until(self, key):
        return self._do("ban_until", key, lambda: self.inner.ban_until(key))

    def count(self, key, now, window):
        return self._do("count", key, lambda: self.inner.count(key, now, window))

    def add_failure(self, key, now, window):
        return self._do("add_failure", key, lambda: self.inner.add_failure(key, now, window))

    def ban(self, key, until):
        return self._do("ban", key, lambda: self.inner.ban(key, until))

    def clear_failures(self, key):
        return self._do("clear_failures", key, lambda: self.inner.clear_failures(key))

    def clear(self, key):
        if mutants.active("clear_fault_half_done"):  # the stamps go first, then the ban's write fails
            return self._do("clear", key, lambda: self.inner.clear(key), lambda: self.inner.clear_failures(key))
        return self._do("clear", key, lambda: self.inner.clear(key))

    def purge(self, now, window):
        return self._do("purge", None, lambda: self.inner.purge(now, window))


def allow(remaining):
    return {"verdict": "allow", "remaining": remaining}


def banned(until):
    return {"verdict": "banned", "until": until}


UNAVAILABLE = {"verdict": "unavailable"}


class Throttle:
    def __init__(self, store, threshold, window_secs, ban_secs):
        if store is None or threshold < 1 or window_secs < 1 or ban_secs < 1:  # THR-1, THR-6
            raise ConfigError("throttle config refused")
        self.store = store
        self.threshold, self.window_secs, self.ban_secs = threshold, window_secs, ban_secs
        if mutants.active("threshold_uint8"):
            self.threshold = threshold % (1 << 8)
        if mutants.active("threshold_uint16"):
            self.threshold = threshold % (1 << 16)
        if mutants.active("threshold_uint32"):
            self.threshold = threshold % (1 << 32)
        if mutants.active("ban_secs_uint32"):
            self.ban_secs = ban_secs % (1 << 32)
        if mutants.active("window_uint32"):
            self.window_secs = window_secs % (1 << 32)
        if mutants.active("stamps_ring_threshold"):
            getattr(store, "inner", store).ring = self.threshold

    def check(self, key, now):
        if key == b"" and mutants.active("empty_key_ignored"):
            return allow(self.threshold)
        try:
            until = self.store.ban_until(key)  # THR-7
        except StoreError:
            if not mutants.active("ban_until_fault_ignored"):
                return self._unavailable(now)
            until = 0  # "no ban known": go on to the count
        if mutants.active("ban_never_expires") and until > 0:
            return banned(until)
        if now < until or (mutants.active("ban_until_inclusive") and now == until):  # THR-5
            if not (mutants.active("ban_ends_early") and now + 1 == until):
                return banned(until)
        try:
            n = self.store.count(key, now, self.window_secs)  # THR-8
        except StoreError:
            return self._unavailable(now)
        if mutants.active("remaining_wraps"):
            return allow((self.threshold - n) % (MAX_UINT64 + 1))
        return allow(self.threshold - min(n, self.threshold))

    def _unavailable(self, now):
        if mutants.active("fault_fail_closed"):
            return banned(min(now + self.ban_secs, MAX_UINT64))
        if mutants.active("fault_fail_open"):
            return allow(self.threshold)
        return UNAVAILABLE

    def check_any(self, keys, now):
        if mutants.active("check_any_drops_repeats"):
            keys = [k for k in keys if keys.count(k) == 1]
        if not keys:  # THR-9
            return allow(self.threshold if mutants.active("check_any_empty_full") else 0)
        if mutants.active("check_any_first_key_only"):
            keys = keys[:1]
        if mutants.active("check_any_first_16"):
            keys = keys[:16]
        if mutants.active("check_any_first_64"):
            keys = keys[:64]
        if mutants.active("check_any_last_key_wins"):
            return self.check(keys[-1], now)
        rs = [self.check(k, now) for k in keys]  # THR-10
        if mutants.active("check_any_first_allow"):
            for r in rs:
                if r["verdict"] == "allow":
                    return r
        unavailable = any(r["verdict"] == "unavailable" for r in rs)
        if unavailable and mutants.active("check_any_unavailable_first"):
            return UNAVAILABLE
        bans = [r["until"] for r in rs if r["verdict"] == "banned"]
        if bans:
            return banned(bans[0] if mutants.active("check_any_first_ban") else max(bans))
        if unavailable:
            return UNAVAILABLE
        if mutants.active("check_any_merged_count"):  # the keys' counts added up
            used = sum(self.threshold - r["remaining"] for r in rs)
            return allow(self.threshold - min(used, self.threshold))
        pick = max if mutants.active("check_any_max_remaining") else min
        return allow(pick(r["remaining"] for r in rs))

    def record_failure(self, key, now):
        """allow/banned, or raises StoreError (THR-11..THR-13)."""
        if key == b"" and mutants.active("empty_key_ignored"):
            return allow(self.threshold)
        if mutants.active("record_failure_checks_ban"):
            until = self.store.ban_until(key)
            if now < until:
                return banned(until)
        n = self.store.add_failure(key, now, self.window_secs)
        if n < self.threshold or (mutants.active("threshold_off_by_one") and n == self.threshold):  # THR-12
            if not (mutants.active("threshold_early") and n + 1 == self.threshold):
                return allow(self.threshold - n)
        until = min(now + self.ban_secs, MAX_UINT64)  # THR-3
        if mutants.active("ban_until_wraps"):
            until = (now + self.ban_secs) % (MAX_UINT64 + 1)
        if mutants.active("ban_until_int64"):
            until = min(now + self.ban_secs, MAX_INT64)
        try:
            stored = self.store.ban(key, until)  # THR-13
            return banned(until if mutants.active("record_failure_computed_until") else stored)
        except StoreError:
            if mutants.active("ban_error_swallowed"):
                return banned(until)
            if mutants.active("ban_fault_rolls_back"):
                getattr(self.store, "inner", self.store).drop_stamp(key, now)
            raise

    def record_success(self, key):  # THR-14
        if mutants.active("success_lifts_ban"):
            self.store.clear(key)
        elif not mutants.active("success_noop"):
            self.store.clear_failures(key)
        if mutants.active("success_clears_every_key"):
            for e in getattr(self.store, "inner", self.store).keys.values():
                e[0] = []

    def reset(self, key):  # THR-15
        if mutants.active("reset_keeps_ban"):
            self.store.clear_failures(key)
        else:
            self.store.clear(key)

    def purge_expired(self, now):  # THR-16
        try:
            return self.store.purge(now, self.window_secs)
        except StoreError:
            if mutants.active("purge_error_zero"):
                return 0
            raise


def _str(r):
    return {k: (v if k == "verdict" else str(v)) for k, v in r.items()}


class ThrottleSubject:
    """The throttle (faults=False) or throttle_faults (faults=True) component as a vector subject."""

    def __init__(self, throttle, faults):
        self.throttle, self.faults = throttle, faults

    def do(self, op):
        t, name = self.throttle, op.get("op")
        key = lambda: parse_bytes(arg(op, "key"), "key")
        now = lambda: uint64(arg(op, "now"), "now")
        try:
            if name == "check":
                return _str(t.check(key(), now()))
            if name == "check_any":
                ks = arg(op, "keys")
                if not isinstance(ks, list):
                    raise OpError("keys: not a list")
                return _str(t.check_any([parse_bytes(k, "keys[]") for k in ks], now()))
            if name == "record_failure":
                return _str(t.record_failure(key(), now()))
            if name == "record_success":
                t.record_success(key())
                return {}
            if name == "reset":
                t.reset(key())
                return {}
            if name == "purge_expired":
                return {"count": str(t.purge_expired(now()))}
            if name == "set_faults" and self.faults:
                t.store.set_faults(_parse_faults(arg(op, "faults")))
                return {}
        except StoreError:
            return {"error": "store"}
        raise OpError("%s: unknown op %r" % ("throttle_faults" if self.faults else "throttle", name))


def _parse_faults(v):
    if not isinstance(v, list):
        raise OpError("faults: not a list")
    rules = []
    for r in v:
        if not isinstance(r, dict) or r.get("op") not in OPS:
            raise OpError("faults: bad rule %r" % (r,))
        keys = r.get("keys", [])
        if not isinstance(keys, list):
            raise OpError("faults: keys not a list")
        rules.append((r["op"], [parse_bytes(k, "fault key") for k in keys]))
    return rules


# The throttle_process_store mutant's one store, shared by every throttle of the process.
_PROCESS_STORE = ExactStore()


def open_throttle(config, faults=False):
    c = arg(config or {}, "throttle")
    if not isinstance(c, dict):
        raise OpError("config.throttle: not an object")
    f = lambda k: uint64(arg(c, k), "config.throttle." + k)
    inner = ExactStore()
    if mutants.active("throttle_process_store"):  # a new throttle empties and adopts the one store
        _PROCESS_STORE.keys.clear()
        inner = _PROCESS_STORE
    store = FaultStore(inner) if faults else inner
    return ThrottleSubject(Throttle(store, f("threshold"), f("window_secs"), f("ban_secs")), faults)
