package build

// reviewCases: the findings and decisions that settle the review of spec
// 1.2.0 (FIND-20..FIND-26, DEC-40..DEC-55), each decision with a case on
// either side of its boundary (VEC-4).
func reviewCases() []Draft {
	return append(reviewLim(), reviewThrottle()...)
}

// reviewLim: the lim findings and decisions.
func reviewLim() []Draft {
	c60, c10 := lc(60, 60, 60, 100), lc(10, 10, 10, 1)
	const ahead = 1_000_000_000_000
	return []Draft{
		limCase("find", "FIND-21: a take at tick 0 from {0, 0} says retry 1 (1 s at a 1 s tick), yet takes at ticks 1 and 59 reject; 60 passes", on("FIND-21", "LIM-12", "PROP-6"),
			take(bk(0, 0), c60, 0, 1), take(bk(0, 0), c60, 1, 1), take(bk(0, 0), c60, 59, 1), take(bk(0, 0), c60, 60, 1)),
		limCase("find", "FIND-22: a bucket with last 10^12 taken at tick 10^9 says retry 1, rejects until 10^12 + 9, passes at 10^12 + 10 (DEC-47 inside) (DEC-2 inside)", on("FIND-22", "LIM-8", "DEC-2", "DEC-47"),
			take(bk(0, ahead), c10, 1_000_000_000, 1), take(bk(0, ahead), c10, 1_000_000_001, 1), take(bk(0, ahead), c10, ahead+9, 1), take(bk(0, ahead), c10, ahead+10, 1)),
		limCase("find", "from a bucket whose last is behind a monotonic now, the retry of 1 tick is the true wait (DEC-47 outside)", on("LIM-9", "LIM-12", "DEC-47"),
			take(bk(0, 0), c10, 9, 1), take(bk(0, 0), c10, 10, 1)),
		limCase("find", "FIND-25: bytes 0e 4c 40 73 6f ff reach the largest intermediate (p - 1) * 131 + 255 > 2^39; the key is 124", on("FIND-25", "LIM-16"),
			ipKey("\x0eL@so"), ipKey("\x0eL@so\xff")),
		limCase("find", "FIND-26: lim_take with maxif 0 is out of contract although a take never reads maxif (DEC-6 inside)", on("FIND-26", "LIM-4", "LIM-7", "DEC-6"),
			take(bk(1, 0), lc(1, 1, 1, 0), 0, 1)).strict(),
		limCase("find", "FIND-26: the same take with maxif 1 passes (DEC-6 outside)", on("FIND-26", "LIM-4", "DEC-6"),
			take(bk(1, 0), lc(1, 1, 1, 1), 0, 1)),
		limCase("contract", "a take with cost 0 is out of contract by VEC-5's list (DEC-41 inside)", on("LIM-7", "VEC-5", "DEC-41"),
			take(bk(1, 0), lc(1, 1, 1, 1), 0, 0)).strict(),
		limCase("contract", "the same take with cost 1 is in contract and passes (DEC-41 outside)", on("LIM-11", "VEC-5", "DEC-41"),
			take(bk(1, 0), lc(1, 1, 1, 1), 0, 1)),
		limCase("acq", "lim_acq(-5, 1) sheds, where seed 000's n + 1 <= maxif alone would acquire (DEC-42 inside)", on("LIM-14", "DEC-42"), acq(-5, 1)).strict(),
		limCase("acq", "lim_acq(0, 1) acquires as seed 000's rule says (DEC-42 outside)", on("LIM-14", "DEC-42"), acq(0, 1)),
		limCase("take", "a pass reports retry 0 and lim_cfg(0, 5, -3, 7) returns its parameters unchanged with ok 0 (DEC-44 inside)", on("LIM-11", "LIM-3", "DEC-44"),
			take(bk(1, 0), lc(1, 1, 1, 1), 0, 1), cfgOp(0, 5, -3, 7)),
		limCase("take", "a reject reports the seed's retry, at least 1 (DEC-44 outside)", on("LIM-12", "DEC-44", "PROP-4"),
			take(bk(0, 0), lc(1, 1, 1, 1), 0, 1)),
		limCase("resp", "lim_resp_503(2^31) writes 2147483648: Retry-After is not capped at 2^31 (DEC-46 inside)", on("LIM-18", "DEC-46"), resp(1<<31), resp(1<<31+1)),
		limCase("resp", "lim_resp_503(2^31 - 1) writes 2147483647 (DEC-46 outside)", on("LIM-18", "DEC-46"), resp(1<<31-1)),
		limCase("key", "the gate keys the bytes it is given: two spellings of one address get two keys (DEC-51 inside)", on("LIM-16", "FIND-3", "DEC-51"),
			ipKey("::ffff:10.0.0.1"), ipKey("10.0.0.1")),
		limCase("key", "a canonical address keys the same every time (DEC-51 outside)", on("LIM-16", "DEC-51"), ipKey("10.0.0.1"), ipKey("10.0.0.1")),
	}
}

