"""Hand-checked examples of spec.md: the worked example and some findings."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from limcheck_port import ConfigError, ExactStore, FaultStore, Gate, Throttle, open_component  # noqa: E402
from limcheck_port.lim import lim_bkt, lim_cfg, lim_ip_key, lim_resp_503, lim_take  # noqa: E402
from limcheck_port.siphash import key_hash, parse_seed, siphash  # noqa: E402
from limcheck_port.wire import MAX_INT64, MAX_UINT64, OpError, parse_bytes  # noqa: E402

ZERO_SEED = "0" * 32


def tl(b):
    """A gate bucket's tks and last, or None when no way holds the key."""
    return None if b is None else {"tks": b["tks"], "last": b["last"]}


class WorkedExample(unittest.TestCase):
    def test_worked_example(self):
        g = Gate(2, 1, 10, 2, 64, 4, 100000000)
        self.assertEqual(g.admit(b"a", 0)["verdict"], "pass")
        self.assertEqual((g.in_flight, tl(g.bucket(b"a", 0))), (1, {"tks": 1, "last": 0}))
        self.assertEqual(g.admit(b"a", 1)["verdict"], "pass")
        self.assertEqual((g.in_flight, tl(g.bucket(b"a", 1))), (2, {"tks": 0, "last": 0}))
        r = g.admit(b"b", 2)
        self.assertEqual((r["verdict"], r["retry_after"], r["response"]), ("shed", 1, lim_resp_503(1)))
        g.release()
        g.release()
        self.assertEqual(g.in_flight, 0)
        r = g.admit(b"a", 4)
        self.assertEqual((r["verdict"], r["retry"], r["retry_after"]), ("limited", 10, 1))
        self.assertEqual(g.admit(b"a", 10)["verdict"], "pass")
        self.assertEqual(tl(g.bucket(b"a", 10)), {"tks": 0, "last": 10})

    def test_dispatcher(self):
        s = open_component("gate", {"gate": {"cap": "2", "refil": "1", "ivl": "10", "maxif": "2",
                                             "sets": "64", "ways": "4", "tick_nanos": "100000000",
                                             "seed": ZERO_SEED}})
        # spec.md's worked example: siphash(0, 97) mod 64 = 1
        self.assertEqual(s.do({"op": "admit", "ip": "a", "now": "0"}),
                         {"verdict": "pass", "set": "1", "way": "0", "retry": "0", "retry_after": "0"})
        self.assertEqual(s.do({"op": "bucket", "ip": "b", "now": "0"}), {"touched": False})
        self.assertEqual(s.do({"op": "bucket", "ip": "a", "now": "0"}), {"touched": True, "tks": "1", "last": "0"})
        with self.assertRaises(ConfigError):
            Gate(2, 1, 10, 2, 0, 1, 1)
        with self.assertRaises(ConfigError):
            Gate(2, 1, 10, 2, 1, 0, 1)

    def test_aimed_collision(self):  # FIND-14
        for ways, victim_passes, attacker_passes in ((2, 5, 35), (3, 15, None)):
            g = Gate(15, 1, 1000, 1000, 1, ways, 1000000)
            passed = {"v": [], "x": 0}
            for now in range(15):
                for a in (b"x1", b"x2", b"x3"):
                    passed["x"] += g.admit(a, now)["verdict"] == "pass"
                passed["v"].append(g.admit(b"v", now)["verdict"])
            want = ["pass"] * victim_passes + ["limited"] * (15 - victim_passes)
            self.assertEqual(passed["v"], want, "ways %d" % ways)
            if attacker_passes is not None:  # FIND-14 counts them with ways 2
                self.assertEqual(passed["x"], attacker_passes)


