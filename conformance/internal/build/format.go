package build

// formatCases: the smallest case of each component, the first a reader of
// the format should load, and the cases that carry the integer extremes
// (VEC-1..VEC-14).
func formatCases() []Draft {
	return []Draft{
		limCase("vec", "the smallest lim case: no config, one op with its arguments and its expect", on("VEC-1", "VEC-2", "VEC-3", "VEC-4", "VEC-8", "VEC-9", "VEC-10", "VEC-13", "LIM-11"),
			take(bk(1, 0), lc(1, 1, 1, 1), 0, 1)),
		limCase("vec", "int64 extremes travel as decimal strings: MinInt64, MinInt64 + 1, -1, 0, 1, MaxInt64 - 1, MaxInt64", on("VEC-6", "VEC-14", "LIM-1", "LIM-8"),
			take(bk(maxI-1, maxI), lc(maxI, 1, 1, 1), minI, 1), take(bk(0, minI+1), lc(1, 1, 1, 1), -1, 1)),
		gateCase("vec", gcfg(2, 1, 10, 2, 64, tenth), "the smallest gate case: config {\"gate\": ...} and one admission", on("VEC-1", "VEC-9", "VEC-10", "GATE-7"),
			admit("a", 0)),
		thrCase("vec", tcfg(5, 900, 900), "the smallest throttle case: config {\"throttle\": ...} and one check", on("VEC-1", "VEC-9", "THR-8"),
			check("ip:192.0.2.1", 0)),
		thrCase("vec", tcfg(1, maxU, 1), "uint64 extremes travel as decimal strings: MaxInt64 + 1, MaxUint64 - 1, MaxUint64", on("VEC-6", "VEC-14", "THR-3", "THR-4"),
			fail("k", 1<<63), check("k", maxU-1), check("k", maxU)),
		faultCase("vec", fc, "the smallest throttle_faults case: set_faults, which only this component has; a subject without fault injection skips it", on("VEC-1", "VEC-12", "STORE-10"),
			faults(rule("count")), check("k", 0)),
	}
}
