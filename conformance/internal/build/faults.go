package build

// fc is the config of the throttle_faults cases: threshold 2, window 100 s,
// ban 10 s.
var fc = tcfg(2, 100, 10)

// faultRules: the fault rules of STORE-10 (DEC-25).
func faultRules() []Draft {
	return []Draft{
		faultCase("rule", fc, "with no fault rule every operation succeeds (DEC-25 outside)", on("STORE-10", "DEC-25"),
			faults(), fail("k", 0), check("k", 1), success("k"), reset("k"), purge(2)),
		faultCase("rule", fc, "the rule list starts empty: operations before any set_faults succeed", on("STORE-10"),
			fail("k", 0), check("k", 1), faults(rule("count")), check("k", 1)),
		faultCase("rule", fc, "a rule with no keys fails its op for every key (DEC-25 inside)", on("STORE-10", "STORE-1", "DEC-25"),
			faults(rule("count")), check("a", 0), check("b", 0)),
		faultCase("rule", fc, "a rule listing keys fails its op only for those keys", on("STORE-10"),
			faults(rule("count", "a", "c")), check("a", 0), check("b", 0), check("c", 0)),
		faultCase("rule", fc, "a purge rule listing keys never matches purge, which has no key", on("STORE-10", "THR-16"),
			faults(rule("purge", "k")), fail("k", 0), purge(200)),
		faultCase("rule", fc, "set_faults replaces the rule list as a whole", on("STORE-10"),
			faults(rule("count")), faults(rule("add_failure")), check("k", 0), fail("k", 0)),
		faultCase("rule", fc, "an empty set_faults clears every rule", on("STORE-10"),
			faults(rule("count"), rule("add_failure")), faults(), fail("k", 0), check("k", 1)),
	}
}

// faultCheck: check's store errors give unavailable, never banned (THR-7,
// THR-8).
func faultCheck() []Draft {
	return []Draft{
		faultCase("check", fc, "a ban_until fault makes check unavailable (DEC-25 inside)", on("THR-7", "STORE-10", "DEC-25"),
			faults(rule("ban_until")), check("k", 0)),
		faultCase("check", fc, "a ban_until fault on a banned key makes check unavailable, not banned", on("THR-7", "STORE-1"),
			fail("k", 0), fail("k", 1), faults(rule("ban_until")), check("k", 2)),
		faultCase("check", fc, "a count fault with no ban in force makes check unavailable", on("THR-8"),
			fail("k", 0), faults(rule("count")), check("k", 1)),
		faultCase("check", fc, "check of a banned key with a count fault is banned: the count is never read", on("THR-7", "THR-8"),
			fail("k", 0), fail("k", 1), faults(rule("count")), check("k", 2)),
	}
}

// faultRecord: record_failure's store errors and what stays recorded
// (THR-11, THR-13, STORE-1; PROP-20).
func faultRecord() []Draft {
	return []Draft{
		faultCase("record", fc, "an add_failure fault makes record_failure a store error and records nothing (DEC-25 inside)", on("THR-11", "STORE-1", "PROP-20", "DEC-25"),
			faults(rule("add_failure")), fail("k", 0), faults(), check("k", 1)),
		faultCase("record", fc, "a ban fault at the threshold is a store error, and the failure stays counted (DEC-25 inside)", on("THR-13", "STORE-1", "PROP-20", "DEC-25"),
			faults(rule("ban")), fail("k", 0), fail("k", 1), faults(), check("k", 2)),
		faultCase("record", fc, "a ban fault below the threshold does not matter: ban is not called", on("THR-12", "THR-13"),
			faults(rule("ban")), fail("k", 0)),
		faultCase("record", fc, "count and ban_until faults do not touch record_failure, which uses add_failure and ban", on("THR-11", "STORE-4"),
			faults(rule("count"), rule("ban_until")), fail("k", 0), fail("k", 1)),
	}
}

// faultOthers: record_success, reset and purge_expired return store errors
// and change nothing (THR-14, THR-15, THR-16, STORE-1).
func faultOthers() []Draft {
	return []Draft{
		faultCase("store", fc, "a clear_failures fault makes record_success a store error; the count stays", on("THR-14", "STORE-1"),
			fail("k", 0), faults(rule("clear_failures")), success("k"), faults(), check("k", 1)),
		faultCase("store", fc, "a clear fault makes reset a store error; the count and the ban stay", on("THR-15", "STORE-1"),
			fail("k", 0), fail("k", 1), faults(rule("clear")), reset("k"), faults(), check("k", 2)),
		faultCase("store", fc, "a purge fault makes purge_expired a store error and removes nothing", on("THR-16", "STORE-1"),
			fail("k", 0), faults(rule("purge")), purge(500), faults(), check("k", 50), purge(500)),
		faultCase("store", fc, "a clear fault for one key leaves reset of another working", on("THR-15", "STORE-10"),
			fail("a", 0), fail("b", 0), faults(rule("clear", "a")), reset("a"), reset("b"), check("a", 1), check("b", 1)),
	}
}

// faultAny: check_any combines unavailable between banned and allow
// (THR-10).
func faultAny() []Draft {
	return []Draft{
		faultCase("any", fc, "check_any: one unavailable key beats allow", on("THR-10"),
			faults(rule("count", "a")), checkAny(0, "a", "b")),
		faultCase("any", fc, "check_any: one banned key beats unavailable", on("THR-10"),
			fail("b", 0), fail("b", 1), faults(rule("ban_until", "a")), checkAny(2, "a", "b")),
		faultCase("any", fc, "check_any of a failing key repeated is unavailable", on("THR-10"),
			faults(rule("ban_until", "a")), checkAny(0, "a", "a")),
	}
}
