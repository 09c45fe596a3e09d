"""The JSON form of values (spec.md VEC-6, VEC-7) and the errors the ports share."""

import re

from . import mutants

MIN_INT64 = -(1 << 63)
MAX_INT64 = (1 << 63) - 1
MAX_UINT64 = (1 << 64) - 1

_INT = re.compile(r"-?(0|[1-9][0-9]*)\Z")
_HEX = re.compile(r"([0-9a-fA-F]{2})*\Z")


class ConfigError(Exception):
    """A config refused at construction (GATE-1, THR-6)."""


class StoreError(Exception):
    """A failed store operation (STORE-1)."""


class OpError(ValueError):
    """A malformed op: unknown name, missing or ill-formed argument."""


def parse_int(v, lo, hi, what="integer"):
    """A canonical decimal string (VEC-6) in [lo, hi]; a JSON number is refused."""
    if not isinstance(v, str) or not _INT.match(v) or v == "-0":
        raise OpError("%s: not a canonical decimal string: %r" % (what, v))
    n = int(float(v)) if mutants.active("wire_int_float64") else int(v)
    if n < lo or n > hi:
        raise OpError("%s: %s out of range [%d, %d]" % (what, v, lo, hi))
    return n


def int64(v, what="integer"):
    return parse_int(v, MIN_INT64, MAX_INT64, what)


def uint64(v, what="integer"):
    return parse_int(v, 0, MAX_UINT64, what)


def parse_bytes(v, what="bytes"):
    """A JSON string (its UTF-8 bytes) or {"hex": ...} (VEC-7)."""
    if isinstance(v, str):
        try:
            return v.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate escape has no UTF-8 form
            raise OpError("%s: string has no UTF-8 form" % what)
    if isinstance(v, dict) and isinstance(v.get("hex"), str) and _HEX.match(v["hex"]):
        if mutants.active("key_hex_as_text"):
            return v["hex"].encode("ascii")
        return bytes.fromhex(v["hex"])
    raise OpError("%s: not a byte string: %r" % (what, v))


def emit_bytes(b):
    """Bytes in the writer's form: a string when valid UTF-8, else lowercase hex."""
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": b.hex()}


def arg(op, name):
    if name not in op:
        raise OpError("op %s: missing argument %r" % (op.get("op"), name))
    return op[name]
