#!/usr/bin/env python3
"""Run the conformance vectors (spec.md VEC-1..VEC-15) against the Python port.

usage: python3 ports/python/run_vectors.py conformance/vectors
Prints one line per failing case and ends with `N passed, M failed`; exits 1 on any failure."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from limcheck_port import COMPONENTS, ConfigError, mutants, open_component  # noqa: E402
from limcheck_port.wire import parse_bytes, parse_int, MIN_INT64, MAX_UINT64  # noqa: E402

FORMAT = "limcheck-vectors/1"
INT_FIELDS = ("ok", "err", "cap", "refil", "ivl", "maxif", "retry", "tks", "last", "n", "key",
              "set", "way", "retry_after", "remaining", "until", "count")
ENUM_FIELDS = {"verdict": ("pass", "shed", "limited", "allow", "banned", "unavailable"),
               "error": ("store", "config")}


def normalize(res):
    """A result object's known fields as comparable values (unknown keys ignored, VEC-8)."""
    out = {}
    for k, v in res.items():
        if k in INT_FIELDS:
            out[k] = parse_int(v, MIN_INT64, MAX_UINT64, k)
        elif k == "response":
            out[k] = parse_bytes(v, k)
        elif k == "touched":
            if not isinstance(v, bool):
                raise ValueError("touched: not a boolean")
            out[k] = v
        elif k in ENUM_FIELDS:
            if v not in ENUM_FIELDS[k]:
                raise ValueError("%s: unknown value %r" % (k, v))
            out[k] = v
    return out


def run_case(case, path):
    """None if the case passes, else a one-line reason."""
    if case.get("format") != FORMAT:  # VEC-2
        return "format %r is not %s" % (case.get("format"), FORMAT)
    comp = case.get("component")
    if comp not in COMPONENTS:
        return "unknown component %r" % (comp,)
    if os.path.basename(os.path.dirname(path)) != comp or os.path.basename(path) != "%s.json" % case.get("id"):
        return "file %s does not match component %r / id %r (VEC-1)" % (path, comp, case.get("id"))
    try:
        subject = open_component(comp, case.get("config"))
    except ConfigError:
        if case.get("expect_open") == "config":  # VEC-11
            return None
        return "op -: config refused, expected it to open"
    if case.get("expect_open") is not None:
        return "op -: expected config refusal, got an open instance"
    subjects = [subject]
    if case.get("twin") is True:  # VEC-15: two instances side by side, each op on both
        try:
            subjects.append(open_component(comp, case.get("config")))
        except ConfigError:
            return "op -: the second instance of the config was refused (twin case)"
    for i, op in enumerate(case.get("ops", [])):
        for k, s in enumerate(subjects):
            at = "op %d (%s)%s" % (i, op.get("op"), " on the second instance" if k else "")
            try:
                got = s.do(op)
            except Exception as e:  # a malformed op or a port bug
                return "%s: expected %s, got exception %s: %s" % (at, json.dumps(op.get("expect")), type(e).__name__, e)
            want = op.get("expect")
            try:
                same = isinstance(want, dict) and normalize(want) == normalize(got)  # VEC-10
            except ValueError as e:
                return "%s: expected %s, got %s: %s" % (
                    at, json.dumps(want, sort_keys=True), json.dumps(got, sort_keys=True), e)
            if not same:
                return "%s: expected %s, got %s" % (at, json.dumps(want, sort_keys=True), json.dumps(got, sort_keys=True))
    return None


def main(argv):
    if len(argv) != 2:
        print("usage: run_vectors.py <vectors dir>", file=sys.stderr)
        return 2
    if not mutants.known():
        print("unknown LIMCHECK_MUTANT %r" % mutants.ACTIVE, file=sys.stderr)
        return 2
    root = argv[1]
    passed = failed = 0
    for comp in sorted(os.listdir(root)):
        d = os.path.join(root, comp)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith(".json"):
                continue
            path = os.path.join(d, name)
            case = {}
            try:
                with open(path, encoding="utf-8") as f:
                    case = json.load(f)
                why = run_case(case, path)
            except Exception as e:
                why = "unreadable case: %s: %s" % (type(e).__name__, e)
            if not isinstance(case, dict):
                case = {}
            if why is None:
                passed += 1
            else:
                failed += 1
                print("FAIL %s: %s" % (case.get("id", path), why))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
