package build

import "github.com/limcheck/limcheck/oracle"

// This file holds the cases of spec 2.0's set-associative table: a bucket
// full at now behaves as an empty way (GATE-14), the lowest empty or full
// way (GATE-15), eviction of the fullest way by refilled tokens with ties to
// the lowest (GATE-16), a set under flood and the findings FIND-14..FIND-16.

// gateForget: a bucket full at now reads untouched and is reborn, one tick
// before full it is kept (GATE-14; DEC-30, DEC-31).
func gateForget() []Draft {
	c := gcfgW(2, 1, 10, 9, 1, 1, tenth)
	return []Draft{
		gateCase("forget", c, "one tick before full (tks' = cap - 1) the bucket reads as stored (DEC-30 outside)", on("GATE-14", "DEC-30"),
			admit("a", 0), admit("a", 0), bucket("a", 19)),
		gateCase("forget", c, "at full (tks' = cap) the bucket reads untouched (DEC-30 inside)", on("GATE-14", "DEC-30"),
			admit("a", 0), admit("a", 0), bucket("a", 20)),
		gateCase("forget", c, "one tick before full a take refills by whole steps and keeps last's remainder (DEC-31 outside)", on("GATE-14", "GATE-15", "DEC-31"),
			admit("a", 0), admit("a", 0), admit("a", 19), bucket("a", 19)),
		gateCase("forget", c, "at full a take is reborn at now: last = now, not the last whole step (DEC-31 inside)", on("GATE-14", "GATE-10", "DEC-31"),
			admit("a", 0), admit("a", 0), admit("a", 25), bucket("a", 25)),
		gateCase("forget", c, "a clock step back is no refill: the bucket is not full and reads as stored", on("GATE-14", "LIM-8"),
			admit("a", 100), bucket("a", 50), bucket("a", minI), admit("a", 50)),
		gateCase("forget", gcfgW(1, 1, 10, 9, 1, 2, tenth), "a full way goes to a newcomer; one tick before full it is evicted by refilled tokens instead", on("GATE-14", "GATE-15", "GATE-16"),
			admit("a", 0), admit("b", 5), admit("c", 14), bucket("b", 14), admit("a", 15), bucket("c", 15)),
	}
}

// gateFill: the way that holds the key, else the lowest empty or full way
// (GATE-15).
func gateFill() []Draft {
	return []Draft{
		gateCase("fill", gcfgW(3, 1, 100, 9, 1, 3, tenth), "keys fill ways 0, 1, 2 in order and keep them", on("GATE-15", "GATE-17"),
			admit("a", 0), admit("b", 0), admit("c", 0), admit("b", 0), admit("a", 0)),
		gateCase("fill", gcfgW(1, 1, 10, 9, 1, 3, tenth), "the lowest of a full way (0) and an empty one (2) is taken", on("GATE-15", "GATE-14"),
			admit("a", 0), admit("b", 5), admit("c", 10), bucket("a", 10), admit("d", 10), bucket("b", 10)),
		gateCase("fill", gcfgW(1, 1, 10, 9, 1, 2, tenth), "a key keeps its own way though a lower way is full", on("GATE-15"),
			admit("a", 0), admit("b", 5), admit("b", 10)),
	}
}

// gateEvict: the way whose refilled bucket holds the most tokens goes, ties
// to the lowest way; the evicted key returns born full (GATE-16; DEC-31).
func gateEvict() []Draft {
	return []Draft{
		gateCase("evict", gcfgW(3, 1, 100, 9, 1, 2, tenth), "the fullest way goes (b: 2 tokens), not the least recently used (a: 1) (DEC-29 inside)", on("GATE-16", "DEC-29", "PROP-24"),
			admit("a", 0), admit("a", 0), admit("b", 1), admit("c", 2), bucket("b", 2), bucket("a", 2)),
		gateCase("evict", gcfgW(3, 2, 100, 9, 1, 2, tenth), "ways compare refilled tokens at now (a: 0 + 2) over stored ones (b: 1)", on("GATE-16", "LIM-10"),
			admit("a", 0), admit("a", 0), admit("a", 0), admit("b", 50), admit("b", 50), admit("c", 100), bucket("a", 100), bucket("b", 100)),
		gateCase("evict", gcfgW(1, 1, 10, 9, 1, 2, tenth), "a tie of two ways goes to the lowest, way 0 (DEC-31 inside)", on("GATE-16", "DEC-31"),
			admit("a", 0), admit("b", 0), admit("c", 0), bucket("a", 0), bucket("b", 0)),
		gateCase("evict", gcfgW(2, 1, 10, 9, 1, 3, tenth), "a tie of ways 1 and 2 above a poorer way 0 goes to way 1 (DEC-31 inside)", on("GATE-16", "DEC-31"),
			admit("a", 0), admit("a", 0), admit("b", 0), admit("c", 0), admit("d", 0), bucket("b", 0), bucket("c", 0)),
		gateCase("evict", gcfgW(3, 1, 100, 9, 1, 3, tenth), "no tie: way 2 holds the most tokens and goes though lower ways exist (DEC-31 outside)", on("GATE-16", "DEC-31"),
			admit("a", 0), admit("a", 0), admit("b", 0), admit("b", 0), admit("c", 0), admit("d", 0), bucket("c", 0)),
		gateCase("evict", gcfgW(3, 1, 100, 9, 1, 1, tenth), "the evicted key returns born full, with more tokens than it had: the set's budget pays 2, then 1", on("GATE-16", "GATE-10", "GATE-19", "PROP-24"),
			admit("a", 0), admit("a", 0), admit("b", 1), bucket("a", 1), admit("a", 2), bucket("b", 2)),
		gateCase("evict", gcfgW(1, 1, 1000, 9, 1, 1, tenth), "a newcomer to a full set is not limited while its budget pays: eviction gives it a born-full bucket", on("GATE-16", "GATE-10", "GATE-19"),
			admit("a", 0), admit("a", 0), admit("b", 0)),
	}
}

