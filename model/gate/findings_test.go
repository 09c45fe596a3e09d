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

// TestFind2SharedKeySharesSlot checks the gate consequence of FIND-2:
// lim_ip_key("10.17.102.130") = lim_ip_key("10.23.191.7") = 2422100051, so the
// two share a slot for every number of slots and one spends the other's token.
// The linear pairs (.131, .8) and (.132, .9) collide too.
func TestFind2SharedKeySharesSlot(t *testing.T) {
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
	slotCounts := []int64{1, 7, 64, 1 << 20, 2422100051, 2422100052, maxT}
	for _, slots := range slotCounts {
		for _, p := range pairs {
			t.Run(fmt.Sprintf("%d slots %s %s", slots, p[0], p[1]), func(t *testing.T) {
				slot := mustNew(t, cfg(1, 1, 10, 5, slots, 1)).SlotOf(p[0])
				runCase(t, gateCase{"FIND-2", "the second address finds the first one's slot empty",
					cfg(1, 1, 10, 5, slots, 1), []int64{0, 10}, []step{
						adm(p[0], t0, pass(slot), 1, bkt(0, 0)),
						adm(p[1], t0, limited(slot, 10, 1), 1, bkt(0, 0)),
						adm(p[1], t1, pass(slot), 2, bkt(0, 10)),
						adm(p[0], t1, limited(slot, 10, 1), 2, bkt(0, 10)),
					}})
			})
		}
	}
}

// TestWorkedExample walks spec.md's "Worked example": a gate with
// lim_cfg(2, 1, 10, 2), 64 slots and tick_nanos 100000000, row by row.
func TestWorkedExample(t *testing.T) {
	g := mustNew(t, cfg(2, 1, 10, 2, 64, 100_000_000))
	if s := g.SlotOf("a"); s != 33 {
		t.Fatalf(`SlotOf("a") = %d, want 33`, s)
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
			rel(1, 33, bkt(0, 0)),
			rel(0, 33, bkt(0, 0)),
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
