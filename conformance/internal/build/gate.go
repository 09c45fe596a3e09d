package build

import "github.com/limcheck/limcheck/oracle"

// tenth is a tick of 10^8 ns, a tenth of a second, as in the worked example.
const tenth = 100_000_000

// gateConfig: a gate needs a valid lim config, sets >= 1, ways >= 1 and
// tick_nanos >= 1 (GATE-1; DEC-17).
func gateConfig() []Draft {
	refused := func(desc string, cfg *oracle.Config, clauses ...string) Draft {
		return gateCase("config", cfg, desc+" (DEC-17 inside)", on(append([]string{"GATE-1", "DEC-17", "VEC-11"}, clauses...)...))
	}
	return []Draft{
		refused("a gate with sets 0 is refused", gcfg(2, 1, 10, 2, 0, tenth)),
		refused("a gate with sets -1 is refused", gcfg(2, 1, 10, 2, -1, tenth)),
		refused("a gate with sets MinInt64 is refused", gcfg(2, 1, 10, 2, minI, tenth)),
		refused("a gate with ways 0 is refused", gcfgW(2, 1, 10, 2, 64, 0, tenth)),
		refused("a gate with ways -1 is refused", gcfgW(2, 1, 10, 2, 64, -1, tenth)),
		refused("a gate with ways MinInt64 is refused", gcfgW(2, 1, 10, 2, 64, minI, tenth)),
		refused("a gate with tick_nanos 0 is refused", gcfg(2, 1, 10, 2, 64, 0)),
		refused("a gate with tick_nanos -1 is refused", gcfg(2, 1, 10, 2, 64, -1)),
		refused("a gate with cap 0 is refused: its lim config is not valid", gcfg(0, 1, 10, 2, 64, tenth), "LIM-4"),
		refused("a gate with refil 0 is refused", gcfg(2, 0, 10, 2, 64, tenth), "LIM-4"),
		refused("a gate with ivl 0 is refused", gcfg(2, 1, 0, 2, 64, tenth), "LIM-4"),
		refused("a gate with maxif 0 is refused", gcfg(2, 1, 10, 0, 64, tenth), "LIM-4"),
		refused("a gate with maxif -1 is refused", gcfg(2, 1, 10, -1, 64, tenth), "LIM-4"),
		refused("a gate with every lim parameter MinInt64 is refused", gcfg(minI, minI, minI, minI, 64, tenth), "LIM-4"),
		gateCase("config", gcfgW(2, 1, 10, 2, 1, 1, 1), "a gate with sets 1, ways 1 and tick_nanos 1 opens (DEC-17 outside)", on("GATE-1", "GATE-2", "DEC-17", "VEC-11"),
			inFlight()),
		gateCase("config", gcfg(1, 1, 1, 1, 64, tenth), "a gate with every lim parameter 1 opens (DEC-17 outside)", on("GATE-1", "DEC-17"),
			admit("a", 0)),
		gateCase("config", gcfgW(maxI, maxI, maxI, maxI, maxI, maxI, maxI), "a gate with every parameter MaxInt64 opens: sets * ways is exact, not an int64", on("GATE-1", "LIM-1", "VEC-6"),
			admit("a", 0), bucket("a", 0)),
		gateCase("config", gcfgW(1, 1, 10, 10, 1, maxI, tenth), "sets 1, ways MaxInt64 is a gate that never evicts: three keys keep their buckets", on("GATE-1", "GATE-15"),
			admit("a", 0), admit("b", 0), admit("c", 0), bucket("a", 0), admit("a", 0)),
	}
}

// gateNew: a new gate holds nothing (GATE-2).
func gateNew() []Draft {
	return []Draft{
		gateCase("new", gcfg(2, 1, 10, 2, 64, tenth), "a new gate has nothing in flight and no way holds a key: no tks, no last", on("GATE-2", "VEC-10"),
			inFlight(), bucket("a", 0), bucket("", minI), bucket("10.0.0.1", maxI)),
		gateCase("new", gcfg(2, 1, 10, 2, 64, tenth), "an admission fills a way for its own key only: another key of its set reads untouched", on("GATE-2", "GATE-13", "VEC-10"),
			admit("a", 0), bucket("!", 0), bucket("b", 0), bucket("a", 0)),
	}
}

// gateKeys: a key's set is the SipHash of lim_ip_key under the seed, mod
// sets, and its bucket is its own (GATE-13, GATE-18; DEC-29).
func gateKeys() []Draft {
	return []Draft{
		gateCase("set", gcfg(2, 1, 10, 10, 64, tenth), "under the zero seed the set of a is siphash(seed, 97) mod 64 = 1; it fills way 0", on("GATE-13", "GATE-17", "GATE-18"),
			admit("a", 0), bucket("a", 0)),
		gateCase("set", gcfg(2, 1, 10, 10, 1, tenth), "with one set every key gets its own way and bucket (DEC-29 inside)", on("GATE-13", "GATE-15", "DEC-29"),
			admit("a", 0), admit("b", 0), admit("c", 0), admit("a", 0), admit("a", 0), bucket("b", 0)),
		gateCase("set", gcfg(1, 1, 10, 10, 64, tenth), "keys in different sets have separate buckets (DEC-29 outside)", on("GATE-13", "DEC-29"),
			admit("a", 0), admit("b", 0), admit("a", 0)),
		gateCase("set", gcfg(1, 1, 10, 10, 64, tenth), "under the zero seed a and ! are both in set 1 of 64 but hold two ways and two tokens (DEC-29 inside)", on("GATE-13", "DEC-29", "PROP-23"),
			admit("a", 0), admit("!", 0), admit("a", 0), bucket("!", 0)),
		gateCase("set", gcfg(2, 1, 10, 10, 65536, tenth), "the set of 10.0.0.1 among 65536 sets is its key's SipHash under the zero seed mod 65536", on("GATE-13", "GATE-18"),
			admit("10.0.0.1", 0), bucket("10.0.0.1", 0)),
	}
}

