package build

import "github.com/limcheck/limcheck/oracle"

// throttleConfig: a config is valid iff all three fields are >= 1; the
// default is {5, 900, 900} (THR-1, THR-2, THR-6; DEC-22).
func throttleConfig() []Draft {
	refused := func(desc string, cfg *oracle.Config) Draft {
		return thrCase("config", cfg, desc+" (DEC-22 inside)", on("THR-1", "THR-6", "DEC-22", "VEC-11"))
	}
	return []Draft{
		refused("threshold 0 is refused", tcfg(0, 900, 900)),
		refused("window_secs 0 is refused", tcfg(5, 0, 900)),
		refused("ban_secs 0 is refused", tcfg(5, 900, 0)),
		refused("a config of three zeros is refused", tcfg(0, 0, 0)),
		thrCase("config", tcfg(1, 1, 1), "threshold, window_secs and ban_secs 1 open: one failure bans for one second (DEC-22 outside)", on("THR-1", "THR-6", "DEC-22", "THR-5"),
			fail("k", 0), check("k", 0), check("k", 1)),
		thrCase("config", tcfg(1, maxU, maxU), "window_secs and ban_secs MaxUint64 open; a failure at 0 bans until MaxUint64", on("THR-1", "THR-3", "VEC-6"),
			fail("k", 0), check("k", maxU-1), check("k", maxU)),
		thrCase("config", tcfg(256, 900, 900), "threshold 256 opens and is kept whole: an untracked key allows 256, one failure leaves 255 (DEC-22 outside)", on("THR-1", "THR-8", "THR-12", "DEC-22"),
			check("k", 0), fail("k", 0)),
		thrCase("config", tcfg(5, 900, 900), "the default config {5, 900, 900}: four failures leave allow 1, the fifth bans until now + 900", on("THR-2", "THR-12", "THR-13"),
			seq(fails("ip:192.0.2.1", 0, 1, 2, 3), ops(fail("ip:192.0.2.1", 4), check("ip:192.0.2.1", 903), check("ip:192.0.2.1", 904)))...),
	}
}

// throttleCheck: check reads the ban, then the count (THR-7, THR-8;
// STORE-2, STORE-3; DEC-26).
func throttleCheck() []Draft {
	c := tcfg(3, 100, 10)
	return []Draft{
		thrCase("check", c, "check of an untracked key is allow{threshold}: ban-until 0, count 0", on("THR-8", "STORE-2", "STORE-3"),
			check("k", 0)),
		thrCase("check", c, "check counts the failures in the window: allow{threshold - count}", on("THR-8", "STORE-3"),
			fail("k", 0), fail("k", 5), check("k", 6)),
		thrCase("check", c, "a banned key's check is banned{until}", on("THR-7", "THR-5"),
			fail("k", 0), fail("k", 1), fail("k", 2), check("k", 3)),
		thrCase("check", c, "a ban holds at until - 1 and not at until: until is the first second without it", on("THR-5"),
			fail("k", 0), fail("k", 1), fail("k", 2), check("k", 11), check("k", 12)),
		thrCase("check", tcfg(2, 100, 10), "a count at the threshold with no ban in force is allow 0 (DEC-26 inside)", on("THR-8", "DEC-26"),
			fail("k", 0), fail("k", 1), check("k", 11)),
		thrCase("check", tcfg(2, 100, 10), "a count of threshold - 1 is allow 1 (DEC-26 outside)", on("THR-8", "DEC-26"),
			fail("k", 0), check("k", 1)),
		thrCase("check", tcfg(2, 100, 10), "a count above the threshold with no ban in force is allow 0, never less (DEC-26 inside)", on("THR-8", "DEC-26"),
			fail("k", 0), fail("k", 1), fail("k", 11), check("k", 21)),
	}
}

// throttleWindow: a stamp t counts at now iff t + window > now, exactly,
// with no upper bound (THR-4, STORE-3; DEC-18).
func throttleWindow() []Draft {
	c := tcfg(3, 100, 10)
	return []Draft{
		thrCase("window", c, "a stamp t still counts at now = t + window - 1 (DEC-18 outside)", on("THR-4", "STORE-3", "DEC-18"),
			fail("k", 0), check("k", 99)),
		thrCase("window", c, "a stamp t no longer counts at now = t + window (DEC-18 inside)", on("THR-4", "STORE-3", "DEC-18"),
			fail("k", 0), check("k", 100)),
		thrCase("window", c, "a stamp later than now, after a clock step back, counts (DEC-18 inside)", on("THR-4", "STORE-3", "DEC-18"),
			fail("k", 1000), check("k", 0)),
		thrCase("window", tcfg(3, maxU, 10), "t + window overflows uint64 and is compared exactly: a stamp at MaxUint64 - 1 counts at MaxUint64 (DEC-28 inside)", on("THR-4", "DEC-28"),
			fail("k", maxU-1), check("k", maxU)),
		thrCase("window", tcfg(3, 1, 10), "with window_secs 1 a stamp counts only in its own second (DEC-28 outside)", on("THR-4", "DEC-28"),
			fail("k", 7), check("k", 7), check("k", 8)),
		thrCase("window", c, "failures at 2^63 and 2^63 + 1 seconds, beyond int64, count (DEC-28 inside)", on("THR-4", "DEC-28"),
			fail("k", 1<<63), fail("k", 1<<63+1), check("k", 1<<63+1)),
	}
}

