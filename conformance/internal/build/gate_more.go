package build

import "github.com/limcheck/limcheck/oracle"

// gateRetryAfter: Retry-After = max(1, ceil(retry * tick_nanos / 10^9)),
// exact, saturated (GATE-12; DEC-13, DEC-1). Each case spends the one token
// of a's bucket at tick 0 and is limited with retry ivl at tick 0.
func gateRetryAfter() []Draft {
	limited := func(desc string, ivl, tick int64, clauses ...string) Draft {
		return gateCase("retry", gcfg(1, 1, ivl, 10, 64, tick), desc, on(append([]string{"GATE-12"}, clauses...)...),
			admit("a", 0), admit("a", 0))
	}
	return []Draft{
		limited("10 ticks of 0.15 s is 1.5 s, reported as Retry-After 2 (DEC-13 inside)", 10, 150_000_000, "DEC-13", "PROP-13"),
		limited("10 ticks of 0.1 s is exactly 1 s: Retry-After 1, not rounded up (DEC-13 outside)", 10, tenth, "DEC-13"),
		limited("10 ticks of 1 ns is rounded up to the least Retry-After, 1 (DEC-13 inside)", 10, 1, "DEC-13"),
		limited("20 ticks of 0.1 s is exactly 2 s: Retry-After 2 (DEC-13 outside)", 20, tenth, "DEC-13"),
		limited("20 ticks of 100000001 ns is 1 ns over 2 s: Retry-After 3 (DEC-13 inside)", 20, 100_000_001, "DEC-13", "PROP-13"),
		limited("retry * tick_nanos overflows int64 and is computed exactly (DEC-1 inside)", 10, maxI, "DEC-1", "LIM-1"),
		limited("a Retry-After above MaxInt64 seconds saturates at MaxInt64 (DEC-1 inside)", maxI, maxI, "DEC-1", "LIM-13"),
		limited("MaxInt64 ticks of one second is exactly MaxInt64 s, not saturated (DEC-1 outside)", maxI, 1_000_000_000, "DEC-1"),
	}
}

// gateTime: admissions at the ends of the tick domain (LIM-1, LIM-8 at the
// gate; DEC-1, DEC-2).
func gateTime() []Draft {
	return []Draft{
		gateCase("time", gcfg(2, 1, 1, 10, 64, tenth), "admissions at MinInt64 then MaxInt64: the steps between are computed exactly (DEC-1 inside)", on("GATE-6", "LIM-1", "DEC-1"),
			admit("a", minI), admit("a", maxI), bucket("a", maxI)),
		gateCase("time", gcfg(1, 1, 10, 10, 64, tenth), "admissions at MaxInt64 then MinInt64: the step back mints nothing (DEC-2 inside)", on("GATE-6", "LIM-8", "DEC-2"),
			admit("a", maxI), admit("a", minI), bucket("a", minI)),
		gateCase("time", gcfg(1, 1, 10, 10, 64, tenth), "admissions at MaxInt64 - 1 then MaxInt64: no whole step (DEC-2 outside)", on("GATE-6", "LIM-9", "DEC-2"),
			admit("a", maxI-1), admit("a", maxI), bucket("a", maxI)),
	}
}

// gateFindings: the gate findings' counterexamples (FIND-2, FIND-9,
// FIND-12 at the gate).
func gateFindings() []Draft {
	shared := func(sets int64) *oracle.Config { return gcfg(1, 1, 10, 10, sets, tenth) }
	return []Draft{
		gateCase("find", gcfg(10, 1, 1, 1, 64, tenth), "FIND-9: a holding the one place in flight sheds b though b's bucket is full", on("FIND-9", "GATE-4"),
			admit("a", 0), admit("b", 0)),
		gateCase("find", shared(1009), "FIND-2: among 1009 sets 10.23.191.7 is the key of 10.17.102.130 and finds its token spent", on("FIND-2", "GATE-13", "PROP-12"),
			admit("10.17.102.130", 0), admit("10.23.191.7", 0)),
		gateCase("find", shared(65536), "FIND-2: among 65536 sets too, 10.23.191.7 shares the bucket of 10.17.102.130", on("FIND-2", "GATE-13"),
			admit("10.17.102.130", 0), admit("10.23.191.7", 0)),
		gateCase("find", shared(64), "FIND-12: \\x00a is the key of a and shares its bucket", on("FIND-12", "GATE-13"),
			admit("a", 0), admit("\x00a", 0)),
	}
}

// gateExample: spec.md's worked example, step by step.
func gateExample() []Draft {
	return []Draft{
		gateCase("example", gcfg(2, 1, 10, 2, 64, tenth), "the worked example: two passes, a shed, two releases, a limited, a pass after one step",
			on("GATE-4", "GATE-5", "GATE-9", "GATE-10", "GATE-11", "GATE-12", "GATE-15", "LIM-9", "LIM-12"),
			admit("a", 0), bucket("a", 0), admit("a", 1), bucket("a", 1), admit("b", 2), release(), release(), inFlight(),
			admit("a", 4), admit("a", 10), bucket("a", 10)),
	}
}