// gateShed: the in-flight gate runs first and a shed touches nothing
// (GATE-4, GATE-9; DEC-15).
func gateShed() []Draft {
	c := gcfg(10, 1, 10, 1, 64, tenth)
	return []Draft{
		gateCase("shed", c, "a shed reads and writes no way: the shed address's key stays unheld (DEC-15 inside)", on("GATE-4", "GATE-17", "DEC-15", "PROP-11"),
			admit("a", 0), admit("b", 0), bucket("b", 0), inFlight()),
		gateCase("shed", c, "a shed answers verdict shed, retry 0, Retry-After 1 and lim_resp_503(1)", on("GATE-9", "GATE-4"),
			admit("a", 0), admit("a", 1)),
		gateCase("shed", c, "a shed leaves in-flight unchanged; after a release the next admission passes", on("GATE-4", "GATE-11"),
			admit("a", 0), admit("a", 0), inFlight(), release(), admit("a", 0)),
		gateCase("shed", gcfg(10, 1, 10, 2, 64, tenth), "with maxif 2 the third concurrent admission sheds though its bucket is full", on("GATE-4"),
			admit("a", 0), admit("b", 0), admit("c", 0)),
		gateCase("shed", gcfg(1, 1, 10, 1, 64, tenth), "a shed spends no token: the shed address passes once a place is free (DEC-15 inside)", on("GATE-4", "DEC-15", "GATE-10"),
			admit("a", 0), admit("b", 0), release(), admit("b", 0)),
		gateCase("shed", gcfgW(1, 1, 10, 1, 1, 1, tenth), "a shed evicts nothing: the one way keeps its depleted key (DEC-15 inside)", on("GATE-4", "GATE-16", "DEC-15"),
			admit("a", 0), admit("b", 0), bucket("a", 0), release(), admit("a", 0)),
	}
}

// gateAdmit: one token per admission, the way keeps the take's bucket,
// pass and limited verdicts (GATE-5..GATE-8; DEC-15, DEC-16).
func gateAdmit() []Draft {
	c2, c1, c3 := gcfg(2, 1, 10, 10, 64, tenth), gcfg(1, 1, 10, 10, 64, tenth), gcfg(3, 1, 10, 10, 64, tenth)
	return []Draft{
		gateCase("admit", c2, "each admission takes one token: the last token passes (DEC-16 inside)", on("GATE-5", "DEC-16"),
			admit("a", 0), admit("a", 0), bucket("a", 0)),
		gateCase("admit", c2, "with no token left an admission is limited (DEC-16 outside)", on("GATE-5", "GATE-8", "DEC-16"),
			admit("a", 0), admit("a", 0), admit("a", 0)),
		gateCase("admit", c2, "a pass adds one in-flight and has retry 0, Retry-After 0 and no response (DEC-15 outside)", on("GATE-7", "DEC-15", "VEC-10"),
			admit("a", 0), inFlight()),
		gateCase("admit", c1, "a limited admission keeps in-flight unchanged: lim_acq's place is not kept (DEC-15 inside)", on("GATE-8", "DEC-15", "PROP-11"),
			admit("a", 0), admit("a", 0), inFlight()),
		gateCase("admit", c1, "a limited admission reports retry in ticks, Retry-After in seconds and the 503 response", on("GATE-8", "GATE-12"),
			admit("a", 0), admit("a", 3)),
		gateCase("admit", c2, "the way keeps the take's bucket on a pass", on("GATE-6"),
			admit("a", 5), bucket("a", 5)),
		gateCase("admit", c1, "the way keeps the take's bucket on a reject: unchanged when no whole step passed", on("GATE-6", "GATE-8"),
			admit("a", 0), admit("a", 9), bucket("a", 9)),
		gateCase("admit", c3, "a pass after whole steps short of cap moves last by whole steps and keeps the remainder", on("GATE-6", "LIM-9"),
			admit("a", 0), admit("a", 0), admit("a", 0), admit("a", 25), bucket("a", 25)),
	}
}

// gateBirth: a key no way holds is born full at its take (GATE-10).
func gateBirth() []Draft {
	c := gcfg(3, 1, 10, 10, 64, tenth)
	return []Draft{
		gateCase("birth", c, "a key no way holds is born full at its first take, last = that tick", on("GATE-10", "LIM-6"),
			admit("a", -7), bucket("a", -7)),
		gateCase("birth", c, "a key first taken at MinInt64 is born full at MinInt64 (DEC-28 inside)", on("GATE-10", "DEC-28"),
			admit("a", minI), bucket("a", minI)),
		gateCase("birth", c, "a key first taken at MaxInt64 is born full at MaxInt64", on("GATE-10"),
			admit("a", maxI), bucket("a", maxI)),
		gateCase("birth", c, "a key is born at its own first tick, not at the gate's first", on("GATE-10", "GATE-2"),
			admit("a", 0), admit("b", 100), bucket("b", 100)),
	}
}

// gateRelease: release floors at 0 (GATE-11).
func gateRelease() []Draft {
	c := gcfg(2, 1, 10, 2, 64, tenth)
	return []Draft{
		gateCase("release", c, "a release after a pass gives the place back", on("GATE-11"),
			admit("a", 0), release(), inFlight()),
		gateCase("release", c, "an extra release floors in-flight at 0", on("GATE-11", "LIM-15"),
			admit("a", 0), release(), release(), inFlight()),
		gateCase("release", c, "a release on a new gate floors at 0", on("GATE-11", "GATE-2"),
			release(), inFlight()),
	}
}
