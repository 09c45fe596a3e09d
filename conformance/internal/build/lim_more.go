package build

import "strings"

// limFindings: the take findings' counterexamples, as spec.md gives them
// (FIND-1, FIND-4, FIND-11, FIND-13).
func limFindings() []Draft {
	c1, c2 := lc(2, 2, 10, 1), lc(1, 1, 10, 1)
	return []Draft{
		limCase("find", "FIND-1 too early: retry 5 at tick 0, yet a take at tick 5 still rejects; it passes at tick 10", on("FIND-1", "LIM-12", "PROP-6"),
			take(bk(0, 0), c1, 0, 1), take(bk(0, 0), c1, 5, 1), take(bk(0, 0), c1, 10, 1)),
		limCase("find", "FIND-1 too late: retry 10 at tick 9, yet a take at tick 10 passes", on("FIND-1", "LIM-12", "PROP-6"),
			take(bk(0, 0), c2, 9, 1), take(bk(0, 0), c2, 10, 1)),
		limCase("find", "FIND-4: cost 3 over cap 2 rejects with retry 10 at tick 0, and again at tick 10 from a full bucket (DEC-5 inside)", on("FIND-4", "LIM-12", "DEC-5"),
			take(bk(2, 0), lc(2, 1, 10, 1), 0, 3), take(bk(2, 0), lc(2, 1, 10, 1), 10, 3)),
		limCase("find", "FIND-11: bucket {10, 0} under a lowered cap 3, a take at tick -5 passes with tks 2, last 0 (DEC-8 inside)", on("FIND-11", "LIM-10", "LIM-8", "DEC-8"),
			take(bk(10, 0), lc(3, 1, 10, 1), -5, 1)),
		limCase("find", "FIND-13: from last 100 at tick 0 the retry is 10, yet takes at ticks 10 and 109 reject; 110 passes (DEC-2 inside)", on("FIND-13", "LIM-8", "LIM-12", "DEC-2"),
			take(bk(0, 100), c2, 0, 1), take(bk(0, 100), c2, 10, 1), take(bk(0, 100), c2, 109, 1), take(bk(0, 100), c2, 110, 1)),
	}
}

// limAcquire: lim_acq passes iff 0 <= n and n + 1 <= maxif, exactly
// (LIM-14; DEC-10).
func limAcquire() []Draft {
	return []Draft{
		limCase("acq", "lim_acq(0, 1) passes: n becomes 1 (DEC-10 outside)", on("LIM-14", "DEC-10"), acq(0, 1)),
		limCase("acq", "lim_acq(4, 5) passes to the last place", on("LIM-14"), acq(4, 5)),
		limCase("acq", "lim_acq(5, 5) sheds with n unchanged", on("LIM-14"), acq(5, 5)),
		limCase("acq", "lim_acq(-1, 5) is out of contract and sheds with n unchanged (DEC-10 inside)", on("LIM-14", "DEC-10", "VEC-5"), acq(-1, 5)).strict(),
		limCase("acq", "lim_acq(MinInt64, 1) is out of contract and sheds with n unchanged (DEC-10 inside)", on("LIM-14", "DEC-10"), acq(minI, 1)).strict(),
		limCase("acq", "lim_acq(0, 0): maxif 0 always sheds (DEC-10 inside)", on("LIM-14", "DEC-10"), acq(0, 0)),
		limCase("acq", "lim_acq(0, -1): a negative maxif sheds (DEC-10 inside)", on("LIM-14", "DEC-10"), acq(0, -1)),
		limCase("acq", "lim_acq(0, MinInt64) sheds (DEC-10 inside)", on("LIM-14", "DEC-10"), acq(0, minI)),
		limCase("acq", "lim_acq(MaxInt64 - 1, MaxInt64) passes to n = MaxInt64 (DEC-1 outside)", on("LIM-14", "LIM-1", "DEC-1"), acq(maxI-1, maxI)),
		limCase("acq", "lim_acq(MaxInt64, MaxInt64): n + 1 overflows int64, is computed exactly and sheds (DEC-1 inside)", on("LIM-14", "LIM-1", "DEC-1"), acq(maxI, maxI)),
		limCase("acq", "from 0 with maxif 2: two places pass, the third sheds, two releases return to 0", on("LIM-14", "LIM-15", "PROP-9"),
			acq(0, 2), acq(1, 2), acq(2, 2), rel(2), rel(1)),
	}
}

// limRelease: lim_rel floors at 0 (LIM-15; DEC-10).
func limRelease() []Draft {
	return []Draft{
		limCase("rel", "lim_rel(1) = 0 (DEC-10 outside)", on("LIM-15", "DEC-10"), rel(1)),
		limCase("rel", "lim_rel(0) floors at 0 (DEC-10 inside)", on("LIM-15", "DEC-10"), rel(0)),
		limCase("rel", "lim_rel(5) = 4", on("LIM-15"), rel(5)),
		limCase("rel", "lim_rel(-1) floors at 0", on("LIM-15"), rel(-1)),
		limCase("rel", "lim_rel(MinInt64) floors at 0 without wrapping", on("LIM-15", "LIM-1"), rel(minI)),
		limCase("rel", "lim_rel(MaxInt64) = MaxInt64 - 1", on("LIM-15"), rel(maxI)),
	}
}

