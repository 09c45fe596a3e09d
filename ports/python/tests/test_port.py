"""Hand-checked examples of spec.md: the worked example and some findings."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from limcheck_port import ConfigError, ExactStore, FaultStore, Gate, Throttle, open_component  # noqa: E402
from limcheck_port.lim import lim_bkt, lim_cfg, lim_ip_key, lim_resp_503, lim_take  # noqa: E402
from limcheck_port.wire import MAX_INT64, MAX_UINT64, OpError, parse_bytes  # noqa: E402


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
                                             "sets": "64", "ways": "4", "tick_nanos": "100000000"}})
        self.assertEqual(s.do({"op": "admit", "ip": "a", "now": "0"}),
                         {"verdict": "pass", "set": "33", "way": "0", "retry": "0", "retry_after": "0"})
        self.assertEqual(s.do({"op": "bucket", "ip": "b", "now": "0"}), {"touched": False})
        self.assertEqual(s.do({"op": "bucket", "ip": "a", "now": "0"}), {"touched": True, "tks": "1", "last": "0"})
        with self.assertRaises(ConfigError):
            Gate(2, 1, 10, 2, 0, 1, 1)
        with self.assertRaises(ConfigError):
            Gate(2, 1, 10, 2, 1, 0, 1)

    def test_aimed_collision_leaves_the_victim(self):  # FIND-14
        g = Gate(15, 1, 1000, 1000, 4096, 2, 1000000)
        passed = 0
        for now in range(15):
            for a in (b"198.51.31.69", b"198.51.41.115", b"198.51.65.104"):
                g.admit(a, now)
            passed += g.admit(b"192.0.2.10", now)["verdict"] == "pass"
        self.assertEqual(passed, 15)


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
