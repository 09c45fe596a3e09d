package gate_test

import "testing"

// TestTable checks the set-associative table of spec 2.0: full-bucket
// forgetting on both sides of the boundary, the lowest free way, eviction of
// the fullest way by refilled tokens with ties to the lowest way, and a set
// under flood.
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
		{"GATE-16", "the evicted key returns born full, with more tokens than it had", cfgW(2, 1, 100, 9, 1, 1, 1), []int64{0, 1, 2}, []step{
			adm("a", t0, pass(0), 1, bkt(1, 0)),
			adm("a", t0, pass(0), 2, bkt(0, 0)),
			adm("b", t1, pass(0), 3, bkt(1, 1)),
			look("a", t1, 3, nil),
			adm("a", t2, pass(0), 4, bkt(1, 2)),
			look("b", t2, 4, nil),
		}},
		{"GATE-16", "a limited newcomer is impossible: eviction gives a born-full bucket", cfgW(1, 1, 1000, 9, 1, 1, 1), []int64{0}, []step{
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
			adm("x4", t1, passW(0, 1), 6, bkt(1, 1)),
			look("v", t1, 6, bkt(0, 0)),
			adm("v", t1, limitedW(0, 0, 1000, 1), 6, bkt(0, 0)),
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
			adm("a", t0, passW(33, 0), 1, bkt(0, 0)),
			adm("!", t0, shed(33), 1, nil),
			rel(0, "a", bkt(0, 0)),
			adm("!", t0, passW(33, 1), 1, bkt(0, 0)),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.clause+" "+tt.reason, func(t *testing.T) { runCase(t, tt) })
	}
}