// limKey: lim_ip_key hashes bytes, reducing at every byte (LIM-16; DEC-11).
func limKey() []Draft {
	return []Draft{
		limCase("key", "lim_ip_key of the empty string is 0", on("LIM-16"), ipKey("")),
		limCase("key", "lim_ip_key(\"a\") = 97: an ASCII byte is its code (DEC-11 outside)", on("LIM-16", "DEC-11"), ipKey("a")),
		limCase("key", "lim_ip_key of an IPv4 address", on("LIM-16"), ipKey("10.0.0.1")),
		limCase("key", "lim_ip_key hashes whitespace like any byte, never trimmed: \"\\n\" is 10, \" a\\t\" is not \"a\"", on("LIM-16"), ipKey("\n"), ipKey(" a\t")),
		limCase("key", "lim_ip_key of a full IPv6 address", on("LIM-16"), ipKey("2001:db8:85a3::8a2e:370:7334")),
		limCase("key", "lim_ip_key of non-ASCII text hashes its UTF-8 bytes, not its code points (DEC-11 inside)", on("LIM-16", "DEC-11"), ipKey("é")),
		limCase("key", "lim_ip_key of invalid UTF-8 hashes the raw bytes ff fe, carried as hex (DEC-11 inside)", on("LIM-16", "DEC-11", "VEC-7"), ipKey("\xff\xfe")),
		limCase("key", "lim_ip_key of 64 bytes ff is reduced at every byte (DEC-11 inside)", on("LIM-16", "DEC-11", "PROP-8"), ipKey(strings.Repeat("\xff", 64))),
		limCase("key", "lim_ip_key of bytes 0e 4c 40 73 6f is p - 1 = 4294967290, the largest key", on("LIM-16", "PROP-8"), ipKey("\x0eL@so")),
		limCase("key", "lim_ip_key of bytes 0e 4c 40 73 70 reaches p and reduces to 0", on("LIM-16", "PROP-8"), ipKey("\x0eL@sp")),
	}
}

// limKeyFindings: same-key addresses (FIND-2, FIND-3, FIND-12).
func limKeyFindings() []Draft {
	return []Draft{
		limCase("key", "FIND-2: 10.17.102.130 and 10.23.191.7 share the key 2422100051", on("FIND-2", "LIM-16"), ipKey("10.17.102.130"), ipKey("10.23.191.7")),
		limCase("key", "FIND-2: the hash is linear, so 10.17.102.131 and 10.23.191.8 share a key too", on("FIND-2", "LIM-16"), ipKey("10.17.102.131"), ipKey("10.23.191.8")),
		limCase("key", "FIND-2: and 10.17.102.132 and 10.23.191.9", on("FIND-2", "LIM-16"), ipKey("10.17.102.132"), ipKey("10.23.191.9")),
		limCase("key", "FIND-3: ::1 and 0:0:0:0:0:0:0:1, one address, get different keys", on("FIND-3", "LIM-16"), ipKey("::1"), ipKey("0:0:0:0:0:0:0:1")),
		limCase("key", "FIND-12: leading NUL bytes are invisible: \\x00a, \\x00\\x00a and a share the key 97", on("FIND-12", "LIM-16"), ipKey("\x00a"), ipKey("\x00\x00a"), ipKey("a")),
		limCase("key", "FIND-12: a lone NUL byte has the key of the empty string, 0", on("FIND-12", "LIM-16"), ipKey("\x00"), ipKey("")),
	}
}

// limResponse: the exact 503 bytes, Retry-After max(retry, 0) (LIM-17,
// LIM-18; DEC-12).
func limResponse() []Draft {
	return []Draft{
		limCase("resp", "lim_resp_503(0) writes Retry-After: 0 (DEC-12 outside)", on("LIM-17", "LIM-18", "DEC-12"), resp(0)),
		limCase("resp", "lim_resp_503(1): the exact bytes, CR LF line ends, 12-byte body", on("LIM-17", "LIM-18", "VEC-7", "PROP-10"), resp(1)),
		limCase("resp", "lim_resp_503(9) and (10): one digit, then two", on("LIM-18"), resp(9), resp(10)),
		limCase("resp", "lim_resp_503(10^18) writes 19 digits", on("LIM-18"), resp(1_000_000_000_000_000_000)),
		limCase("resp", "lim_resp_503(MaxInt64) writes 9223372036854775807", on("LIM-18", "LIM-17"), resp(maxI)),
		limCase("resp", "lim_resp_503(MaxInt64 - 1) writes 9223372036854775806", on("LIM-18"), resp(maxI-1)),
		limCase("resp", "lim_resp_503(-1) is out of contract and writes Retry-After: 0 (DEC-12 inside)", on("LIM-18", "DEC-12", "VEC-5"), resp(-1)).strict(),
		limCase("resp", "lim_resp_503(MinInt64) writes Retry-After: 0 with no sign (DEC-12 inside)", on("LIM-18", "DEC-12"), resp(minI)).strict(),
		limCase("resp", "lim_resp_503(MinInt64 + 1) writes Retry-After: 0 (DEC-12 inside)", on("LIM-18", "DEC-12"), resp(minI+1)).strict(),
	}
}
