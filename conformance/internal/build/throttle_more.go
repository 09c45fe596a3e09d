package build

// throttleAny: check_any checks each key on its own and combines (THR-9,
// THR-10; DEC-27).
func throttleAny() []Draft {
	c := tcfg(3, 100, 10)
	return []Draft{
		thrCase("any", c, "check_any of no key is allow 0, not the full quota (DEC-27 inside)", on("THR-9", "DEC-27"),
			checkAny(0)),
		thrCase("any", c, "check_any of one untracked key is allow{threshold}, as check (DEC-27 outside)", on("THR-10", "DEC-27", "PROP-18"),
			checkAny(0, "k"), check("k", 0)),
		thrCase("any", c, "check_any gives the least remaining of its keys", on("THR-10"),
			fail("a", 0), fail("b", 0), fail("b", 1), checkAny(2, "a", "b", "c")),
		thrCase("any", c, "check_any does not merge counts: two keys one failure below the ban each allow 1", on("THR-10"),
			fail("a", 0), fail("a", 1), fail("b", 0), fail("b", 1), checkAny(2, "a", "b")),
		thrCase("any", c, "check_any with one banned key is banned", on("THR-10"),
			fail("a", 0), fail("a", 1), fail("a", 2), checkAny(3, "b", "a")),
		thrCase("any", c, "check_any of two banned keys gives the latest until", on("THR-10"),
			fail("a", 0), fail("a", 1), fail("a", 2), fail("b", 5), fail("b", 6), fail("b", 7), checkAny(8, "a", "b"), checkAny(8, "b", "a")),
		thrCase("any", c, "check_any checks a repeated key again, with the same result (DEC-27 inside)", on("THR-10", "DEC-27"),
			fail("a", 0), checkAny(1, "a", "a", "a")),
		thrCase("any", c, "check_any does not depend on the order of its keys", on("THR-10", "PROP-18"),
			fail("a", 0), fail("b", 0), fail("b", 1), checkAny(2, "a", "b"), checkAny(2, "b", "a")),
	}
}

// throttleKeys: keys are opaque byte strings, the empty one included, and
// independent (THR-17; DEC-23).
func throttleKeys() []Draft {
	c := tcfg(2, 100, 10)
	return []Draft{
		thrCase("key", c, "the empty key is a key like any other: two failures ban it (DEC-23 inside)", on("THR-17", "DEC-23"),
			fail("", 0), fail("", 1), check("", 2), check("ip:1", 2)),
		thrCase("key", c, "a non-empty key bans alone; the empty key is untouched (DEC-23 outside)", on("THR-17", "DEC-23"),
			fail("ip:1", 0), fail("ip:1", 1), check("ip:1", 2), check("", 2)),
		thrCase("key", c, "banning acct:alice leaves acct:bob allowed", on("THR-17", "PROP-19"),
			fail("acct:alice", 0), fail("acct:alice", 1), check("acct:bob", 2), check("acct:alice", 2)),
		thrCase("key", c, "keys are bytes: ff and the UTF-8 text ÿ (c3 bf) are different keys", on("THR-17", "VEC-7"),
			fail("\xff", 0), fail("\xff", 1), check("\xff", 2), check("ÿ", 2)),
		thrCase("key", c, "a trailing NUL byte makes another key", on("THR-17"),
			fail("ip:1", 0), fail("ip:1", 1), check("ip:1\x00", 2)),
		thrCase("key", c, "reset of one key leaves another's ban", on("THR-17", "THR-15", "PROP-19"),
			fail("a", 0), fail("a", 1), fail("b", 0), fail("b", 1), reset("a"), check("a", 2), check("b", 2)),
	}
}

