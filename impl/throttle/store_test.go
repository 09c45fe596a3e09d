package throttle_test

import (
	"fmt"
	"testing"

	"github.com/limcheck/limcheck/impl/throttle"
)

// Pseudo-operations of a store step, besides the seven of throttle.Op.
const (
	sopSetFaults throttle.Op = "set_faults" // FaultStore.SetFaults
	sopTracked   throttle.Op = "tracked"    // MemStore.Tracked
	sopFaults    throttle.Op = "faults"     // len(FaultStore.Faults())
)

// sstep is one call on FaultStore(MemStore) and what it must return: want
// is the returned number (ban-until, count, tracked keys), fails whether it
// must fail with a *StoreError{Op: op, Key: key} wrapping ErrFault.
type sstep struct {
	op     throttle.Op
	key    string
	at     uint64
	window uint64
	until  uint64
	faults []throttle.Fault
	want   uint64
	cause  error // nil: must succeed; else the cause of the expected *StoreError
}

func sBanUntil(key string, want uint64) sstep {
	return sstep{op: throttle.OpBanUntil, key: key, want: want}
}

func sCount(key string, at uint64, window, want uint64) sstep {
	return sstep{op: throttle.OpCount, key: key, at: at, window: window, want: want}
}

func sAddFailure(key string, at uint64, window, want uint64) sstep {
	return sstep{op: throttle.OpAddFailure, key: key, at: at, window: window, want: want}
}

func sBan(key string, until, want uint64) sstep {
	return sstep{op: throttle.OpBan, key: key, until: until, want: want}
}

func sClearFailures(key string) sstep { return sstep{op: throttle.OpClearFailures, key: key} }

func sClear(key string) sstep { return sstep{op: throttle.OpClear, key: key} }

func sPurge(at uint64, window, want uint64) sstep {
	return sstep{op: throttle.OpPurge, at: at, window: window, want: want}
}

func sTracked(n uint64) sstep { return sstep{op: sopTracked, want: n} }

func sFaults(n uint64) sstep { return sstep{op: sopFaults, want: n} }

func sSetFaults(rules ...throttle.Fault) sstep { return sstep{op: sopSetFaults, faults: rules} }

// failing returns s expected to fail with a store fault.
func failing(s sstep) sstep {
	s.cause = throttle.ErrFault
	return s
}

// full returns s expected to fail because the store is full.
func full(s sstep) sstep {
	s.cause = throttle.ErrFull
	return s
}

// call renders the step as the Go call it makes.
func (s sstep) call() string {
	switch s.op {
	case throttle.OpBanUntil:
		return fmt.Sprintf("BanUntil(%q)", s.key)
	case throttle.OpCount:
		return fmt.Sprintf("Count(%q, %v, %d)", s.key, s.at, s.window)
	case throttle.OpAddFailure:
		return fmt.Sprintf("AddFailure(%q, %v, %d)", s.key, s.at, s.window)
	case throttle.OpBan:
		return fmt.Sprintf("Ban(%q, %d)", s.key, s.until)
	case throttle.OpClearFailures:
		return fmt.Sprintf("ClearFailures(%q)", s.key)
	case throttle.OpClear:
		return fmt.Sprintf("Clear(%q)", s.key)
	case throttle.OpPurge:
		return fmt.Sprintf("Purge(%v, %d)", s.at, s.window)
	case sopSetFaults:
		return fmt.Sprintf("SetFaults(%+v)", s.faults)
	case sopTracked:
		return "Tracked()"
	}
	return "len(Faults())"
}

// do runs the step on fs (whose inner store is mem) and fails t on a wrong
// result.
func (s sstep) do(t *testing.T, fs *throttle.FaultStore, mem *throttle.MemStore) {
	t.Helper()
	var got uint64
	var err error
	hasValue := true
	switch s.op {
	case throttle.OpBanUntil:
		got, err = fs.BanUntil(s.key)
	case throttle.OpCount:
		got, err = fs.Count(s.key, s.at, s.window)
	case throttle.OpAddFailure:
		got, err = fs.AddFailure(s.key, s.at, s.window)
	case throttle.OpBan:
		got, err = fs.Ban(s.key, s.until)
	case throttle.OpClearFailures:
		err, hasValue = fs.ClearFailures(s.key), false
	case throttle.OpClear:
		err, hasValue = fs.Clear(s.key), false
	case throttle.OpPurge:
		got, err = fs.Purge(s.at, s.window)
	case sopSetFaults:
		fs.SetFaults(s.faults...)
		return
	case sopTracked:
		got = uint64(mem.Tracked())
	case sopFaults:
		got = uint64(len(fs.Faults()))
	default:
		t.Fatalf("unknown store step %q", s.op)
	}
	var op throttle.Op
	if s.cause != nil {
		op = s.op
	}
	if wantStoreErr(t, s.call(), err, op, s.cause, s.key) || !hasValue {
		return
	}
	if got != s.want {
		t.Fatalf("%s = %d, want %d", s.call(), got, s.want)
	}
}

