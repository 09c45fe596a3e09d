package throttle_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/limcheck/limcheck/impl/throttle"
)

// TestCapacity covers MemStore's bound: with MaxKeys 2, starting to track a
// third key fails with ErrFull and no effect; the rest keeps working.
func TestCapacity(t *testing.T) {
	fill := []sstep{sAddFailure("a", t0, 10, 1), sBan("b", 150, 150), sTracked(2)}
	runStoreRowsK(t, 3, 2, []srow{
		{"STORE-1", "add_failure of a third key fails with ErrFull and tracks nothing", append(fill,
			full(sAddFailure("c", t0, 10, 0)), sTracked(2), sCount("c", t0, 10, 0), sBanUntil("c", 0)),
		},
		{"STORE-1", "ban of a third key fails with ErrFull; ban 0 of it is a no-op, not an error", append(fill,
			full(sBan("c", 150, 0)), sBan("c", 0, 0), sBanUntil("c", 0), sTracked(2)),
		},
		{"STORE-8", "tracked keys keep working when full; reads of untracked keys need no room", append(fill,
			sAddFailure("a", t1, 10, 2), sAddFailure("b", t1, 10, 1), sBan("a", 200, 200), sCount("z", t1, 10, 0),
			sBanUntil("z", 0), sClearFailures("z"), sClear("z"), sTracked(2)),
		},
		{"STORE-9", "purge frees room", append(fill,
			full(sAddFailure("c", t0, 10, 0)), sPurge(sec(150), 10, 2), sTracked(0),
			sAddFailure("c", sec(150), 10, 1), sAddFailure("d", sec(150), 10, 1), full(sAddFailure("e", sec(150), 10, 0))),
		},
		{"STORE-7", "clear and clear_failures free room", append(fill,
			sClear("b"), sAddFailure("c", t0, 10, 1), sClearFailures("a"), sBan("d", 150, 150), sTracked(2),
			full(sAddFailure("e", t0, 10, 0))),
		},
	})
}

// TestCapacityThrottle checks that a full store makes record_failure fail
// (never ban) and leaves checks working, on both paths.
func TestCapacityThrottle(t *testing.T) {
	for _, fused := range []bool{true, false} {
		t.Run(fmt.Sprintf("fused=%v", fused), func(t *testing.T) {
			mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 1, MaxKeys: 1})
			if err != nil {
				t.Fatal(err)
			}
			var store throttle.Store = mem
			if !fused {
				store = throttle.NewFaultStore(mem)
			}
			th, err := throttle.New(store, cfg(1, 10, 50))
			if err != nil {
				t.Fatal(err)
			}
			mustDecide(t, "first key", th.Check("a", t0), allow(1))
			d, err := th.RecordFailure("a", t0)
			if err != nil {
				t.Fatalf("RecordFailure(a, t0) = %+v, %v; want a ban, nil", d, err)
			}
			mustDecide(t, "ban of the first key", d, banned(t0+50))
			d, err = th.RecordFailure("b", t0)
			var se *throttle.StoreError
			if !errors.Is(err, throttle.ErrFull) || !errors.As(err, &se) || se.Op != throttle.OpAddFailure || se.Key != "b" {
				t.Fatalf("RecordFailure on a full store = %+v, %v; want a *StoreError{add_failure, b} wrapping ErrFull", d, err)
			}
			mustDecide(t, "check of the refused key", th.Check("b", t0), allow(1))
			mustDecide(t, "check of the tracked key", th.Check("a", t1), banned(t0+50))
			if n, err := th.PurgeExpired(t0 + 50); n != 1 || err != nil {
				t.Fatalf("PurgeExpired = %d, %v; want 1, nil", n, err)
			}
			d, err = th.RecordFailure("b", t0+50)
			if err != nil {
				t.Fatalf("RecordFailure(b, t0+50) after the purge = %+v, %v; want a ban, nil", d, err)
			}
			mustDecide(t, "record after purge", d, banned(t0+100))
		})
	}
}

// mustDecide fails t when got is not want.
func mustDecide(t *testing.T, what string, got, want throttle.Decision) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: %+v, want %+v", what, got, want)
	}
}

// TestCapacityConcurrent checks that the bound is exact under concurrency:
// of many goroutines adding distinct keys to a store of MaxKeys 100, exactly
// 100 succeed, and with clears racing the count never passes the bound.
func TestCapacityConcurrent(t *testing.T) {
	const maxKeys, workers, each = 100, 8, 50
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 2, MaxKeys: maxKeys, Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	var ok, full atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				_, err := mem.AddFailure(fmt.Sprintf("w%d:%d", w, i), t0, 10)
				switch {
				case err == nil:
					ok.Add(1)
				case errors.Is(err, throttle.ErrFull):
					full.Add(1)
				default:
					t.Errorf("AddFailure: %v", err)
				}
				if n := mem.Tracked(); n > maxKeys {
					t.Errorf("Tracked() = %d > %d", n, maxKeys)
				}
			}
		})
	}
	wg.Wait()
	if ok.Load() != maxKeys || full.Load() != workers*each-maxKeys || mem.Tracked() != maxKeys {
		t.Fatalf("ok %d, full %d, tracked %d; want %d, %d, %d", ok.Load(), full.Load(), mem.Tracked(), maxKeys, workers*each-maxKeys, maxKeys)
	}
	churn(t, mem, maxKeys)
}

// churn races clears and adds on a full store and checks the bound and the
// final count.
func churn(t *testing.T, mem *throttle.MemStore, maxKeys int) {
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 200 {
				key := fmt.Sprintf("c%d:%d", w, i%30)
				if i%2 == 0 {
					_ = mem.Clear(key)
				} else if _, err := mem.AddFailure(key, t0, 10); err != nil && !errors.Is(err, throttle.ErrFull) {
					t.Errorf("AddFailure: %v", err)
				}
				if n := mem.Tracked(); n > maxKeys {
					t.Errorf("Tracked() = %d > %d", n, maxKeys)
				}
			}
		})
	}
	wg.Wait()
	if n, _ := mem.Purge(maxU, 1); n != uint64(maxKeys) && mem.Tracked() != 0 {
		t.Fatalf("Purge(max) = %d with %d left", n, mem.Tracked())
	}
	if mem.Tracked() != 0 {
		t.Fatalf("Tracked() after a full purge = %d", mem.Tracked())
	}
}
