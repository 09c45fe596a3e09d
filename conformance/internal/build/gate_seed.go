package build

import (
	"strconv"

	"github.com/limcheck/limcheck/model/lim"
	"github.com/limcheck/limcheck/oracle"
)

// This file holds the cases of spec 3.0's table: the keyed set index
// (GATE-18) and the eviction budget (GATE-19).

// otherSeed is a seed with no pattern in its bytes.
const otherSeed = "8f3ac2105d7e9b64e1f0a7c35b2d9e48"

// gateSeeds: a key's set is SipHash-2-4 under the seed of the key as 8
// little-endian bytes, mod sets (GATE-13, GATE-18). With sets 2^63 - 1 the
// set shows nearly all of the hash, so a port that ignores the seed, reads
// its halves or the key big-endian, runs SipHash-1-3 or takes k mod sets
// reports another set.
func gateSeeds() []Draft {
	ips := []string{"a", "10.0.0.1", "192.0.2.10", "::1", ""}
	whole := func(seed, name string) Draft {
		var ops []oracle.Op
		for _, ip := range ips {
			ops = append(ops, admit(ip, 0))
		}
		return gateCase("seed", seeded(gcfgW(2, 1, 10, 10, maxI, 1, tenth), seed),
			"under "+name+" and sets 2^63 - 1 each address's set is its key's SipHash-2-4 mod 2^63 - 1",
			on("GATE-13", "GATE-18"), ops...)
	}
	return append([]Draft{
		whole(zeroSeed, "the zero seed"),
		whole(checkSeed, "the check-value seed 000102..0f"),
		whole(ffSeed, "the all-0xff seed"),
		whole(otherSeed, "the seed "+otherSeed),
	}, seedMates()...)
}

// seedMates: the keys that share a set are the seed's, not k mod sets': two
// addresses of one set of 4 under a seed compete for its one way, where
// under the zero seed or k mod 4 they would not.
func seedMates() []Draft {
	var ds []Draft
	for _, seed := range []string{checkSeed, ffSeed, otherSeed} {
		m := firstIP("m", func(ip string) bool {
			return setOf(seed, ip, 4) == setOf(seed, "a", 4) && setOf(zeroSeed, ip, 4) != setOf(zeroSeed, "a", 4) &&
				lim.IPKey(ip)%4 != lim.IPKey("a")%4
		})
		ds = append(ds, gateCase("seed", seeded(gcfgW(1, 1, 1000, 10, 4, 1, tenth), seed),
			"under the seed "+seed+" a and "+m+" share a set of 4 and its one way: "+m+" evicts a, whose return the budget refuses",
			on("GATE-13", "GATE-18", "GATE-16", "GATE-19"),
			admit("a", 0), admit(m, 0), bucket("a", 0), admit("a", 0)))
	}
	return ds
}

// firstIP returns the first address prefix+"0", prefix+"1", ... that ok
// accepts.
func firstIP(prefix string, ok func(string) bool) string {
	for j := 0; ; j++ {
		if ip := prefix + strconv.Itoa(j); ok(ip) {
			return ip
		}
	}
}

// gateBudget: an eviction costs cap - tks' of its victim, paid from its
// set's budget, born full at the set's first eviction and reborn at now
// when full at now; a refused eviction is limited with the budget's retry and changes no way
// (GATE-16, GATE-17, GATE-19, GATE-2).
func gateBudget() []Draft {
	one := func(cap, ivl int64) *oracle.Config { return gcfgW(cap, 1, ivl, 99, 1, 1, tenth) }
	return []Draft{
		gateCase("budget", one(5, 100), "an eviction costs cap - tks' of its victim: 3 for a victim at 2 of 5, and the budget's 2 left pay a cost of 2 (GATE-19 inside)",
			on("GATE-19", "GATE-16"),
			admit("a", 0), admit("a", 0), admit("a", 0), admit("b", 0), admit("b", 0), admit("c", 0), bucket("b", 0)),
		gateCase("budget", one(5, 100), "an eviction the budget cannot pay is refused: 2 left, a cost of 3 (GATE-19 outside)",
			on("GATE-19", "GATE-16"),
			admit("a", 0), admit("a", 0), admit("a", 0), admit("b", 0), admit("b", 0), admit("b", 0), admit("c", 0), bucket("b", 0)),
		gateCase("budget", one(2, 100), "a set's budget is born full at its first eviction, tick 55, not at the gate's start: the refusal at 60 waits until 155",
			on("GATE-19", "GATE-2"),
			admit("a", 50), admit("b", 55), admit("c", 55), admit("d", 60)),
		gateCase("budget", one(1, 10), "a budget full at now is reborn at now: spent at 0, full at 15, spent again at 15, it refuses at 24 (a refill from 0 would pay) (DEC-31 inside)",
			on("GATE-19", "GATE-14", "DEC-31"),
			admit("a", 0), admit("b", 0), admit("c", 14), admit("d", 15), admit("e", 24)),
		gateCase("budget", one(2, 100), "a refused eviction is limited with no way, the budget's retry and Retry-After, in-flight unchanged, the victim untouched and the newcomer unheld",
			on("GATE-19", "GATE-17", "GATE-12", "GATE-8"),
			admit("a", 0), admit("b", 3), admit("c", 3), inFlight(), admit("d", 7), inFlight(), bucket("c", 7), bucket("d", 7), admit("c", 7)),
		budgetPerSet(),
	}
}

// budgetPerSet: each set has its own budget (GATE-19): a spent budget in
// a's set refuses there while b's set still pays.
func budgetPerSet() Draft {
	const sets = 2
	a := mates(zeroSeed, "a", sets, 2, "p")
	b := firstIP("q", func(ip string) bool { return setOf(zeroSeed, ip, sets) != setOf(zeroSeed, "a", sets) })
	bs := mates(zeroSeed, b, sets, 1, "r")
	return gateCase("budget", gcfgW(1, 1, 1000, 99, sets, 1, tenth),
		"budgets are per set: after "+a[0]+" spends the budget of a's set, "+a[1]+" is refused there while "+bs[0]+" evicts "+b+" in the other set",
		on("GATE-19", "GATE-13"),
		admit("a", 0), admit(a[0], 0), admit(a[1], 0), admit(b, 0), admit(bs[0], 0))
}
