package gate_test

import (
	"fmt"
	"testing"

	"github.com/limcheck/limcheck/model/gate"
	"github.com/limcheck/limcheck/model/lim"
)

// TestFind9InFlightGateIsGlobal checks FIND-9: the in-flight gate is global,
// not per address: with lim_cfg(10, 1, 1, 1), admit("a", 0) passes and is not
// released; admit("b", 0) is shed though b's bucket is full.
func TestFind9InFlightGateIsGlobal(t *testing.T) {
	runCase(t, gateCase{"FIND-9", "one unreleased request sheds every other address",
		cfg(10, 1, 1, 1, 64, gate.NanosPerSecond), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(9, 0)),
			adm("b", t0, shed(setB), 1, nil),
			adm("10.0.0.1", t0, shed(setIP), 1, nil),
		}})
}

// TestFind2SharedKeySharesBucket checks the gate consequence of FIND-2:
// lim_ip_key("10.17.102.130") = lim_ip_key("10.23.191.7") = 2422100051, so the
// two are one key (GATE-13) in every table and one spends the other's token.
// The linear pairs (.131, .8) and (.132, .9) collide too.
func TestFind2SharedKeySharesBucket(t *testing.T) {
	pairs := [][2]string{
		{"10.17.102.130", "10.23.191.7"},
		{"10.17.102.131", "10.23.191.8"},
		{"10.17.102.132", "10.23.191.9"},
	}
	for _, p := range pairs {
		if k1, k2 := lim.IPKey(p[0]), lim.IPKey(p[1]); k1 != k2 {
			t.Errorf("IPKey(%q) = %d, IPKey(%q) = %d, want equal", p[0], k1, p[1], k2)
		}
	}
	if k := lim.IPKey(pairs[0][0]); k != 2422100051 {
		t.Errorf("IPKey(%q) = %d, want 2422100051", pairs[0][0], k)
	}
	setCounts := []int64{1, 7, 64, 1 << 20, 2422100051, 2422100052, maxT}
	for _, sets := range setCounts {
		for _, p := range pairs {
			t.Run(fmt.Sprintf("%d sets %s %s", sets, p[0], p[1]), func(t *testing.T) {
				set := mustNew(t, cfg(1, 1, 10, 5, sets, 1)).SetOf(p[0])
				runCase(t, gateCase{"FIND-2", "the second address finds the first one's bucket empty",
					cfg(1, 1, 10, 5, sets, 1), []int64{0, 10}, []step{
						adm(p[0], t0, pass(set), 1, bkt(0, 0)),
						adm(p[1], t0, limited(set, 10, 1), 1, bkt(0, 0)),
						adm(p[1], t1, pass(set), 2, bkt(0, 10)),
						adm(p[0], t1, limited(set, 10, 1), 2, bkt(0, 10)),
					}})
			})
		}
	}
}

