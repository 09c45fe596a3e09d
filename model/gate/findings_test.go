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
			adm("a", t0, pass(33), 1, bkt(9, 0)),
			adm("b", t0, shed(34), 1, nil),
			adm("10.0.0.1", t0, shed(27), 1, nil),
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
// lim_cfg(2, 1, 10, 2), 64 sets of 4 ways and tick_nanos 100000000, row by row.
func TestWorkedExample(t *testing.T) {
	g := mustNew(t, cfg(2, 1, 10, 2, 64, 100_000_000))
	if s := g.SetOf("a"); s != 33 {
		t.Fatalf(`SetOf("a") = %d, want 33`, s)
	}
	ticks := []int64{0, 1, 2, 3, 4, 10} // t0..t5: the table's tick column
	rows := []struct {
		clause, reason string
		steps          []step
	}{
		{"GATE-10", `tick 0: admit("a", 0): pass, in-flight 1, bucket {1, 0}: born full, one token`, []step{
			adm("a", t0, pass(33), 1, bkt(1, 0)),
		}},
		{"LIM-9", `tick 1: admit("a", 1): pass, in-flight 2, bucket {0, 0}: no step yet`, []step{
			adm("a", t1, pass(33), 2, bkt(0, 0)),
		}},
		{"GATE-4", `tick 2: admit("b", 2): shed, Retry-After 1: 2 in flight (GATE-9)`, []step{
			adm("b", t2, shed(34), 2, nil),
		}},
		{"GATE-11", "tick 3: release() twice: in-flight 0", []step{
			rel(1, "a", bkt(0, 0)),
			rel(0, "a", bkt(0, 0)),
		}},
		{"GATE-12", `tick 4: admit("a", 4): limited, retry 10 ticks, Retry-After 1 s (LIM-12)`, []step{
			adm("a", t4, limited(33, 10, 1), 0, bkt(0, 0)),
		}},
		{"LIM-9", `tick 10: admit("a", 10): pass, bucket {0, 10}: one whole step`, []step{
			adm("a", t5, pass(33), 1, bkt(0, 10)),
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

// find14Attackers are three addresses whose keys differ from the victim
// 192.0.2.10's (2173459893) but fall in its set 3509 of 4096.
var find14Attackers = []string{"198.51.31.69", "198.51.41.115", "198.51.65.104"}

// TestFind14AimedCollisionLeavesVictim checks FIND-14: with lim_cfg(15, 1,
// 1000, 1000), 4096 sets of 2 ways, three attackers in the victim's set each
// send one request per tick t = 0..14 before the victim's: the victim passes
// 15 of 15, as it does alone.
func TestFind14AimedCollisionLeavesVictim(t *testing.T) {
	const victim = "192.0.2.10"
	c := cfgW(15, 1, 1000, 1000, 4096, 2, 1_000_000)
	g, alone := mustNew(t, c), mustNew(t, c)
	if k := lim.IPKey(victim); k != 2173459893 || g.SetOf(victim) != 3509 {
		t.Fatalf("IPKey(%q) = %d in set %d, want 2173459893 in set 3509", victim, k, g.SetOf(victim))
	}
	for _, a := range find14Attackers {
		if lim.IPKey(a) == lim.IPKey(victim) || g.SetOf(a) != 3509 {
			t.Fatalf("attacker %q: key %d, set %d, want another key of set 3509", a, lim.IPKey(a), g.SetOf(a))
		}
	}
	passed, evicted := 0, 0
	for now := int64(0); now < 15; now++ {
		for _, a := range find14Attackers {
			g.Admit(a, now)
		}
		if _, _, held := g.WayOf(victim); !held && now > 0 {
			evicted++
		}
		d, want := g.Admit(victim, now), alone.Admit(victim, now)
		if d.Verdict == gate.Pass {
			passed++
		}
		if d.Verdict != want.Verdict || d.Retry != want.Retry {
			t.Errorf("t%d: victim %s, alone %s", now, show(d), show(want))
		}
	}
	if passed != 15 {
		t.Errorf("victim passed %d of 15 under an aimed collision, want 15", passed)
	}
	if evicted == 0 {
		t.Errorf("the victim was never evicted: the case does not exercise GATE-16")
	}
}

// TestFind15ForgettingAfterStepBack checks FIND-15: lim_cfg(1, 1, 10, 10),
// 1 set of 1 way: a passes at 0; b at 10 takes a's full way; a at 5 then
// passes, where with 2 sets (a and b apart, nothing dropped) it is limited.
func TestFind15ForgettingAfterStepBack(t *testing.T) {
	runCase(t, gateCase{"FIND-15", "one way: a's full bucket is dropped, a is born again at 5",
		cfgW(1, 1, 10, 10, 1, 1, 1), []int64{0, 10, 5}, []step{
			adm("a", t0, pass(0), 1, bkt(0, 0)),
			adm("b", t1, pass(0), 2, bkt(0, 10)),
			adm("a", t2, pass(0), 3, bkt(0, 5)),
		}})
	runCase(t, gateCase{"FIND-15", "two sets (keys 97, 98 apart): a's bucket {0, 0} is kept and has no step at 5",
		cfgW(1, 1, 10, 10, 2, 1, 1), []int64{0, 10, 5}, []step{
			adm("a", t0, pass(1), 1, bkt(0, 0)),
			adm("b", t1, pass(0), 2, bkt(0, 10)),
			adm("a", t2, limited(1, 10, 1), 2, bkt(0, 0)),
		}})
}

// TestFind16RecyclingBeyondWays checks FIND-16: lim_cfg(1, 1, 1000, 10), one
// set of one way: a, b, a, b at tick 0 all pass, each evicting the other;
// with 2 ways (exact per-key buckets) only the first two pass.
func TestFind16RecyclingBeyondWays(t *testing.T) {
	runCase(t, gateCase{"FIND-16", "one way: two addresses evict each other and pass 4 times",
		cfgW(1, 1, 1000, 10, 1, 1, 1), []int64{0}, []step{
			adm("a", t0, pass(0), 1, bkt(0, 0)),
			adm("b", t0, pass(0), 2, bkt(0, 0)),
			adm("a", t0, pass(0), 3, bkt(0, 0)),
			adm("b", t0, pass(0), 4, bkt(0, 0)),
		}})
	runCase(t, gateCase{"FIND-16", "two ways: each address has its own bucket and passes once",
		cfgW(1, 1, 1000, 10, 1, 2, 1), []int64{0}, []step{
			adm("a", t0, pass(0), 1, bkt(0, 0)),
			adm("b", t0, passW(0, 1), 2, bkt(0, 0)),
			adm("a", t0, limited(0, 1000, 1), 2, bkt(0, 0)),
			adm("b", t0, limitedW(0, 1, 1000, 1), 2, bkt(0, 0)),
		}})
}