// reviewThrottle: the throttle findings and decisions.
func reviewThrottle() []Draft {
	return []Draft{
		thrCase("find", tcfg(1, 900, 900), "FIND-20: record_failure at 2^64 - 1 returns banned 2^64 - 1, while check(2^64 - 1) is allow 0",
			on("FIND-20", "THR-13", "THR-5", "DEC-20"),
			fail("k", maxU), check("k", maxU)).withSide("DEC-20 inside"),
		thrCase("find", tcfg(2, 900, 900), "FIND-23: failures at 0 and 1 ban until 901; a failure at 500 extends the ban to 1400 (DEC-19 inside)",
			on("FIND-23", "THR-13", "STORE-5", "DEC-19"),
			fail("k", 0), fail("k", 1), check("k", 500), fail("k", 500), check("k", 1399), check("k", 1400)),
		thrCase("find", tcfg(2, 900, 900), "a failure below the threshold during a ban does not extend it: after record_success, a failure at 500 is allow 1 and the ban still ends at 901 (DEC-19 outside)",
			on("THR-12", "THR-14", "DEC-19"),
			fail("k", 0), fail("k", 1), success("k"), fail("k", 500), check("k", 900), check("k", 901)),
		thrCase("find", tcfg(3, 100, 10), "FIND-24: after a ban until 12, check is allow 0 at 12 and 99, which a seed-following caller rejects (DEC-49 inside)",
			on("FIND-24", "THR-8", "DEC-49", "DEC-26"),
			fail("k", 0), fail("k", 1), fail("k", 2), check("k", 12), check("k", 99)).withSide("DEC-26 inside"),
		thrCase("find", tcfg(3, 100, 10), "FIND-24: at 100 the failure at 0 has left the window: allow 1 (DEC-49 outside)",
			on("FIND-24", "THR-8", "DEC-49"),
			fail("k", 0), fail("k", 1), fail("k", 2), check("k", 100)),
		thrCase("config", tcfg(0, 900, 900), "new refuses threshold 0, where seed 003's new cannot fail (DEC-40 inside)", on("THR-6", "VEC-11", "DEC-40")),
		thrCase("config", tcfg(1, 900, 900), "new opens threshold 1 (DEC-40 outside)", on("THR-6", "DEC-40"), check("k", 0)),
		thrCase("keys", tcfg(2, 100, 50), "the key ff, not UTF-8, is a key like any other at level core (DEC-43 inside)", on("THR-17", "VEC-7", "DEC-43"),
			fail("\xff", 0), check("\xff", 0), check("ip:a", 0)),
		thrCase("keys", tcfg(2, 100, 50), "a UTF-8 key, as seed 003's &str (DEC-43 outside)", on("THR-17", "DEC-43"),
			fail("acct:é", 0), check("acct:é", 0)),
		thrCase("keys", tcfg(2, 100, 50), "the empty key is core: it bans like any key (DEC-55 inside)", on("THR-17", "VEC-5", "DEC-55", "DEC-23"),
			fail("", 0), fail("", 1), check("", 1), check("k", 1)).withSide("DEC-23 inside"),
		thrCase("keys", tcfg(2, 100, 50), "a non-empty key beside it (DEC-55 outside)", on("THR-17", "DEC-55"), fail("k", 0), check("k", 0)),
		thrCase("ban", tcfg(1, 100, 50), "the ban filter is now < until: banned 50 at 49 (DEC-48 inside)", on("THR-5", "STORE-2", "DEC-48"),
			fail("k", 0), check("k", 49)),
		thrCase("ban", tcfg(1, 100, 50), "and not banned at 50 without any cleanup (DEC-48 outside)", on("THR-5", "STORE-2", "DEC-48"),
			fail("k", 0), check("k", 50)),
		thrCase("store", tcfg(2, 100, 900), "five failures over threshold 2: a top-k store with k = 2 gives the same results as the exact one (DEC-54 inside)",
			on("STORE-11", "STORE-3", "STORE-4", "PROP-17", "DEC-54"),
			fail("k", 0), fail("k", 1), fail("k", 2), fail("k", 3), fail("k", 4), check("k", 4), purge(200), check("k", 200)),
		thrCase("store", tcfg(3, 100, 900), "below the threshold every store counts exactly (DEC-54 outside)", on("STORE-11", "STORE-3", "DEC-54"),
			fail("k", 0), check("k", 0)),
		faultCase("types", tcfg(2, 100, 900), "result types: verdict a string, remaining a decimal string, a failed store operation {\"error\": \"store\"}", on("VEC-18", "STORE-1", "STORE-10"),
			fail("k", 0), faults(rule("count")), check("k", 0), faults(), check("k", 0)),
	}
}