// TestWorkedExample walks spec.md's "Worked example": a gate with
// lim_cfg(2, 1, 10, 2), 64 sets of 4 ways, tick_nanos 100000000 and the zero
// seed, row by row: "a" (key 97, siphash 9317687229460025665) is in set 1.
func TestWorkedExample(t *testing.T) {
	g := mustNew(t, cfg(2, 1, 10, 2, 64, 100_000_000))
	if g.Config().Seed != (gate.Seed{}) {
		t.Fatalf("Config().Seed = %s, want the zero seed", g.Config().Seed)
	}
	if k, h, s := lim.IPKey("a"), gate.SipHash(gate.Seed{}, 97), g.SetOf("a"); k != 97 || h != 9317687229460025665 || s != 1 {
		t.Fatalf(`IPKey("a") = %d, SipHash(0, 97) = %d, SetOf("a") = %d; want 97, 9317687229460025665, 1`, k, h, s)
	}
	ticks := []int64{0, 1, 2, 3, 4, 10} // t0..t5: the table's tick column
	rows := []struct {
		clause, reason string
		steps          []step
	}{
		{"GATE-10", `tick 0: admit("a", 0): pass, set 1, way 0, in-flight 1, bucket {1, 0}: born full, one token (GATE-13, GATE-18)`, []step{
			adm("a", t0, passW(1, 0), 1, bkt(1, 0)),
		}},
		{"LIM-9", `tick 1: admit("a", 1): pass, in-flight 2, bucket {0, 0}: no step yet`, []step{
			adm("a", t1, passW(1, 0), 2, bkt(0, 0)),
		}},
		{"GATE-4", `tick 2: admit("b", 2): shed, Retry-After 1: 2 in flight (GATE-9)`, []step{
			adm("b", t2, shed(setB), 2, nil),
		}},
		{"GATE-11", "tick 3: release() twice: in-flight 0", []step{
			rel(1, "a", bkt(0, 0)),
			rel(0, "a", bkt(0, 0)),
		}},
		{"GATE-12", `tick 4: admit("a", 4): limited, retry 10 ticks, Retry-After 1 s (LIM-12)`, []step{
			adm("a", t4, limited(1, 10, 1), 0, bkt(0, 0)),
		}},
		{"LIM-9", `tick 10: admit("a", 10): pass, bucket {0, 10}: one whole step`, []step{
			adm("a", t5, pass(1), 1, bkt(0, 10)),
		}},
	}
	for _, r := range rows {
		checkLabel(t, r.clause, r.reason)
		runSteps(t, g, ticks, r.steps)
		if t.Failed() {
			t.Fatalf("row %q", r.reason)
		}
	}
}

// find14 runs FIND-14's scene: lim_cfg(15, 1, 1000, 1000), one set of ways
// ways, tick_nanos 1000000; at each tick t = 0..14 the attackers x1, x2, x3
// send one request each, then the victim v sends one. It returns the
// victim's and the attackers' passes and the victim's decisions.
func find14(t *testing.T, ways int64) (victim, attackers int, ds []gate.Decision) {
	t.Helper()
	g := mustNew(t, cfgW(15, 1, 1000, 1000, 1, ways, 1_000_000))
	for now := int64(0); now < 15; now++ {
		for _, a := range []string{"x1", "x2", "x3"} {
			if g.Admit(a, now).Verdict == gate.Pass {
				attackers++
			}
		}
		d := g.Admit("v", now)
		if d.Verdict == gate.Pass {
			victim++
		}
		ds = append(ds, d)
	}
	return victim, attackers, ds
}

// TestFind14AimedCollisionLeavesVictim checks FIND-14: an aimed collision
// spends none of its victim's tokens, but one that knows the seed can make
// its victim wait. With every key in one set of 2 ways (as an attacker who
// knows the seed would arrange), the victim passes its first 5 and is
// limited for the rest of the run, with no way (the set's budget refused
// its return); the attackers pass 35 of the 45 their own buckets allow.
// With 3 ways the victim passes 15 of 15, as alone.
func TestFind14AimedCollisionLeavesVictim(t *testing.T) {
	victim, attackers, ds := find14(t, 2)
	if victim != 5 || attackers != 35 {
		t.Errorf("ways 2: victim passed %d of 15, attackers %d of 45; want 5 and 35", victim, attackers)
	}
	for now, d := range ds {
		if now < 5 && d.Verdict != gate.Pass {
			t.Errorf("ways 2: victim at t%d = %s, want a pass", now, show(d))
		}
		if now >= 5 && (d.Verdict != gate.Limited || d.Way != gate.NoWay) {
			t.Errorf("ways 2: victim at t%d = %s, want limited with no way (GATE-19)", now, show(d))
		}
	}
	if victim, _, _ := find14(t, 3); victim != 15 {
		t.Errorf("ways 3: victim passed %d of 15, want 15", victim)
	}
}