// srow is a table row: steps on a fresh FaultStore(MemStore).
type srow struct {
	clause string
	reason string
	steps  []sstep
}

// runStoreRows runs rows on stores keeping 8 stamps per key.
func runStoreRows(t *testing.T, rows []srow) {
	t.Helper()
	runStoreRowsK(t, 8, 0, rows)
}

// runStoreRowsK runs rows on stores keeping k stamps per key and tracking at
// most max keys (0: the default).
func runStoreRowsK(t *testing.T, k uint64, max int, rows []srow) {
	t.Helper()
	for _, r := range rows {
		t.Run(r.clause, func(t *testing.T) {
			requireRow(t, r.clause, r.reason)
			t.Log(r.reason)
			mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: k, MaxKeys: max})
			if err != nil {
				t.Fatal(err)
			}
			fs := throttle.NewFaultStore(mem)
			for _, s := range r.steps {
				s.do(t, fs, mem)
			}
		})
	}
}

// noEffect is a STORE-1 row: call, faulted, changes nothing that the
// observation steps can see. The state: "a" has stamps t0 and t1 and a ban
// until 150, "b" has the stamp t0.
func noEffect(call sstep) srow {
	steps := []sstep{
		sAddFailure("a", t0, 10, 1), sAddFailure("a", t1, 10, 2), sBan("a", 150, 150), sAddFailure("b", t0, 10, 1),
		sSetFaults(fault(call.op)), failing(call), sSetFaults(),
		sTracked(2), sBanUntil("a", 150), sCount("a", t1, 10, 2), sCount("b", t1, 10, 1), sCount("a", sec(0), maxU, 2),
	}
	return srow{"STORE-1", fmt.Sprintf("a faulted %s has no effect", call.op), steps}
}

// TestStoreNoEffect covers STORE-1. The store rows run on MemStores whose k
// (8) exceeds every count, so that they must equal the exact store.
func TestStoreNoEffect(t *testing.T) {
	runStoreRows(t, []srow{
		// STORE-1
		noEffect(sBanUntil("a", 0)),
		noEffect(sCount("a", t1, 10, 0)),
		noEffect(sAddFailure("a", t2, 10, 0)),
		noEffect(sBan("a", maxU, 0)),
		noEffect(sClearFailures("a")),
		noEffect(sClear("a")),
		noEffect(sPurge(maxMinus(0), 1, 0)),
		{"STORE-1", "a faulted op on an untracked key tracks nothing", []sstep{
			sSetFaults(fault(throttle.OpAddFailure), fault(throttle.OpBan)),
			failing(sAddFailure("c", t0, 10, 0)), failing(sBan("c", 150, 0)), sTracked(0),
		}},
	})
}

// TestStoreReads covers STORE-2..STORE-4.
func TestStoreReads(t *testing.T) {
	runStoreRows(t, []srow{
		// STORE-2
		{"STORE-2", "an untracked key's ban-until is 0", []sstep{
			sBanUntil("a", 0), sBanUntil(kEmpty, 0), sBanUntil(kBad, 0),
		}},
		{"STORE-2", "ban-until is what ban wrote, 0 again after clear", []sstep{
			sBan("a", 150, 150), sBanUntil("a", 150), sBanUntil("b", 0), sClear("a"), sBanUntil("a", 0),
		}},
		{"STORE-2", "a key with stamps only has ban-until 0", []sstep{
			sAddFailure("a", t0, 10, 1), sBanUntil("a", 0),
		}},

		// STORE-3
		{"STORE-3", "stamp t0, window 5: counted at t4, not at t5", []sstep{
			sAddFailure("a", t0, 5, 1), sCount("a", t4, 5, 1), sCount("a", t5, 5, 0),
		}},
		{"STORE-3", "a stamp after now counts", []sstep{
			sAddFailure("a", t5, 5, 1), sCount("a", t0, 5, 1), sCount("a", sec(0), 1, 1),
		}},
		{"STORE-3", "the window is the argument: one store, several windows", []sstep{
			sAddFailure("a", t0, 5, 1), sAddFailure("a", t5, 5, 1),
			sCount("a", t9, 5, 1), sCount("a", t9, 10, 2), sCount("a", t9, 1, 0),
		}},
		{"STORE-3", "stamps are a multiset: one second twice counts twice", []sstep{
			sAddFailure("a", t0, 5, 1), sAddFailure("a", t0, 5, 2), sCount("a", t4, 5, 2),
		}},
		{"STORE-3", "t+window overflowing MaxUint64 is compared exactly", []sstep{
			sAddFailure("a", t0, 1, 1), sAddFailure("a", sec(0), 1, 2),
			sCount("a", maxMinus(0), maxU, 1), sCount("a", maxMinus(1), maxU, 2),
			sCount("a", maxMinus(0), maxU-99, 1), sCount("a", maxMinus(0), maxU-100, 0),
		}},
		{"STORE-3", "an untracked key counts 0", []sstep{
			sCount("a", t0, maxU, 0),
		}},

		// STORE-4
		{"STORE-4", "add_failure returns the count at now, its own stamp included", []sstep{
			sAddFailure("a", t0, 5, 1), sAddFailure("a", t4, 5, 2), sAddFailure("a", t5, 5, 2), sCount("a", t5, 5, 2),
		}},
		{"STORE-4", "after a step back the later stamps count", []sstep{
			sAddFailure("a", t9, 5, 1), sAddFailure("a", t0, 5, 2),
		}},
		{"STORE-4", "a stamp at max counts at max with window 1", []sstep{
			sAddFailure("a", maxMinus(0), 1, 1),
		}},
		{"STORE-4", "the count is per key", []sstep{
			sAddFailure("a", t0, 5, 1), sAddFailure("b", t0, 5, 1), sAddFailure(kEmpty, t0, 5, 1),
		}},
	})
}

