package throttle_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/limcheck/limcheck/impl/throttle"
)

// recordAll records each failure of workers*each on key concurrently at now
// and returns the decisions.
func recordAll(t *testing.T, th *throttle.Throttle, key string, workers, each int, now uint64) []throttle.Decision {
	t.Helper()
	out := make([][]throttle.Decision, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				d, err := th.RecordFailure(key, now)
				if err != nil {
					t.Errorf("RecordFailure: %v", err)
				}
				out[w] = append(out[w], d)
			}
		})
	}
	wg.Wait()
	return slices.Concat(out...)
}

// TestConcurrentFailuresOneKey: N failures recorded concurrently on one key
// with threshold > N leave count N exactly, and each failure saw a distinct
// count (add_failure is atomic).
func TestConcurrentFailuresOneKey(t *testing.T) {
	const workers, each, threshold = 8, 100, 1000
	th, err := throttle.New(mustMem(threshold), cfg(threshold, 900, 900))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	for _, d := range recordAll(t, th, kIP, workers, each, t0) {
		if d.Verdict != throttle.Allow || seen[d.Remaining] {
			t.Fatalf("decision %+v repeated or not allow", d)
		}
		seen[d.Remaining] = true
	}
	mustDecide(t, "check after the failures", th.Check(kIP, t0), allow(threshold-workers*each))
}

// TestConcurrentThresholdCrossing: 400 concurrent failures with threshold
// 100 give exactly 99 allows (remaining 99..1, once each) and 301 bans.
func TestConcurrentThresholdCrossing(t *testing.T) {
	const workers, each, threshold = 8, 50, 100
	for _, store := range []throttle.Store{mustMem(threshold), throttle.NewFaultStore(mustMem(threshold))} {
		th, err := throttle.New(store, cfg(threshold, 900, 50))
		if err != nil {
			t.Fatal(err)
		}
		var allows []uint64
		bans := 0
		for _, d := range recordAll(t, th, kIP, workers, each, t0) {
			if d.Verdict == throttle.Allow {
				allows = append(allows, d.Remaining)
			} else if d == banned(t0+50) {
				bans++
			}
		}
		slices.Sort(allows)
		if len(allows) != threshold-1 || allows[0] != 1 || allows[len(allows)-1] != threshold-1 || bans != workers*each-threshold+1 {
			t.Fatalf("%T: %d allows (%v..), %d bans", store, len(allows), allows[:1], bans)
		}
	}
}

// TestConcurrentHammer runs every operation from many goroutines on shared
// and distinct keys (run it with -race), then checks the invariants: the
// bound holds, and a reset and a full purge leave nothing tracked.
func TestConcurrentHammer(t *testing.T) {
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 3, MaxKeys: 64, Shards: 8})
	if err != nil {
		t.Fatal(err)
	}
	fs := throttle.NewFaultStore(mem)
	fused, _ := throttle.New(mem, cfg(3, 20, 10))
	plain, _ := throttle.New(fs, cfg(3, 20, 10))
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() { hammer(t, []*throttle.Throttle{fused, plain}[w%2], fs, mem, w) })
	}
	wg.Wait()
	for w := range 8 {
		for i := range 100 {
			_ = fused.Reset(fmt.Sprintf("own%d:%d", w, i))
		}
	}
	for _, k := range []string{"shared", "", "\xff"} {
		_ = fused.Reset(k)
	}
	if n := mem.Tracked(); n != 0 {
		t.Fatalf("Tracked() after resetting every key = %d", n)
	}
}

// hammer is one goroutine of TestConcurrentHammer.
func hammer(t *testing.T, th *throttle.Throttle, fs *throttle.FaultStore, mem *throttle.MemStore, w int) {
	shared := []string{"shared", "", "\xff"}
	for i := range 2000 {
		own := fmt.Sprintf("own%d:%d", w, i%100)
		now := uint64(1000 + i/10)
		switch i % 7 {
		case 0, 1:
			_, _ = th.RecordFailure(shared[i%3], now)
		case 2:
			_, _ = th.RecordFailure(own, now)
		case 3:
			th.CheckAny([]string{own, shared[i%3]}, now)
		case 4:
			_ = th.RecordSuccess(shared[i%3])
		case 5:
			if i%70 == 5 {
				_, _ = th.PurgeExpired(now)
				fs.SetFaults(fault(throttle.OpCount, own))
			}
		case 6:
			_ = th.Reset(own)
		}
		if n := mem.Tracked(); n > mem.MaxKeys() {
			t.Errorf("Tracked() = %d > %d", n, mem.MaxKeys())
		}
	}
}