class Seed(unittest.TestCase):
    """GATE-18: SipHash-2-4 of k as 8 little-endian bytes; GATE-1 and VEC-9: the config's seed."""

    def test_check_values(self):
        k16 = bytes(range(16))
        self.assertEqual(key_hash(k16, 0x0706050403020100), 0x93F5F5799A932462)  # GATE-18's check value
        self.assertEqual(siphash(k16, bytes(range(15))), 0xA129CA6149BE45E5)  # the paper's 15-byte message
        self.assertEqual(siphash(k16, b""), 0x726FDB47DD0E0E31)  # the reference's first vector
        self.assertEqual(key_hash(bytes(16), 97), 9317687229460025665)  # the worked example's "a"
        self.assertEqual(key_hash(bytes(16), 97) % 64, 1)

    def test_set_is_keyed(self):
        g, h = Gate(1, 1, 10, 1, 64, 1, 1), Gate(1, 1, 10, 1, 64, 1, 1, bytes(range(16)))
        self.assertEqual((g.admit(b"a", 0)["set"], h.admit(b"a", 0)["set"]),
                         (1, key_hash(bytes(range(16)), 97) % 64))

    def test_config_seed(self):
        cfg = lambda seed: {"gate": {"cap": "1", "refil": "1", "ivl": "1", "maxif": "1", "sets": "1",
                                     "ways": "1", "tick_nanos": "1", "seed": seed}}
        self.assertEqual(open_component("gate", cfg("000102030405060708090a0b0c0d0e0f")).seed, bytes(range(16)))
        self.assertEqual(open_component("gate", cfg("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF")).seed, b"\xff" * 16)
        for bad in ("", "00" * 15, "00" * 17, "0" * 31, "g" * 32, " " + "0" * 31, "0" * 32 + "\n"):
            self.assertRaises(ConfigError, open_component, "gate", cfg(bad))
        for bad in (0, None, ["0" * 32], {"hex": "0" * 32}):
            self.assertRaises(OpError, open_component, "gate", cfg(bad))
        c = cfg(ZERO_SEED)
        del c["gate"]["seed"]
        self.assertRaises(OpError, open_component, "gate", c)
        self.assertRaises(ConfigError, Gate, 1, 1, 1, 1, 1, 1, 1, bytes(15))
        self.assertEqual(parse_seed("ab" * 16), b"\xab" * 16)


def limited(retry, retry_after=1, way=None):
    """A limited decision of set 0; way None: the budget refused an eviction (GATE-19)."""
    d = {"verdict": "limited", "set": 0, "retry": retry, "retry_after": retry_after,
         "response": lim_resp_503(retry_after)}
    if way is not None:
        d["way"] = way
    return d


def passed(way=0, s=0):
    return {"verdict": "pass", "set": s, "way": way, "retry": 0, "retry_after": 0}


