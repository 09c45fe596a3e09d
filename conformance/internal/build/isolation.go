package build

// isolation: twin cases, run on two instances of one config opened side by
// side (VEC-15), so that state shared between instances fails (PROTO-12).
func isolation() []Draft {
	twin := func(d Draft) Draft {
		d.Twin = true
		return d
	}
	g := gcfg(1, 1, 10, 1, 64, 1)
	t := tcfg(2, 100, 50)
	return []Draft{
		twin(gateCase("twin", g, "two gates of one config side by side: each admits the same address once, then limits it (buckets are per instance)",
			on("VEC-15", "PROTO-12", "GATE-5"), admit("10.0.0.1", 0), release(), admit("10.0.0.1", 1), bucket("10.0.0.1", 1))),
		twin(gateCase("twin", g, "two gates of one config side by side: each has its own in-flight count (maxif 1 each)",
			on("VEC-15", "PROTO-12", "GATE-4"), admit("10.0.0.1", 0), inFlight(), admit("10.0.0.2", 0), release(), inFlight())),
		twin(thrCase("twin", t, "two throttles of one config side by side: each counts only its own failures (threshold 2)",
			on("VEC-15", "PROTO-12", "THR-12"), fail("k", 0), check("k", 1), fail("k", 1), check("k", 2), purge(200))),
		twin(thrCase("twin", t, "two throttles of one config side by side: a reset on each clears only its own key",
			on("VEC-15", "PROTO-12", "THR-15"), fail("k", 0), reset("k"), fail("k", 1), check("k", 2))),
		twin(faultCase("twin", t, "two throttles over fault stores of one config side by side: each counts only its own failures",
			on("VEC-15", "PROTO-12", "STORE-10"), faults(rule("ban", "other")), fail("k", 0), fail("k", 1), check("k", 2))),
	}
}
