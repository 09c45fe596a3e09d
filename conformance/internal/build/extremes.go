package build

import (
	"slices"
	"strings"
)

// This file holds the cases at the structural extremes where ports keep a
// size in a narrower integer, cap a table or a ring, look at only the
// first keys of a list or cut a key to a fixed length. Each is the shrunk
// counterexample limcheck fuzz found for one such planted bug
// (ports/mutants.json) that no other case caught.

// limKeyExtremes: lim_ip_key hashes every byte, however long the address
// (LIM-16).
func limKeyExtremes() []Draft {
	return []Draft{
		limCase("key", "lim_ip_key hashes every byte of a long address: 300 bytes of a differ from their first 256", on("LIM-16"),
			ipKey(strings.Repeat("a", 300)), ipKey(strings.Repeat("a", 256))),
	}
}

// gateExtremes: the set and way counts are kept whole over their domain
// (GATE-1, GATE-13).
func gateExtremes() []Draft {
	return []Draft{
		gateCase("set", gcfg(1, 1, 10, 1, 1<<32+1, 1), "sets 2^32 + 1 is kept whole, not in 32 bits: under the zero seed a's set is 2128182807", on("GATE-1", "GATE-13", "GATE-18"),
			admit("a", 0)),
		gateCase("set", gcfgW(1, 1, 10, 9, 1, 1<<32+1, 1), "ways 2^32 + 1 is kept whole, not in 32 bits: five keys of one set take ways 0..4", on("GATE-1", "GATE-15"),
			admit("a", 0), admit("b", 0), admit("c", 0), admit("d", 0), admit("e", 0), admit("a", 0)),
	}
}

// throttleExtremes: a threshold kept whole, check_any over every key of a
// long list, keys compared over every byte, and more failures counted on
// one key than a fixed ring of 16 holds (THR-1, THR-10, THR-12, THR-17,
// STORE-3, STORE-4).
func throttleExtremes() []Draft {
	long := strings.Repeat("x", 300)
	return []Draft{
		thrCase("config", tcfg(1<<16+1, 900, 900), "threshold 65537 is kept whole, not in 16 bits: an untracked key allows 65537, one failure leaves 65536", on("THR-1", "THR-8", "THR-12"),
			check("k", 0), fail("k", 0)),
		thrCase("config", tcfg(1<<32+1, 900, 900), "threshold 2^32 + 1 is kept whole, not in 32 bits: an untracked key allows 2^32 + 1", on("THR-1", "THR-8", "THR-12"),
			check("k", 0), fail("k", 0)),
		thrCase("any", tcfg(1, 100, 10), "check_any checks every key of a long list: a banned 17th and a banned 65th key ban", on("THR-10", "PROP-18"),
			fail("b", 0), checkAny(0, fillers(16, "b")...), checkAny(0, fillers(64, "b")...)),
		thrCase("key", tcfg(1, 100, 10), "keys are compared over every byte: two 301-byte keys that share their first 300 are two keys", on("THR-17", "STORE-3"),
			fail(long+"1", 0), check(long+"2", 0), check(long+"1", 0)),
		thrCase("record", tcfg(17, 100, 10), "seventeen failures of one key ban at threshold 17: a key's count is not capped at 16 stamps", on("STORE-4", "STORE-3", "THR-12", "THR-13"),
			fails("k", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)...),
	}
}

// fillers returns n keys "a" followed by last.
func fillers(n int, last string) []string {
	return append(slices.Repeat([]string{"a"}, n), last)
}