class GateBudget(unittest.TestCase):
    """GATE-16, GATE-19: an eviction costs cap - tks' of its victim, paid by its set's budget."""

    def steps(self, g, steps):
        for i, (ip, now, want) in enumerate(steps):
            got = g.admit(ip, now)
            self.assertEqual(got, want, "step %d: admit(%r, t%d)" % (i, ip, now))

    def test_find16_turns_pay(self):  # FIND-16
        g = Gate(1, 1, 1000, 10, 1, 1, 1)
        self.steps(g, [
            (b"a", 0, passed()),
            (b"b", 0, passed()),  # evicts a at a cost of 1 - 0 = 1: the budget 1 -> 0
            (b"a", 0, limited(1000)),  # the budget is empty: no way
            (b"b", 0, limited(1000, way=0)),  # b's own bucket
        ])
        self.assertEqual(g.in_flight, 2)

    def test_find27_newcomer_waits(self):  # FIND-27
        g = Gate(1, 1, 1000, 10, 1, 1, 1)
        self.steps(g, [(b"a", 0, passed()), (b"b", 0, passed()), (b"c", 0, limited(1000))])
        self.assertEqual((tl(g.bucket(b"c", 0)), tl(g.bucket(b"b", 0)), g.in_flight),
                         (None, {"tks": 0, "last": 0}, 2))  # no way written, in-flight unchanged
        self.assertEqual(g.budgets, {0: {"tks": 0, "last": 0}})
        self.steps(g, [(b"c", 0, limited(1000))])  # still refused: b kept its way

    def test_cost_is_cap_minus_victims_tokens(self):  # GATE-16: cap - tks', not cap
        g = Gate(3, 1, 10, 10, 1, 1, 1)
        self.steps(g, [
            (b"a", 0, passed()),  # a {2, 0}
            (b"b", 0, passed()),  # evicts a: 3 - 2 = 1, budget 3 -> 2
            (b"a", 0, passed()),  # evicts b: budget 2 -> 1
            (b"b", 0, passed()),  # budget 1 -> 0
            (b"a", 0, limited(10)),  # 1 token short: ceil(1 * 10 / 1)
            (b"b", 0, passed()),  # b's own way
            (b"b", 0, passed()),  # b {0, 0}
            (b"a", 5, limited(30)),  # the victim b costs 3: ceil((3 - 0) * 10 / 1)
        ])
        self.assertEqual(g.budgets, {0: {"tks": 0, "last": 0}})

    def test_budget_born_at_first_eviction(self):  # GATE-2, GATE-19: not at the gate's first admit
        g = Gate(1, 1, 5, 10, 1, 1, 1)
        self.steps(g, [
            (b"a", 13, passed()),
            (b"e", 16, passed()),  # the budget is born {1, 16} and pays: {0, 16}
            (b"b", 18, limited(5)),  # no whole step since 16
        ])
        self.assertEqual(g.budgets, {0: {"tks": 0, "last": 16}})

    def test_budget_reborn_when_full(self):  # GATE-19: full at now (GATE-14) is born again at now
        g = Gate(1, 1, 5, 10, 1, 1, 1)
        self.steps(g, [
            (b"b", 1, passed()),
            (b"a", 1, passed()),  # budget {0, 1}
            (b"c", 19, passed()),  # a is full at 19: c takes its way, no eviction
            (b"e", 19, passed()),  # evicts c; the budget, full at 19, is born {1, 19}: {0, 19}
            (b"a", 22, limited(5)),  # refilled from {0, 16} it would pay
        ])

    def test_budget_kept_on_refusal(self):  # GATE-19: "the set keeps the take's result ... on both outcomes"
        g = Gate(2, 1, 10, 10, 1, 1, 1)
        self.steps(g, [
            (b"b", 1, passed()),  # b {1, 1}
            (b"a", -2, passed()),  # evicts b (1 token: cost 1); budget {2, -2} -> {1, -2}
            (b"b", 3, passed()),  # evicts a (cost 1); budget {0, -2}
            (b"b", 11, passed()),  # b {0, 3}: {1, 3} - 1
        ])
        self.assertEqual(g.budgets, {0: {"tks": 0, "last": -2}})
        # e would evict b ({0, 3}: no step by 12, cost 2); the budget refills to {1, 8}, refuses
        # and keeps {1, 8}
        self.steps(g, [(b"e", 12, limited(10))])
        self.assertEqual(g.budgets, {0: {"tks": 1, "last": 8}})
        # at 5 < 8 the kept budget stays at 1 token (LIM-8), 1 short; {0, -2} would be 2 short
        self.steps(g, [(b"d", 5, limited(10))])

    def test_budget_per_set(self):  # GATE-19: each set has its own
        g = Gate(1, 1, 1000, 10, 2, 1, 1)  # zero seed, 2 sets: a and c in set 1, b and h in set 0
        self.steps(g, [
            (b"a", 0, passed(s=1)),
            (b"c", 0, passed(s=1)),  # set 1's budget pays
            (b"b", 0, passed()),
            (b"h", 0, passed()),  # set 0's budget, born full, pays
        ])

    def test_refused_retry_is_the_budgets(self):  # GATE-19: the budget take's retry, not the victim's
        g = Gate(2, 2, 2, 10, 1, 1, 1)
        self.steps(g, [
            (b"e", 13, passed()),
            (b"c", 14, passed()),  # evicts e (cost 1): budget {1, 14}
            (b"c", 15, passed()),  # c {0, 14}
            (b"a", 8, limited(1)),  # c costs 2, the budget has 1: ceil(1 * 2 / 2)
        ])

    def test_refusal_writes_no_way(self):  # GATE-16, GATE-19: no way changes
        g = Gate(1, 1, 1000, 10, 1, 2, 1)
        self.steps(g, [(b"a", 0, passed()), (b"b", 0, passed(1)), (b"c", 0, passed()),  # c evicts a
                       (b"d", 0, limited(1000))])
        self.assertEqual([tl(g.bucket(ip, 0)) for ip in (b"a", b"b", b"c", b"d")],
                         [None, {"tks": 0, "last": 0}, {"tks": 0, "last": 0}, None])
        r = open_component("gate", {"gate": {"cap": "1", "refil": "1", "ivl": "1000", "maxif": "10", "sets": "1",
                                             "ways": "1", "tick_nanos": "1", "seed": ZERO_SEED}})
        for ip in ("a", "b"):
            r.do({"op": "admit", "ip": ip, "now": "0"})
        self.assertNotIn("way", r.do({"op": "admit", "ip": "c", "now": "0"}))  # DEC-30: absent


