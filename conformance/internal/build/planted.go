package build

import (
	"fmt"
	"slices"

	"github.com/limcheck/limcheck/oracle"
)

// This file holds the cases that kill the planted bugs of issue 29's
// catalogue (ports/mutants.json) that no earlier case caught: limits a
// port sets itself (ways a set, keys in the table, in-flight and failure
// counts in 8 bits, maxif in 16), a way that matches its key by a short
// tag, placement and eviction read loosely, a forgetting rule by time, and
// stores that keep a ring or assume sorted stamps. Each is one scenario,
// the smallest that shows the bug, with the expectations the model gives.
// The cases of hundreds of ops take the area width, whose IDs sort after
// every other area's: a run that stops at its first failing case
// (--fail-fast, as the mutant matrix runs) reaches them only when no
// earlier case failed.

// plantedCases returns the cases of this file.
func plantedCases() []Draft {
	return slices.Concat(plantedGate(), plantedThrottle())
}

// addrs returns n addresses prefix0, prefix1, ...
func addrs(prefix string, n int) []string {
	out := make([]string, n)
	for j := range out {
		out[j] = fmt.Sprintf("%s%d", prefix, j)
	}
	return out
}

// spread returns the first n addresses prefix0, prefix1, ... whose sets
// among sets under seed are pairwise distinct (GATE-13): keys that never
// compete for a way.
func spread(seed, prefix string, sets int64, n int) []string {
	taken := map[int64]bool{}
	var out []string
	for j := 0; len(out) < n; j++ {
		ip := fmt.Sprintf("%s%d", prefix, j)
		if s := setOf(seed, ip, sets); !taken[s] {
			taken[s] = true
			out = append(out, ip)
		}
	}
	return out
}

// admits returns admit(ip, now) for each ip.
func admits(now int64, ips ...string) []oracle.Op {
	out := make([]oracle.Op, len(ips))
	for j, ip := range ips {
		out[j] = admit(ip, now)
	}
	return out
}

// plantedGate: the gate's table and counts at the sizes a port fixes.
func plantedGate() []Draft {
	keys17 := addrs("10.0.0.", 17)
	keys1025 := spread(zeroSeed, "10.1.", 2048, 1025)
	return []Draft{
		gateCase("limit", gcfgW(2, 1, 1000, 100, 1, 20, 1000000), "a set of 20 ways holds 17 live keys: each of seventeen keys of one set takes its own way, 0 to 16, without an eviction", on("GATE-1", "GATE-15", "GATE-16"),
			append(admits(0, keys17...), admits(0, keys17[16], keys17[0])...)...),
		gateCase("width", gcfgW(1, 1, 1000000, 1<<40, 2048, 1, 1000000), "the table keeps every key it places: the 1025th of 1025 addresses, each in a set of its own of 2048, is limited on its second request", on("GATE-1", "GATE-6", "GATE-10"),
			append(admits(0, keys1025...), admit(keys1025[1024], 0), bucket(keys1025[1024], 0))...),
		gateCase("width", gcfgW(300, 1, 1000, 256, 1, 1, 1000000), "in-flight is counted past 255: with maxif 256 the 257th request in flight is shed", on("GATE-4", "GATE-7", "PROP-11"),
			append(slices.Repeat([]oracle.Op{admit("a", 0)}, 257), inFlight())...),
		gateCase("limit", gcfgW(10, 1, 1000, 1<<16+1, 1, 1, 1000000), "maxif 65537 is kept whole, not in 16 bits: two requests are in flight at once", on("GATE-1", "GATE-4"),
			admit("a", 0), admit("a", 0), inFlight()),
		gateCase("limit", gcfgW(1, 1, 1<<53+1, 10, 1, 1, 1000000000), "a retry of 2^53 + 1 one-second ticks is Retry-After 2^53 + 1, exact (a float64 would say 2^53)", on("GATE-12", "PROP-13"),
			admit("a", 0), admit("a", 0)),
		gateCase("place", gcfgW(1, 1, 1000, 10, 1, 4, 1000000), "10.0.0.1 and 10.0.153.23 share a set and the low 16 bits of their keys (1086976027 and 1374875675) yet are two keys with a bucket each", on("GATE-13", "GATE-15", "PROP-23"),
			admit("10.0.0.1", 0), admit("10.0.153.23", 0), admit("10.0.0.1", 0), bucket("10.0.153.23", 0)),
		gateCase("place", gcfgW(1, 1, 10, 10, 1, 2, 1000000), "a key whose own way is full at now moves to the lowest way that is empty or full: b leaves way 1 for way 0", on("GATE-15", "GATE-14"),
			admit("a", 0), admit("b", 0), admit("b", 100), bucket("b", 100)),
		gateCase("cost", gcfgW(4, 1, 10, 10, 1, 1, 1000000), "an eviction costs cap minus the victim's tokens refilled at now, not its stored ones: a's 2 refilled tokens cost the budget 2, leaving 2 for c", on("GATE-16", "GATE-19"),
			admit("a", 0), admit("a", 0), admit("a", 0), admit("a", 0), admit("b", 20), admit("c", 20)),
		gateCase("ttl", gcfgW(2, 1, 10, 10, 1, 1, 1000000), "a bucket of 1 token refilled to cap by one step is full, so its key is born full at now: last is the request's tick, not the step's", on("GATE-14", "GATE-10", "PROP-25"),
			admit("a", 0), admit("a", 15), bucket("a", 15), admit("a", 20)),
	}
}

// plantedThrottle: counts past 8 bits, and stores that keep a ring of
// stamps, walk stamps as if sorted or clear more than their key.
func plantedThrottle() []Draft {
	return []Draft{
		thrCase("width", tcfg(300, 1000, 10), "the 257th failure in a window counts 257, not 1: threshold 300 allows 43 more", on("STORE-4", "STORE-3", "THR-12"),
			append(slices.Repeat([]oracle.Op{fail("k", 0)}, 257), check("k", 0))...),
		thrCase("stamps", tcfg(2, 50, 1), "a store keeps the largest stamps, not the last added: after a step back to 0, the two failures at 100 still count at 101", on("STORE-11", "PROP-17", "STORE-4", "THR-8"),
			fail("k", 100), fail("k", 100), fail("k", 0), check("k", 101)),
		thrCase("stamps", tcfg(3, 50, 10), "count looks at every stamp, not only the newest added: a failure at 100 recorded before one at 0 still counts at 60", on("STORE-3", "THR-4", "FIND-8"),
			fail("k", 100), fail("k", 0), check("k", 60)),
		thrCase("scope", tcfg(2, 100, 10), "record_success clears only its own key's failures: a's failure still counts after b's success", on("THR-14", "THR-17", "PROP-19"),
			fail("a", 0), success("b"), check("a", 0)),
	}
}
