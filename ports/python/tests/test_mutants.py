"""The protocol driver (driver.py) as limcheck runs it, and the planted bugs of
ports/mutants.json: each one must change the replies of a short session."""

import concurrent.futures
import json
import os
import subprocess
import sys
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PORT = os.path.dirname(HERE)
DRIVER = os.path.join(PORT, "driver.py")
RUN_VECTORS = os.path.join(PORT, "run_vectors.py")
MUTANTS_JSON = os.path.join(PORT, "..", "mutants.json")
VECTORS = os.path.join(PORT, "..", "..", "conformance", "vectors")
MAX_UINT64 = str((1 << 64) - 1)
# Every time limit here is a generous base times LIMCHECK_TEST_SLOWDOWN, the
# knob the Go tests read too: a healthy driver on a busy machine never
# counts as hung.
SLOWDOWN = float(os.environ.get("LIMCHECK_TEST_SLOWDOWN") or 1)
WAIT = 60 * SLOWDOWN

HELLO = {"protocol": "limcheck-port/1", "name": "limcheck-python", "version": "1.2.0",
         "components": ["lim", "gate", "throttle", "throttle_faults"]}


def env(mutant=None):
    # Without PYTHONUNBUFFERED too: the driver must flush by itself (PROTO-7).
    e = {k: v for k, v in os.environ.items() if k not in ("LIMCHECK_MUTANT", "PYTHONUNBUFFERED")}
    if mutant is not None:
        e["LIMCHECK_MUTANT"] = mutant
    return e


def session(component, config, ops, mutant=None):
    """Runs the driver on open + ops + close; returns the ops' replies (their result or fault)."""
    reqs = [{"op": "open", "inst": 1, "component": component}]
    if config is not None:
        reqs[0]["config"] = config
    reqs += [dict(op, inst=1) for op in ops] + [{"op": "close", "inst": 1}]
    lines = "".join(json.dumps(dict(r, seq=i + 1)) + "\n" for i, r in enumerate(reqs))
    p = subprocess.run([sys.executable, DRIVER], input=lines, capture_output=True, text=True,
                       env=env(mutant), timeout=WAIT)
    assert p.returncode == 0, (p.returncode, p.stderr)
    out = [json.loads(line) for line in p.stdout.splitlines()]
    assert out[0] == HELLO, out[0]
    replies = out[1:]
    assert [r["seq"] for r in replies] == list(range(1, len(reqs) + 1)), replies
    assert replies[0] == {"seq": 1, "result": {}} and replies[-1] == {"seq": len(reqs), "result": {}}
    return [r.get("result", r) for r in replies[1:-1]]


def gate(cap, refil, ivl, maxif, slots, tick_nanos):
    return {"gate": {"cap": str(cap), "refil": str(refil), "ivl": str(ivl), "maxif": str(maxif),
                     "slots": str(slots), "tick_nanos": str(tick_nanos)}}


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


PASS0 = {"verdict": "pass", "slot": "0", "retry": "0", "retry_after": "0"}


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
        (admit("a", 0), {"verdict": "limited", "slot": "0", "retry": "15", "retry_after": "2",
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
        (admit("a", 0), {"verdict": "shed", "slot": "0", "retry": "0", "retry_after": "1",
                         "response": resp(1)}),
        ({"op": "bucket", "slot": "0"}, {"touched": True, "tks": "1", "last": "0"}),  # no token spent
    ]),
    "key_codepoints": ("lim", None, [
        ({"op": "lim_ip_key", "ip": "\u00e9"}, {"key": str(0xc3 * 131 + 0xa9)}),  # UTF-8 c3 a9
    ]),
    "refill_resets_last": ("lim", None, [(take(0, 0, 15), took(1, 0, 0, 10))]),
    "retry_trunc_plus_one": ("lim", None, [(take(0, 0, 0), took(0, 10, 0, 0))]),
    "clamp_only_on_refill": ("lim", None, [(take(10, 0, 0, cap=3), took(1, 0, 2, 0))]),
    "limited_keeps_inflight": ("gate", gate(1, 1, 10, 5, 1, 1), [
        (admit("a", 0), PASS0),
        (admit("a", 0), {"verdict": "limited", "slot": "0", "retry": "10", "retry_after": "1",
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
}


def mutant_names():
    with open(MUTANTS_JSON, encoding="utf-8") as f:
        return [m["name"] for m in json.load(f)]


class Mutants(unittest.TestCase):
    def test_every_mutant_has_a_case(self):
        self.assertEqual(sorted(CASES), sorted(mutant_names()))

    def test_each_mutant_changes_its_session(self):
        for name, (component, config, steps) in CASES.items():
            with self.subTest(mutant=name):
                ops = [op for op, _ in steps]
                want = [result for _, result in steps]
                self.assertEqual(session(component, config, ops), want, "the unmutated port")
                self.assertNotEqual(session(component, config, ops, mutant=name), want)

    def test_each_mutant_fails_a_vector(self):
        if not os.path.isdir(VECTORS):
            self.skipTest("no conformance/vectors")
        def run(name):
            return subprocess.run([sys.executable, RUN_VECTORS, VECTORS], capture_output=True,
                                  text=True, env=env(name), timeout=2 * WAIT)
        names = [None] + mutant_names()
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            runs = list(pool.map(run, names))  # the processes run in parallel
        for name, p in zip(names, runs):
            with self.subTest(mutant=name):
                fails = [line for line in p.stdout.splitlines() if line.startswith("FAIL ")]
                if name is None:
                    self.assertEqual((p.returncode, fails), (0, []))
                else:
                    self.assertEqual(p.returncode, 1)
                    self.assertGreater(len(fails), 0)

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
        self.assertEqual(replies[0]["result"], {"verdict": "pass", "slot": "33", "retry": "0",
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