// TestFind15ForgettingAfterStepBack checks FIND-15: lim_cfg(1, 1, 10, 10),
// 1 set of 1 way: a passes at 0; b at 10 takes a's full way; a at 5 then
// passes, where with 2 sets and the zero seed (a in set 1, b in set 0,
// nothing dropped) it is limited.
func TestFind15ForgettingAfterStepBack(t *testing.T) {
	runCase(t, gateCase{"FIND-15", "one way: a's full bucket is dropped, a is born again at 5",
		cfgW(1, 1, 10, 10, 1, 1, 1), []int64{0, 10, 5}, []step{
			adm("a", t0, pass(0), 1, bkt(0, 0)),
			adm("b", t1, pass(0), 2, bkt(0, 10)),
			adm("a", t2, pass(0), 3, bkt(0, 5)),
		}})
	runCase(t, gateCase{"FIND-15", "two sets, zero seed (keys 97, 98 in sets 1, 0): a's bucket {0, 0} is kept and has no step at 5",
		cfgW(1, 1, 10, 10, 2, 1, 1), []int64{0, 10, 5}, []step{
			adm("a", t0, pass(1), 1, bkt(0, 0)),
			adm("b", t1, pass(0), 2, bkt(0, 10)),
			adm("a", t2, limited(1, 10, 1), 2, bkt(0, 0)),
		}})
}

// TestFind16RecyclingBeyondWays checks FIND-16: addresses of one set beyond
// ways can take turns, but the set's budget pays for each turn.
// lim_cfg(1, 1, 1000, 10), one set of one way: a passes; b evicts a at a
// cost of 1 - 0 = 1 from the set's born-full budget and passes; a finds the
// budget empty and is limited with no way, retry 1000; b is limited by its
// own bucket. Two passes, as exact per-key buckets (2 ways) give.
func TestFind16RecyclingBeyondWays(t *testing.T) {
	runCase(t, gateCase{"FIND-16", "one way: the budget pays b's turn, then refuses a's",
		cfgW(1, 1, 1000, 10, 1, 1, 1), []int64{0}, []step{
			adm("a", t0, pass(0), 1, bkt(0, 0)),
			adm("b", t0, pass(0), 2, bkt(0, 0)),
			budget(0, t0, 2, bkt(0, 0)),
			adm("a", t0, limitedW(0, gate.NoWay, 1000, 1), 2, nil),
			adm("b", t0, limited(0, 1000, 1), 2, bkt(0, 0)),
		}})
	runCase(t, gateCase{"FIND-16", "two ways: each address has its own bucket and passes once",
		cfgW(1, 1, 1000, 10, 1, 2, 1), []int64{0}, []step{
			adm("a", t0, pass(0), 1, bkt(0, 0)),
			adm("b", t0, passW(0, 1), 2, bkt(0, 0)),
			adm("a", t0, limited(0, 1000, 1), 2, bkt(0, 0)),
			adm("b", t0, limitedW(0, 1, 1000, 1), 2, bkt(0, 0)),
			budget(0, t0, 2, nil),
		}})
}

// TestFind27NewcomerWaitsForBudget checks FIND-27: a newcomer to an
// overflowing set waits for the budget. lim_cfg(1, 1, 1000, 10), one set of
// one way: a passes; b evicts a (cost 1, the budget's one token) and passes;
// c, never seen, is limited with no way and retry 1000, where exact per-key
// buckets pass it; once the budget refills (t2 = 1000), c evicts b, which
// has just taken again and so is not full.
func TestFind27NewcomerWaitsForBudget(t *testing.T) {
	runCase(t, gateCase{"FIND-27", "c, never seen, waits for the budget's refill",
		cfgW(1, 1, 1000, 10, 1, 1, 1), []int64{0, 999, 1000}, []step{
			adm("a", t0, pass(0), 1, bkt(0, 0)),
			adm("b", t0, pass(0), 2, bkt(0, 0)),
			adm("c", t0, limitedW(0, gate.NoWay, 1000, 1), 2, nil),
			adm("c", t1, limitedW(0, gate.NoWay, 1000, 1), 2, nil),
			adm("b", t2, pass(0), 3, bkt(0, 1000)),
			adm("c", t2, pass(0), 4, bkt(0, 1000)),
			look("b", t2, 4, nil),
		}})
	runCase(t, gateCase{"FIND-27", "exact per-key buckets (ways 3) pass c at once",
		cfgW(1, 1, 1000, 10, 1, 3, 1), []int64{0}, []step{
			adm("a", t0, pass(0), 1, bkt(0, 0)),
			adm("b", t0, passW(0, 1), 2, bkt(0, 0)),
			adm("c", t0, passW(0, 2), 3, bkt(0, 0)),
		}})
}