class LimFindings(unittest.TestCase):
    def test_find1_too_early_and_too_late(self):
        c = lim_cfg(2, 2, 10, 1)
        r = lim_take(lim_bkt(0, 0), c, 0, 1)
        self.assertEqual(r["retry"], 5)
        self.assertEqual(lim_take(lim_bkt(0, 0), c, 5, 1)["ok"], 0)
        self.assertEqual(lim_take(lim_bkt(0, 0), c, 10, 1)["ok"], 1)
        self.assertEqual(lim_take(lim_bkt(0, 0), lim_cfg(1, 1, 10, 1), 9, 1)["retry"], 10)

    def test_find2_find3_find12_keys(self):
        self.assertEqual(lim_ip_key(b"10.17.102.130"), 2422100051)
        self.assertEqual(lim_ip_key(b"10.23.191.7"), 2422100051)
        self.assertEqual(lim_ip_key(b"::1"), 1002985)
        self.assertEqual(lim_ip_key(b"0:0:0:0:0:0:0:1"), 2269459780)
        self.assertEqual(lim_ip_key(b"\x00a"), lim_ip_key(b"a"))
        self.assertEqual(lim_ip_key(b"a"), 97)

    def test_find4_find11_find13(self):
        c = lim_cfg(2, 1, 10, 1)
        self.assertEqual(lim_take(lim_bkt(2, 0), c, 0, 3), {"ok": 0, "retry": 10, "tks": 2, "last": 0})
        self.assertEqual(lim_take(lim_bkt(2, 0), c, 10, 3), {"ok": 0, "retry": 10, "tks": 2, "last": 10})
        self.assertEqual(lim_take(lim_bkt(10, 0), lim_cfg(3, 1, 10, 1), -5, 1),
                         {"ok": 1, "retry": 0, "tks": 2, "last": 0})
        self.assertEqual(lim_take(lim_bkt(0, 100), lim_cfg(1, 1, 10, 1), 0, 1)["retry"], 10)

    def test_retry_saturates(self):
        c = lim_cfg(1, 1, MAX_INT64, 1)
        self.assertEqual(lim_take(lim_bkt(0, 0), c, 0, MAX_INT64)["retry"], MAX_INT64)


class ThrottleFindings(unittest.TestCase):
    def test_find5_counts_survive_a_ban(self):
        t = Throttle(ExactStore(), 3, 100, 10)
        t.record_failure(b"k", 0)
        t.record_failure(b"k", 1)
        self.assertEqual(t.record_failure(b"k", 2), {"verdict": "banned", "until": 12})
        self.assertEqual(t.check(b"k", 12), {"verdict": "allow", "remaining": 0})
        self.assertEqual(t.record_failure(b"k", 12), {"verdict": "banned", "until": 22})
        self.assertEqual(t.check(b"k", 103), {"verdict": "allow", "remaining": 2})

    def test_find6_allow_while_banned(self):
        t = Throttle(ExactStore(), 2, 100, 50)
        t.record_failure(b"k", 0)
        self.assertEqual(t.record_failure(b"k", 1), {"verdict": "banned", "until": 51})
        t.record_success(b"k")
        self.assertEqual(t.record_failure(b"k", 2), {"verdict": "allow", "remaining": 1})
        self.assertEqual(t.check(b"k", 2), {"verdict": "banned", "until": 51})

    def test_find7_saturated_ban(self):
        t = Throttle(ExactStore(), 1, 900, 900)
        self.assertEqual(t.record_failure(b"k", MAX_UINT64 - 5), {"verdict": "banned", "until": MAX_UINT64})
        self.assertEqual(t.check(b"k", MAX_UINT64), {"verdict": "allow", "remaining": 0})

    def test_find10_purge(self):
        t = Throttle(ExactStore(), 2, 10, 900)
        t.record_failure(b"k", 0)
        self.assertEqual(t.purge_expired(100), 1)
        self.assertEqual(t.check(b"k", 5), {"verdict": "allow", "remaining": 2})

    def test_store10_purge_rule_with_keys_never_matches(self):
        s = FaultStore(ExactStore())
        t = Throttle(s, 2, 10, 900)
        t.record_failure(b"k", 0)
        s.set_faults([("purge", [b"k"])])
        self.assertEqual(t.purge_expired(100), 1)
        s.set_faults([("purge", [])])
        self.assertRaises(Exception, t.purge_expired, 100)

    def test_config_refused(self):
        for cfg in ((0, 1, 1), (1, 0, 1), (1, 1, 0)):
            self.assertRaises(ConfigError, Throttle, ExactStore(), *cfg)
        self.assertRaises(ConfigError, Throttle, None, 5, 900, 900)



class ByteStrings(unittest.TestCase):
    """VEC-7 (spec DEC-52): a JSON string or {"hex": ...} by that exact key; hex digits of
    either case; a lone surrogate, odd-length or non-hex digits are refused."""

    def test_forms_read(self):
        self.assertEqual(parse_bytes("ab"), b"ab")
        self.assertEqual(parse_bytes(json.loads('"\\ud83d\\ude00"')), "\U0001F600".encode("utf-8"))
        self.assertEqual(parse_bytes({"hex": "fffe"}), b"\xff\xfe")
        self.assertEqual(parse_bytes({"hex": "FFFE"}), b"\xff\xfe")

    def test_malformed_refused(self):
        for bad in ['"\\ud800"', '"\\udc00"', '"\\ud800a"', '"\\ud800\\ud800\\udc00"']:
            self.assertRaises(OpError, parse_bytes, json.loads(bad))
        for bad in [{"hex": "fff"}, {"hex": "zz"}, {"HEX": "ff"}, {"hex": None}]:
            self.assertRaises(OpError, parse_bytes, bad)


if __name__ == "__main__":
    unittest.main()