// TestStoreWrites covers STORE-5..STORE-8.
func TestStoreWrites(t *testing.T) {
	runStoreRows(t, []srow{
		// STORE-5
		{"STORE-5", "ban keeps the maximum and returns it", []sstep{
			sBan("a", 150, 150), sBan("a", 120, 150), sBanUntil("a", 150),
			sBan("a", 200, 200), sBan("a", maxU, maxU), sBan("a", 0, maxU), sBanUntil("a", maxU),
		}},
		{"STORE-5", "ban of an untracked key with 0 returns 0", []sstep{
			sBan("a", 0, 0), sBanUntil("a", 0),
		}},

		// STORE-6
		{"STORE-6", "clear_failures removes every stamp and keeps the ban", []sstep{
			sAddFailure("a", t0, 5, 1), sAddFailure("a", t9, 5, 1), sBan("a", 150, 150), sClearFailures("a"),
			sCount("a", sec(0), maxU, 0), sBanUntil("a", 150), sTracked(1),
		}},
		{"STORE-6", "clear_failures of stamps only leaves the key untracked", []sstep{
			sAddFailure("a", t0, 5, 1), sClearFailures("a"), sTracked(0), sClearFailures("b"), sTracked(0),
		}},

		// STORE-7
		{"STORE-7", "clear removes the stamps and the ban of its key only", []sstep{
			sAddFailure("a", t0, 5, 1), sBan("a", 150, 150), sAddFailure("b", t0, 5, 1), sClear("a"),
			sCount("a", sec(0), maxU, 0), sBanUntil("a", 0), sCount("b", t0, 5, 1), sTracked(1),
			sClear("a"), sClear(kEmpty), sTracked(1),
		}},

		// STORE-8
		{"STORE-8", "tracked iff a stamp or a ban-until > 0", []sstep{
			sTracked(0), sAddFailure("a", t0, 5, 1), sTracked(1), sBan("b", 150, 150), sTracked(2),
			sBan("c", 0, 0), sTracked(2), sClearFailures("a"), sTracked(1), sAddFailure("b", t0, 5, 1),
			sClearFailures("b"), sTracked(1), sClear("b"), sTracked(0),
		}},
		{"STORE-8", "an expired stamp still tracks its key until purged", []sstep{
			sAddFailure("a", t0, 5, 1), sCount("a", t20, 5, 0), sTracked(1), sPurge(t20, 5, 1), sTracked(0),
		}},
	})
}