// throttlePurge: purge_expired removes what no later decision can see and
// counts the keys that stop being tracked (THR-16, STORE-8, STORE-9; DEC-21).
func throttlePurge() []Draft {
	c := tcfg(3, 100, 10)
	return []Draft{
		thrCase("purge", c, "purge_expired of an empty store counts 0", on("THR-16", "STORE-9"),
			purge(0)),
		thrCase("purge", c, "purge_expired at t + window removes the stamp t and counts its key (DEC-21 inside)", on("STORE-9", "STORE-8", "THR-16", "DEC-21"),
			fail("k", 0), purge(100), check("k", 100)),
		thrCase("purge", c, "purge_expired at t + window - 1 keeps the stamp and counts nothing (DEC-21 outside)", on("STORE-9", "STORE-8", "DEC-21"),
			fail("k", 0), purge(99), check("k", 99)),
		thrCase("purge", tcfg(1, 10, 100), "purge_expired at until clears a ban that ended and counts the key (DEC-21 inside)", on("STORE-9", "STORE-8", "DEC-21"),
			fail("k", 0), purge(100), check("k", 100)),
		thrCase("purge", tcfg(1, 10, 100), "purge_expired keeps a ban in force: the key stays tracked (DEC-21 outside)", on("STORE-9", "STORE-8", "DEC-21"),
			fail("k", 0), purge(99), check("k", 99)),
		thrCase("purge", c, "purge_expired counts keys, not stamps (DEC-21 inside)", on("STORE-9", "DEC-21", "PROP-17"),
			fail("a", 0), fail("a", 1), fail("b", 2), fail("c", 150), purge(200)),
		thrCase("purge", c, "purge_expired at MaxUint64 removes every stamp of a finite window", on("STORE-9", "THR-16"),
			fail("a", 0), fail("b", maxU-100), purge(maxU)),
		thrCase("purge", c, "a key cleared by record_success with no ban is no longer tracked: purge counts nothing", on("STORE-8", "STORE-6", "STORE-9"),
			fail("a", 0), success("a"), purge(1)),
		thrCase("purge", c, "purge_expired never changes a later decision", on("THR-16", "PROP-14"),
			fail("a", 0), fail("a", 50), purge(100), check("a", 100), check("a", 150)),
	}
}

// throttleFindings: the throttle findings' counterexamples (FIND-5,
// FIND-6, FIND-7, FIND-8, FIND-10).
func throttleFindings() []Draft {
	return []Draft{
		thrCase("find", tcfg(3, 100, 10), "FIND-5: failures at 0, 1, 2 ban until 12; check(12) is allow 0; a failure at 12 bans until 22; check(103) is allow 2",
			on("FIND-5", "THR-8", "THR-13"),
			fail("k", 0), fail("k", 1), fail("k", 2), check("k", 12), fail("k", 12), check("k", 103)),
		thrCase("find", tcfg(2, 100, 50), "FIND-6: after a ban until 51 and record_success, a failure at 2 returns allow 1 while check(2) is banned 51",
			on("FIND-6", "THR-12", "THR-14", "DEC-24"),
			fail("k", 0), fail("k", 1), success("k"), fail("k", 2), check("k", 2)).withSide("DEC-24 inside"),
		thrCase("find", tcfg(1, 900, 900), "FIND-7: a failure at 2^64 - 6 bans until 2^64 - 1, which ends the ban one second early: check(2^64 - 1) is allow 0",
			on("FIND-7", "THR-3", "DEC-20"),
			fail("k", maxU-5), check("k", maxU-1), check("k", maxU)).withSide("DEC-20 inside"),
		thrCase("find", tcfg(2, 10, 900), "FIND-8: a failure stamped 1000 counts at every now from 0 to 1009 and not at 1010",
			on("FIND-8", "THR-4", "DEC-18"),
			fail("k", 1000), check("k", 0), check("k", 1009), check("k", 1010)).withSide("DEC-18 inside"),
		thrCase("find", tcfg(2, 10, 900), "FIND-10: after purge_expired(100) removes the failure at 0, a step back to 5 sees allow 2",
			on("FIND-10", "THR-16", "STORE-9"),
			fail("k", 0), purge(100), check("k", 5)),
		thrCase("find", tcfg(2, 10, 900), "FIND-10: without the purge, the step back to 5 sees allow 1",
			on("FIND-10", "THR-4"),
			fail("k", 0), check("k", 5)),
	}
}
