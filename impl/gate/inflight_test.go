package gate

import (
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// TestPropSemaphoreCountsExactly drives the sharded semaphore with random
// acquires and releases on random shards and checks every answer against a
// plain counter: acquire passes iff n < maxif, hasFree iff n < maxif,
// release floors at 0, and load is n.
func TestPropSemaphoreCountsExactly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		maxif := rapid.SampledFrom([]int64{1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65, 1000}).Draw(t, "maxif")
		s := newSemaphore(maxif)
		var n int64
		for range rapid.IntRange(1, 300).Draw(t, "ops") {
			sh := &s.shards[rapid.IntRange(0, len(s.shards)-1).Draw(t, "shard")]
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0, 1:
				want := n < maxif
				if got := s.tryAcquire(sh); got != want {
					t.Fatalf("tryAcquire with %d of %d in flight = %v, want %v", n, maxif, got, want)
				}
				if want {
					n++
				}
			case 2:
				s.release(sh)
				n = max(n-1, 0)
			case 3:
				if got, want := s.hasFree(sh), n < maxif; got != want {
					t.Fatalf("hasFree with %d of %d in flight = %v, want %v", n, maxif, got, want)
				}
			}
			if got := s.load(); got != n {
				t.Fatalf("load() = %d, want %d", got, n)
			}
		}
	})
}

// TestSemaphoreConcurrentNeverOvershoots runs acquirers and releasers on
// every shard at once and checks that the count never passes maxif, that
// every acquire that passed is released exactly once, and that the count
// ends at 0.
func TestSemaphoreConcurrentNeverOvershoots(t *testing.T) {
	for _, maxif := range []int64{1, 3, 16, 1000} {
		s := newSemaphore(maxif)
		var wg sync.WaitGroup
		var mu sync.Mutex
		held, peak := int64(0), int64(0)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sh := &s.shards[w%len(s.shards)]
				for range 2000 {
					if !s.tryAcquire(sh) {
						continue
					}
					mu.Lock()
					held++
					peak = max(peak, held)
					mu.Unlock()
					mu.Lock()
					held--
					mu.Unlock()
					s.release(&s.shards[(w+1)%len(s.shards)])
				}
			}()
		}
		wg.Wait()
		if peak > maxif || s.load() != 0 {
			t.Errorf("maxif %d: peak %d in flight, %d at the end; want <= maxif and 0", maxif, peak, s.load())
		}
		s.release(&s.shards[0])
		if got := s.load(); got != 0 {
			t.Errorf("maxif %d: an extra release left %d in flight, want 0", maxif, got)
		}
	}
}
