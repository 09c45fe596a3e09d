package throttle_test

import (
	"runtime"
	"testing"

	"github.com/limcheck/limcheck/impl/throttle"
)

// TestNoAllocKnownKeys checks that operations on tracked keys do not
// allocate, on the fused and the seven-operation paths.
func TestNoAllocKnownKeys(t *testing.T) {
	mem := mustMem(5)
	th, _ := throttle.New(mem, throttle.DefaultConfig())
	keys := []string{"ip:1", "ip:2", "acct:x"}
	now := uint64(1000)
	for _, k := range keys {
		_, _ = th.RecordFailure(k, now)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		now++
		for _, k := range keys {
			_, _ = th.RecordFailure(k, now)
			th.Check(k, now)
			_, _ = mem.Count(k, now, 900)
			_, _ = mem.Ban(k, now)
		}
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per run on known keys, want 0", allocs)
	}
}

// TestLargeRecordsGetSmallChunks checks that a store whose records are
// large (k stamps of 8 bytes each) holds each key in a chunk of at most
// max(64 KiB, one record) of data, page rounding aside: tracking one key at
// the largest k costs about one record, not the 32-record chunk (4 MiB at
// k = MaxStampsPerKey) small records are grouped in.
func TestLargeRecordsGetSmallChunks(t *testing.T) {
	for _, k := range []uint64{1000, 8191, throttle.MaxStampsPerKey} {
		record := 8 * (k + 1)
		bound := max(64<<10, record) + 64<<10 // a chunk, plus its rounding and the index
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: k})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddFailure("ip:10.0.0.1", 1, 900); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(s)
		if grew := after.HeapAlloc - before.HeapAlloc; grew > bound {
			t.Errorf("k=%d: one key grew the heap by %d bytes, want at most %d (a record is %d)", k, grew, bound, record)
		}
	}
}
