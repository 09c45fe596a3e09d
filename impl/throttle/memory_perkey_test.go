// The bytes per key run without the race detector (make test's gotest runs
// them in the plain build): one goroutine fills each store, so the detector
// could find nothing here, and its shadow memory made the test ten times as
// slow.

//go:build !race

package throttle_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/limcheck/limcheck/impl/throttle"
)

// bytesPerKey returns the heap bytes a MemStore keeping k stamps grows by per
// key when n keys are recorded, the keys' own bytes excluded (allocated
// before the baseline; the store keeps the caller's strings).
func bytesPerKey(k uint64, n int) float64 {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("ip:10.%d.%d.%d", i>>16, i>>8&255, i&255)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, _ := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: k})
	for i, key := range keys {
		for j := range k {
			_, _ = s.AddFailure(key, uint64(i)+j, 900)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	runtime.KeepAlive(keys)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
}

// TestMemoryPerKey checks MemStore's bound of 8*k + 48 bytes per tracked key
// (beyond the key's bytes) at 100,000 keys with full rings, and at 10,000
// keys for the default k = 5 (88 bytes), where the store's fixed cost (one
// partly used arena chunk) weighs most.
func TestMemoryPerKey(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 100,000 keys")
	}
	for _, c := range []struct {
		k    uint64
		keys int
	}{{1, 100_000}, {5, 100_000}, {16, 100_000}, {5, 10_000}} {
		got, bound := bytesPerKey(c.k, c.keys), float64(8*c.k+48)
		t.Logf("k=%d, %d keys: %.1f bytes per key (bound %.0f)", c.k, c.keys, got, bound)
		if got > bound {
			t.Errorf("k=%d, %d keys: %.1f bytes per key, over the bound %.0f", c.k, c.keys, got, bound)
		}
	}
}