// TestStorePurge covers STORE-9.
func TestStorePurge(t *testing.T) {
	runStoreRows(t, []srow{
		// STORE-9
		{"STORE-9", "a stamp is dropped at t+window == now, kept at now-1", []sstep{
			sAddFailure("a", t0, 5, 1), sPurge(t4, 5, 0), sCount("a", t4, 5, 1), sPurge(t5, 5, 1), sTracked(0),
		}},
		{"STORE-9", "only the expired stamps are dropped", []sstep{
			sAddFailure("a", t0, 5, 1), sAddFailure("a", t9, 5, 1), sPurge(t5, 5, 0), sCount("a", sec(0), maxU, 1),
		}},
		{"STORE-9", "a ban-until <= now is set to 0, a live one kept", []sstep{
			sBan("a", 150, 150), sPurge(sec(149), 5, 0), sBanUntil("a", 150), sPurge(sec(150), 5, 1), sBanUntil("a", 0),
		}},
		{"STORE-9", "a live ban keeps a key whose stamps expired", []sstep{
			sAddFailure("a", t0, 5, 1), sBan("a", 150, 150), sPurge(t20, 5, 0), sCount("a", sec(0), maxU, 0),
			sBanUntil("a", 150), sTracked(1),
		}},
		{"STORE-9", "a live stamp keeps a key whose ban expired (ban-until set to 0)", []sstep{
			sAddFailure("a", t10, 10, 1), sBan("a", 105, 105), sPurge(t5, 10, 0), sBanUntil("a", 0),
			sCount("a", t5, 10, 1), sTracked(1),
		}},
		{"STORE-9", "purge counts keys, not stamps", []sstep{
			sAddFailure("a", t0, 5, 1), sAddFailure("a", t1, 5, 2), sAddFailure("a", t2, 5, 3),
			sAddFailure("b", t0, 5, 1), sBan("c", 110, 110), sAddFailure("d", t20, 5, 1),
			sPurge(t10, 5, 3), sTracked(1),
		}},
		{"STORE-9", "a future stamp is kept", []sstep{
			sAddFailure("a", t10, 1, 1), sPurge(t0, 1, 0), sTracked(1),
		}},
		{"STORE-9", "window MaxUint64 at max drops only stamp 0", []sstep{
			sAddFailure("a", sec(0), 1, 1), sAddFailure("b", sec(1), 1, 1), sPurge(maxMinus(0), maxU, 1),
			sCount("b", maxMinus(0), maxU, 1),
		}},
		{"STORE-9", "a saturated ban (max) is dropped by a purge at max", []sstep{
			sBan("a", maxU, maxU), sPurge(maxMinus(1), 1, 0), sPurge(maxMinus(0), 1, 1),
		}},
		{"STORE-9", "purge of an empty store, or twice, is 0", []sstep{
			sPurge(sec(0), 1, 0), sAddFailure("a", t0, 5, 1), sPurge(t9, 5, 1), sPurge(t9, 5, 0),
		}},
	})
}

// TestStoreFaults covers STORE-10.
func TestStoreFaults(t *testing.T) {
	runStoreRows(t, []srow{
		// STORE-10
		{"STORE-10", "the rule list starts empty: nothing fails", []sstep{
			sFaults(0), sBanUntil("a", 0), sCount("a", t0, 5, 0), sAddFailure("a", t0, 5, 1), sBan("a", 150, 150),
			sClearFailures("a"), sClear("a"), sPurge(t0, 5, 0),
		}},
		{"STORE-10", "a rule with no keys fails its op for every key, and no other op", []sstep{
			sSetFaults(fault(throttle.OpCount)), failing(sCount("a", t0, 5, 0)), failing(sCount(kEmpty, t0, 5, 0)),
			failing(sCount(kBad, t0, 5, 0)), sBanUntil("a", 0), sAddFailure("a", t0, 5, 1),
		}},
		{"STORE-10", "an empty (non-nil) key list is no keys", []sstep{
			sSetFaults(throttle.Fault{Op: throttle.OpBanUntil, Keys: []string{}}), failing(sBanUntil("z", 0)),
		}},
		{"STORE-10", "a rule with keys fails its op only for the listed keys", []sstep{
			sSetFaults(fault(throttle.OpAddFailure, "a", kEmpty)), failing(sAddFailure("a", t0, 5, 0)),
			failing(sAddFailure(kEmpty, t0, 5, 0)), sAddFailure("b", t0, 5, 1), sCount("a", t0, 5, 0),
		}},
		{"STORE-10", "purge matches only rules with no keys (listing \"\" is not no keys)", []sstep{
			sAddFailure("a", t0, 5, 1), sSetFaults(fault(throttle.OpPurge, "a"), fault(throttle.OpPurge, kEmpty)),
			sPurge(t0, 5, 0), sSetFaults(fault(throttle.OpPurge)), failing(sPurge(t9, 5, 0)), sTracked(1),
		}},
		{"STORE-10", "any matching rule of several fails the op", []sstep{
			sSetFaults(fault(throttle.OpBan, "a"), fault(throttle.OpBan, "b"), fault(throttle.OpClear)),
			failing(sBan("a", 150, 0)), failing(sBan("b", 150, 0)), sBan("c", 150, 150), failing(sClear("c")),
			sFaults(3),
		}},
		{"STORE-10", "the rule list is replaced as a whole; no rules clears it", []sstep{
			sSetFaults(fault(throttle.OpCount)), failing(sCount("a", t0, 5, 0)),
			sSetFaults(fault(throttle.OpBanUntil)), sCount("a", t0, 5, 0), failing(sBanUntil("a", 0)), sFaults(1),
			sSetFaults(), sBanUntil("a", 0), sFaults(0),
		}},
	})
}
