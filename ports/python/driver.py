#!/usr/bin/env python3
"""The Python port behind spec.md's port protocol, limcheck-port/3 (PROTO-1..PROTO-11).

usage: limcheck run --port 'python3 ports/python/driver.py'
       python3 ports/python/driver.py --list-mutants

Requests come on stdin, replies go to stdout, one JSON object a line; stderr is for
diagnostics only. LIMCHECK_MUTANT=<name> plants one bug (ports/mutants.json)."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from limcheck_port import COMPONENTS, VERSION, ConfigError, mutants, open_component  # noqa: E402


def answer(req, instances):
    """The reply to one request, less its seq (PROTO-4..PROTO-6)."""
    op, inst = req.get("op"), req.get("inst")
    try:
        if op == "open":
            try:
                made = open_component(req["component"], req.get("config"))
                if mutants.active("inst_by_component"):  # one live instance per component: the last opened
                    instances[req["component"]] = made
                    made = _Alias(instances, req["component"])
                instances[inst] = made
            except ConfigError:
                return {"result": {"error": "config"}}
            return {"result": {}}
        if op == "close":
            instances.pop(inst, None)
            return {"result": {}}
        if inst not in instances:
            return {"fault": "instance %r is not open" % (inst,)}
        return {"result": instances[inst].do(req)}  # do ignores seq, inst and unknown keys
    except Exception as e:  # a malformed op, or a bug in the port
        return {"fault": "%s: %s" % (type(e).__name__, e)}


class _Alias:
    """The inst_by_component mutant's instance: whichever instance of its component was
    opened last."""

    def __init__(self, instances, component):
        self.instances, self.component = instances, component

    def do(self, op):
        return self.instances[self.component].do(op)


def send(msg):
    sys.stdout.write(json.dumps(msg, separators=(",", ":")) + "\n")
    sys.stdout.flush()  # PROTO-7: limcheck pipelines; never block on stdin with a reply unsent


def main():
    if sys.argv[1:] == ["--list-mutants"]:
        print("\n".join(mutants.NAMES))
        return 0
    if not mutants.known():
        print("unknown LIMCHECK_MUTANT %r" % mutants.ACTIVE, file=sys.stderr)
        return 2
    if mutants.ACTIVE:
        print("limcheck-python: mutant %s planted" % mutants.ACTIVE, file=sys.stderr)
    send({"protocol": "limcheck-port/3", "name": "limcheck-python", "version": VERSION,
          "components": list(COMPONENTS)})  # PROTO-2
    instances = {}
    for line in sys.stdin.buffer:  # bytes: the protocol is UTF-8 whatever the locale
        req = json.loads(line)
        send({"seq": req.get("seq"), **answer(req, instances)})
    return 0  # PROTO-8: stdin is closed


if __name__ == "__main__":
    sys.exit(main())
