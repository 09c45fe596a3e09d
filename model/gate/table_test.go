package gate_test

import (
	"testing"

	"github.com/limcheck/limcheck/model/gate"
)

// TestTable checks the set-associative table of spec 3.0: full-bucket
// forgetting on both sides of the boundary, the lowest free way, eviction of
// the fullest way by refilled tokens with ties to the lowest way, a set
// under flood, and the per-set eviction budget that pays for evictions.
func TestTable(t *testing.T) {
	tests := []gateCase{
		// GATE-14: a bucket full at now behaves as empty.
		{"GATE-14", "one tick before full (tks' = cap-1): kept, refilled by whole steps", cfgW(2, 1, 10, 9, 1, 1, 1), []int64{0, 19}, []step{
			adm("a", t0, pass(0), 1, bkt(1, 0)),
			adm("a", t0, pass(0), 2, bkt(0, 0)),
			look("a", t1, 2, bkt(0, 0)),
			adm("a", t1, pass(0), 3, bkt(0, 10)),
		}},
		{"GATE-14", "at full (tks' = cap): reads untouched, reborn at now", cfgW(2, 1, 10, 9, 1, 1, 1), []int64{0, 19, 20}, []step{
			adm("a", t0, pass(0), 1, bkt(1, 0)),
			adm("a", t0, pass(0), 2, bkt(0, 0)),
			look("a", t1, 2, bkt(0, 0)),
			look("a", t2, 2, nil),
			adm("a", t2, pass(0), 3, bkt(1, 20)),
		}},
		{"GATE-14", "a step back is no refill: not full, the bucket reads as stored", cfgW(2, 1, 10, 9, 1, 1, 1), []int64{100, 50, minT}, []step{
			adm("a", t0, pass(0), 1, bkt(1, 100)),
			look("a", t1, 1, bkt(1, 100)),
			look("a", t2, 1, bkt(1, 100)),
		}},
		{"GATE-14", "a full way is given to another key: one tick before, it is evicted instead", cfgW(1, 1, 10, 9, 1, 2, 1), []int64{0, 5, 14, 15}, []step{
			adm("a", t0, pass(0), 1, bkt(0, 0)),
			adm("b", t1, passW(0, 1), 2, bkt(0, 5)),
			adm("c", t2, pass(0), 3, bkt(0, 14)), // a is full at 14 (one step), b is not
			look("b", t2, 3, bkt(0, 5)),
			adm("a", t3, passW(0, 1), 4, bkt(0, 15)), // b is full at 15
			look("c", t3, 4, bkt(0, 14)),
		}},

		// GATE-15: the way that holds the key, else the lowest empty or full way.
		{"GATE-15", "keys fill ways 0, 1, 2 in order and keep them", cfgW(3, 1, 100, 9, 1, 3, 1), []int64{0}, []step{
			adm("a", t0, passW(0, 0), 1, bkt(2, 0)),
			adm("b", t0, passW(0, 1), 2, bkt(2, 0)),
			adm("c", t0, passW(0, 2), 3, bkt(2, 0)),
			adm("b", t0, passW(0, 1), 4, bkt(1, 0)),
			adm("a", t0, passW(0, 0), 5, bkt(1, 0)),
		}},
		{"GATE-15", "the lowest of a full way (0) and an empty one (2) is taken", cfgW(1, 1, 10, 9, 1, 3, 1), []int64{0, 5, 10}, []step{
			adm("a", t0, passW(0, 0), 1, bkt(0, 0)),
			adm("b", t1, passW(0, 1), 2, bkt(0, 5)),
			adm("c", t2, passW(0, 0), 3, bkt(0, 10)),
			look("a", t2, 3, nil),
			adm("d", t2, passW(0, 2), 4, bkt(0, 10)),
			look("b", t2, 4, bkt(0, 5)),
		}},
		{"GATE-15", "a key whose own way is full moves to a lower full way, its old way emptied", cfgW(1, 1, 10, 9, 1, 2, 1), []int64{0, 10}, []step{
			adm("a", t0, passW(0, 0), 1, bkt(0, 0)),
			adm("b", t0, passW(0, 1), 2, bkt(0, 0)),
			adm("b", t1, passW(0, 0), 3, bkt(0, 10)),
			look("a", t1, 3, nil),
			adm("c", t1, passW(0, 1), 4, bkt(0, 10)),
			adm("a", t1, passW(0, 0), 5, bkt(0, 10)), // b and c tie at 0 tokens: way 0 (b) is evicted
			look("b", t1, 5, nil),
		}},
		{"GATE-15", "a key keeps its way though a lower way is free (full)", cfgW(1, 1, 10, 9, 1, 2, 1), []int64{0, 5, 10}, []step{
			adm("a", t0, passW(0, 0), 1, bkt(0, 0)),
			adm("b", t1, passW(0, 1), 2, bkt(0, 5)),
			adm("b", t2, limitedW(0, 1, 10, 1), 2, bkt(0, 5)),
		}},

		// GATE-16: evict the way with the most refilled tokens, ties to the lowest way.
		{"GATE-16", "the fullest way goes (b: 2 tokens), not the least recently used (a: 1)", cfgW(3, 1, 100, 9, 1, 2, 1), []int64{0, 1, 2}, []step{
			adm("a", t0, passW(0, 0), 1, bkt(2, 0)),
			adm("a", t0, passW(0, 0), 2, bkt(1, 0)),
			adm("b", t1, passW(0, 1), 3, bkt(2, 1)),
			adm("c", t2, passW(0, 1), 4, bkt(2, 2)),
			look("b", t2, 4, nil),
			look("a", t2, 4, bkt(1, 0)),
		}},
		{"GATE-16", "compared by refilled tokens at now (a: 0+2), not stored ones (b: 1)", cfgW(3, 2, 100, 9, 1, 2, 1), []int64{0, 50, 100}, []step{
			adm("a", t0, passW(0, 0), 1, bkt(2, 0)),
			adm("a", t0, passW(0, 0), 2, bkt(1, 0)),
			adm("a", t0, passW(0, 0), 3, bkt(0, 0)),
			adm("b", t1, passW(0, 1), 4, bkt(2, 50)),
			adm("b", t1, passW(0, 1), 5, bkt(1, 50)),
			adm("c", t2, passW(0, 0), 6, bkt(2, 100)),
			look("a", t2, 6, nil),
			look("b", t2, 6, bkt(1, 50)),
		}},
		{"GATE-16", "a tie of two ways goes to the lowest (0)", cfgW(1, 1, 10, 9, 1, 2, 1), []int64{0}, []step{
			adm("a", t0, passW(0, 0), 1, bkt(0, 0)),
			adm("b", t0, passW(0, 1), 2, bkt(0, 0)),
			adm("c", t0, passW(0, 0), 3, bkt(0, 0)),
			look("a", t0, 3, nil),
			look("b", t0, 3, bkt(0, 0)),
		}},
		{"GATE-16", "a tie of ways 1 and 2 above a poorer way 0 goes to way 1", cfgW(2, 1, 10, 9, 1, 3, 1), []int64{0}, []step{
			adm("a", t0, passW(0, 0), 1, bkt(1, 0)),
			adm("a", t0, passW(0, 0), 2, bkt(0, 0)),
			adm("b", t0, passW(0, 1), 3, bkt(1, 0)),
			adm("c", t0, passW(0, 2), 4, bkt(1, 0)),
			adm("d", t0, passW(0, 1), 5, bkt(1, 0)),
			look("b", t0, 5, nil),
			look("c", t0, 5, bkt(1, 0)),
		}},
		{"GATE-16", "the evicted key returns born full, with more tokens than it had", cfgW(3, 1, 100, 9, 1, 1, 1), []int64{0, 1, 2}, []step{
			adm("a", t0, pass(0), 1, bkt(2, 0)),
			adm("a", t0, pass(0), 2, bkt(1, 0)),
			adm("b", t1, pass(0), 3, bkt(2, 1)), // pays 3 - 1 = 2 of 3
			look("a", t1, 3, nil),
			adm("a", t2, pass(0), 4, bkt(2, 2)), // pays 3 - 2 = 1: a has 3, not 1
			look("b", t2, 4, nil),
			budget(0, t2, 4, bkt(0, 1)),
		}},
		{"GATE-16", "a newcomer whose eviction the budget pays is born full behind an empty bucket", cfgW(1, 1, 1000, 9, 1, 1, 1), []int64{0}, []step{
			adm("a", t0, pass(0), 1, bkt(0, 0)),
			adm("a", t0, limited(0, 1000, 1), 1, bkt(0, 0)),
			adm("b", t0, pass(0), 2, bkt(0, 0)),
		}},
		{"GATE-16", "a set under flood: the depleted victim keeps its way and its debt", cfgW(2, 1, 1000, 99, 1, 2, 1), []int64{0, 1}, []step{
			adm("v", t0, passW(0, 0), 1, bkt(1, 0)),
			adm("v", t0, passW(0, 0), 2, bkt(0, 0)),
			adm("x1", t1, passW(0, 1), 3, bkt(1, 1)),
			adm("x2", t1, passW(0, 1), 4, bkt(1, 1)),
			adm("x3", t1, passW(0, 1), 5, bkt(1, 1)),
			budget(0, t1, 5, bkt(0, 1)), // x2 and x3 paid 2 - 1 each
			adm("x4", t1, limitedW(0, gate.NoWay, 1000, 1), 5, nil),
			look("v", t1, 5, bkt(0, 0)),
			adm("v", t1, limitedW(0, 0, 1000, 1), 5, bkt(0, 0)),
		}},
		{"GATE-16", "a set under flood: a victim fuller than the flood is reset to full", cfgW(3, 1, 1000, 99, 1, 2, 1), []int64{0, 1}, []step{
			adm("v", t0, passW(0, 0), 1, bkt(2, 0)),
			adm("x1", t1, passW(0, 1), 2, bkt(2, 1)),
			adm("x1", t1, passW(0, 1), 3, bkt(1, 1)),
			adm("x2", t1, passW(0, 0), 4, bkt(2, 1)),
			look("v", t1, 4, nil),
			adm("v", t1, passW(0, 0), 5, bkt(2, 1)),
			look("x2", t1, 5, nil),
		}},

		// GATE-17: a decision names the set and, unless shed, the way.
		{"GATE-17", "a shed names the set but no way", cfgW(1, 1, 10, 1, 64, 2, 1), []int64{0}, []step{
			adm("a", t0, passW(setA, 0), 1, bkt(0, 0)),
			adm("!", t0, shed(setA), 1, nil),
			rel(0, "a", bkt(0, 0)),
			adm("!", t0, passW(setA, 1), 1, bkt(0, 0)),
		}},
		{"GATE-17", "a refused eviction names the set only: no way holds the key", cfgW(1, 1, 10, 9, 64, 1, 1), []int64{0}, []step{
			adm("a", t0, passW(setA, 0), 1, bkt(0, 0)),
			adm("!", t0, passW(setA, 0), 2, bkt(0, 0)), // "!" shares set 1: evicts a
			adm("a", t0, limitedW(setA, gate.NoWay, 10, 1), 2, nil),
		}},

		// GATE-19: the set's budget pays cap - tks' of the victim.
		{"GATE-19", "every budget is absent until the set's first eviction", cfgW(3, 1, 10, 9, 1, 2, 1), []int64{0, 5}, []step{
			budget(0, t0, 0, nil),
			adm("a", t0, passW(0, 0), 1, bkt(2, 0)),
			adm("b", t0, passW(0, 1), 2, bkt(2, 0)),
			budget(0, t1, 2, nil),
		}},
		{"GATE-19", "an eviction pays cap - tks' of its victim from a budget born full at that eviction", cfgW(3, 1, 10, 9, 1, 1, 1), []int64{0, 5}, []step{
			adm("a", t0, pass(0), 1, bkt(2, 0)),
			adm("a", t0, pass(0), 2, bkt(1, 0)),
			adm("b", t1, pass(0), 3, bkt(2, 5)), // a refills to 1 at 5: cost 3 - 1 = 2
			budget(0, t1, 3, bkt(1, 5)),         // born {3, 5}, not at New or a's birth
			look("a", t1, 3, nil),
		}},
		{"GATE-19", "the cost is of the refilled victim: a step at now makes it cheaper", cfgW(3, 1, 10, 9, 1, 1, 1), []int64{0, 10}, []step{
			adm("a", t0, pass(0), 1, bkt(2, 0)),
			adm("a", t0, pass(0), 2, bkt(1, 0)),
			adm("a", t0, pass(0), 3, bkt(0, 0)),
			adm("b", t1, pass(0), 4, bkt(2, 10)), // a refills to 1 at 10: cost 2, not 3
			budget(0, t1, 4, bkt(1, 10)),
		}},
		{"GATE-19", "a refused eviction: limited with the budget's retry, in-flight unchanged, the victim kept", cfgW(1, 1, 10, 9, 1, 1, sec), []int64{0, 3}, []step{
			adm("a", t0, pass(0), 1, bkt(0, 0)),
			adm("b", t0, pass(0), 2, bkt(0, 0)), // the budget's one token
			budget(0, t0, 2, bkt(0, 0)),
			adm("a", t1, limitedW(0, gate.NoWay, 10, 10), 2, nil), // retry 10 ticks of 1 s
			look("b", t1, 2, bkt(0, 0)),
			budget(0, t1, 2, bkt(0, 0)),
		}},
		{"GATE-19", "the set keeps the take's result when it rejects: a refilled budget is stored", cfgW(3, 1, 10, 9, 1, 1, 1), []int64{0, 10, 20}, []step{
			adm("a", t0, pass(0), 1, bkt(2, 0)),
			adm("a", t0, pass(0), 2, bkt(1, 0)),
			adm("a", t0, pass(0), 3, bkt(0, 0)),
			adm("b", t0, pass(0), 4, bkt(2, 0)), // cost 3: the budget is spent
			adm("b", t0, pass(0), 5, bkt(1, 0)),
			adm("b", t0, pass(0), 6, bkt(0, 0)),
			budget(0, t0, 6, bkt(0, 0)),
			adm("c", t1, limitedW(0, gate.NoWay, 10, 1), 6, nil), // b refills to 1: cost 2; the budget to 1
			budget(0, t1, 6, bkt(1, 10)),
			look("b", t1, 6, bkt(0, 0)),
			adm("c", t2, pass(0), 7, bkt(2, 20)), // b refills to 2: cost 1; the budget to 2
			budget(0, t2, 7, bkt(1, 20)),
			look("b", t2, 7, nil),
		}},
		{"GATE-19", "a budget full at now is replaced by one born full at now: its phase resets", cfgW(2, 1, 10, 9, 1, 1, 1), []int64{0, 20, 25, 30, 35}, []step{
			adm("a", t0, pass(0), 1, bkt(1, 0)),
			adm("b", t0, pass(0), 2, bkt(1, 0)), // cost 2 - 1 = 1
			budget(0, t0, 2, bkt(1, 0)),
			adm("c", t1, pass(0), 3, bkt(1, 20)), // b is full at 20: no eviction
			adm("c", t1, pass(0), 4, bkt(0, 20)),
			adm("d", t2, pass(0), 5, bkt(1, 25)), // cost 2 from {2, 25}, not {2, 20}
			budget(0, t2, 5, bkt(0, 25)),
			adm("e", t3, limitedW(0, gate.NoWay, 10, 1), 5, nil), // cost 1; {0, 20} would have a step at 30
			budget(0, t3, 5, bkt(0, 25)),
			adm("e", t4, pass(0), 6, bkt(1, 35)), // d is full at 35: its way is free, nothing paid
			budget(0, t4, 6, bkt(0, 25)),
		}},
		{"GATE-19", "budgets are per set: set 1's spent budget does not limit set 0", cfgW(1, 1, 1000, 9, 2, 1, 1), []int64{0}, []step{
			adm("a", t0, passW(1, 0), 1, bkt(0, 0)), // zero seed: a and c in set 1, b and x1 in set 0
			adm("c", t0, passW(1, 0), 2, bkt(0, 0)),
			adm("a", t0, limitedW(1, gate.NoWay, 1000, 1), 2, nil),
			budget(0, t0, 2, nil),
			adm("b", t0, passW(0, 0), 3, bkt(0, 0)),
			adm("x1", t0, passW(0, 0), 4, bkt(0, 0)),
			budget(0, t0, 4, bkt(0, 0)),
			budget(1, t0, 4, bkt(0, 0)),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.clause+" "+tt.reason, func(t *testing.T) { runCase(t, tt) })
	}
}