// gateFlood: a set under flood, the aimed collision of FIND-14, forgetting
// after a step back (FIND-15), turns beyond ways paid by the set's budget
// (FIND-16) and a newcomer waiting for it (FIND-27).
func gateFlood() []Draft {
	flood := gcfgW(2, 1, 1000, 99, 1, 2, tenth)
	return append(aimedCollision(),
		gateCase("flood", flood, "a set under flood: the depleted victim keeps its way and its debt, fresh keys evict each other while the set's budget pays", on("GATE-16", "GATE-19", "PROP-23"),
			admit("v", 0), admit("v", 0), admit("x1", 1), admit("x2", 1), admit("x3", 1), admit("x4", 1), bucket("v", 1), admit("v", 1)),
		gateCase("flood", gcfgW(3, 1, 1000, 99, 1, 2, tenth), "a set under flood: a victim fuller than the flood is reset to full", on("GATE-16", "PROP-24"),
			admit("v", 0), admit("x1", 1), admit("x1", 1), admit("x2", 1), bucket("v", 1), admit("v", 1), bucket("x2", 1)),
		gateCase("find", gcfgW(1, 1, 10, 10, 1, 1, 1), "FIND-15: b takes a's full way at 10; a at 5 is born again and passes", on("FIND-15", "GATE-15"),
			admit("a", 0), admit("b", 10), admit("a", 5)),
		gateCase("find", gcfgW(1, 1, 10, 10, 2, 1, 1), "FIND-15: with a and b in two sets nothing is dropped and a at 5 is limited", on("FIND-15", "GATE-14"),
			admit("a", 0), admit("b", 10), admit("a", 5)),
		gateCase("find", gcfgW(1, 1, 1000, 10, 1, 1, 1), "FIND-16: one way: b's eviction of a spends the set's budget, so a returns limited with no way and b is limited by its own bucket", on("FIND-16", "GATE-16", "GATE-19", "PROP-26"),
			admit("a", 0), admit("b", 0), admit("a", 0), admit("b", 0)),
		gateCase("find", gcfgW(1, 1, 1000, 10, 1, 2, 1), "FIND-16: two ways: a and b have their own buckets and pass once each", on("FIND-16", "GATE-15"),
			admit("a", 0), admit("b", 0), admit("a", 0), admit("b", 0)),
		gateCase("find", gcfgW(1, 1, 1000, 10, 1, 1, 1), "FIND-27: one way: c, never seen, is limited with no way and retry 1000 after b's eviction spent the set's budget (DEC-57 inside)", on("FIND-27", "GATE-19", "GATE-17", "DEC-57"),
			admit("a", 0), admit("b", 0), admit("c", 0), bucket("b", 0), bucket("c", 0), inFlight()),
		gateCase("find", gcfgW(1, 1, 1000, 10, 1, 3, 1), "FIND-27: three ways: a, b and c have their own buckets and all pass, no eviction to pay for (DEC-57 outside)", on("FIND-27", "GATE-15", "DEC-57"),
			admit("a", 0), admit("b", 0), admit("c", 0)),
	)
}

// aimedCollision is FIND-14: three attackers in the victim's one set (as an
// attacker who knows the seed arranges) send first at each tick 0..14.
func aimedCollision() []Draft {
	var ops []oracle.Op
	for now := int64(0); now < 15; now++ {
		for _, a := range []string{"x1", "x2", "x3"} {
			ops = append(ops, admit(a, now))
		}
		ops = append(ops, admit("v", now))
	}
	ops = append(ops, bucket("v", 14))
	return []Draft{
		gateCase("find", gcfgW(15, 1, 1000, 1000, 1, 2, 1_000_000),
			"FIND-14: sets 1, ways 2: three attackers send first at each tick 0..14; the victim passes its first 5 and waits for the set's budget after",
			on("FIND-14", "GATE-16", "GATE-19", "PROP-23"), ops...),
		gateCase("find", gcfgW(15, 1, 1000, 1000, 1, 3, 1_000_000),
			"FIND-14: sets 1, ways 3: the same three attackers; the victim passes 15 of 15",
			on("FIND-14", "GATE-15", "PROP-23"), ops...),
	}
}