// throttleBan: the threshold-th failure bans until now + ban_secs,
// saturated, never shortened (THR-3, THR-13, STORE-5; DEC-19, DEC-20).
func throttleBan() []Draft {
	return []Draft{
		thrCase("ban", tcfg(3, 100, 10), "failures return allow{threshold - count} until the threshold-th bans until now + ban_secs", on("THR-12", "THR-13", "STORE-4", "PROP-21"),
			fails("k", 0, 1, 2)...),
		thrCase("ban", tcfg(2, 1000, 100), "a failure after a clock step back does not shorten a ban (DEC-19 inside)", on("STORE-5", "THR-13", "DEC-19", "PROP-15"),
			fail("k", 500), fail("k", 501), fail("k", 10), check("k", 600)),
		thrCase("ban", tcfg(2, 1000, 100), "a later failure while banned extends the ban (DEC-19 outside)", on("STORE-5", "THR-13", "DEC-19"),
			fail("k", 0), fail("k", 1), fail("k", 50), check("k", 149)),
		thrCase("ban", tcfg(1, 900, 900), "now + ban_secs = MaxUint64 exactly is not saturated (DEC-20 outside)", on("THR-3", "DEC-20"),
			fail("k", maxU-900)),
		thrCase("ban", tcfg(1, 900, 900), "now + ban_secs = MaxUint64 - 1 fits (DEC-20 outside)", on("THR-3", "DEC-20", "DEC-1"),
			fail("k", maxU-901)).withSide("DEC-1 outside"),
		thrCase("ban", tcfg(1, 900, maxU), "now 1 + ban_secs MaxUint64 saturates at MaxUint64 (DEC-20 inside)", on("THR-3", "DEC-20", "DEC-1"),
			fail("k", 1)).withSide("DEC-1 inside"),
		thrCase("ban", tcfg(1, 900, 900), "a failure at MaxUint64 bans until MaxUint64 and the stamp counts (DEC-20 inside)", on("THR-3", "DEC-20", "THR-5"),
			fail("k", maxU), check("k", maxU)),
	}
}

// throttleRecord: record_failure's outcome follows the count; success
// clears the count and keeps the ban; reset clears both (THR-12, THR-14,
// THR-15, STORE-6, STORE-7; DEC-24).
func throttleRecord() []Draft {
	c := tcfg(2, 100, 50)
	return []Draft{
		thrCase("record", tcfg(2, 10, 100), "record_failure below the threshold while banned returns allow once the window forgot the ban's failures (DEC-24 inside)", on("THR-12", "DEC-24", "FIND-6"),
			fail("k", 0), fail("k", 1), fail("k", 50), check("k", 50)),
		thrCase("record", c, "record_failure at the threshold while banned writes the ban again, never shorter (DEC-24 outside)", on("THR-13", "DEC-24", "STORE-5"),
			fail("k", 0), fail("k", 1), fail("k", 2)),
		thrCase("record", c, "record_success clears the count: check allows the full threshold", on("THR-14", "STORE-6"),
			fail("k", 0), success("k"), check("k", 1)),
		thrCase("record", c, "record_success keeps a ban in force", on("THR-14", "STORE-6", "PROP-16"),
			fail("k", 0), fail("k", 1), success("k"), check("k", 2)),
		thrCase("record", c, "record_success of an untracked key succeeds", on("THR-14"),
			success("k"), check("k", 0)),
		thrCase("record", c, "reset clears the count and the ban", on("THR-15", "STORE-7"),
			fail("k", 0), fail("k", 1), reset("k"), check("k", 2)),
		thrCase("record", c, "reset of an untracked key succeeds", on("THR-15", "STORE-7"),
			reset("k"), check("k", 0)),
		thrCase("record", c, "the add_failure count includes the new stamp: the first failure leaves threshold - 1", on("STORE-4", "THR-12"),
			fail("k", 0)),
		thrCase("record", c, "two failures in the same second are two stamps: the second one bans", on("STORE-4", "STORE-3", "THR-12", "THR-13"),
			fail("k", 0), fail("k", 0)),
	}
}
