package gate

import (
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// TestPropSemaphoreCountsExactly drives the sharded semaphore with random
// acquires, releases, free tests and loads on random shards and checks every
// answer against a plain counter: acquire passes iff n < maxif, hasFree iff
// n < maxif, release floors at 0, and load is n. load runs the slow path,
// which re-deals every lease, so it is one of the random ops rather than a
// check after each: a lease dealt wrong shows only between slow paths.
func TestPropSemaphoreCountsExactly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		maxif := rapid.SampledFrom([]int64{1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65, 1000}).Draw(t, "maxif")
		s := newSemaphore(maxif)
		var n int64
		for range rapid.IntRange(1, 300).Draw(t, "ops") {
			sh := &s.shards[rapid.IntRange(0, len(s.shards)-1).Draw(t, "shard")]
			n = semaphoreStep(t, s, sh, rapid.IntRange(0, 4).Draw(t, "op"), n, maxif)
		}
		if got := s.load(); got != n {
			t.Fatalf("load() = %d, want %d", got, n)
		}
	})
}

// semaphoreStep applies one op to s and to the counter n and returns n.
func semaphoreStep(t *rapid.T, s *semaphore, sh *shard, op int, n, maxif int64) int64 {
	switch op {
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
	case 4:
		if got := s.load(); got != n {
			t.Fatalf("load() = %d, want %d", got, n)
		}
	}
	return n
}

// TestSemaphoreLastPlaceTakenFast takes every place on the fast path (one
// lease per shard, no slow path between), then asks each shard: every
// acquire and every free test must say no, though no word is marked full.
func TestSemaphoreLastPlaceTakenFast(t *testing.T) {
	s := newSemaphore(int64(len(newSemaphore(1).shards)))
	for i := range s.shards {
		if !s.tryAcquire(&s.shards[i]) {
			t.Fatalf("tryAcquire(shard %d) = false with %d of %d in flight, want true", i, i, len(s.shards))
		}
	}
	for i := range s.shards {
		if s.hasFree(&s.shards[i]) || s.tryAcquire(&s.shards[i]) {
			t.Fatalf("shard %d: a place is free with all %d in flight", i, len(s.shards))
		}
	}
	if got := s.load(); got != int64(len(s.shards)) {
		t.Errorf("load() = %d, want %d", got, len(s.shards))
	}
}

// TestSemaphoreDealsNoMoreThanItHas checks that a semaphore of fewer places
// than shards never lets two shards hand out the same place on the fast path.
func TestSemaphoreDealsNoMoreThanItHas(t *testing.T) {
	s := newSemaphore(1)
	taken := 0
	for i := range s.shards {
		if s.tryAcquire(&s.shards[i]) {
			taken++
		}
	}
	if taken != 1 {
		t.Errorf("acquires on each of %d shards of a 1-place semaphore: %d passed, want 1", len(s.shards), taken)
	}
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

var sinkShard int

// BenchmarkLocalShardStack measures the in-flight shard hint Admit uses: a
// hash of a stack address.
func BenchmarkLocalShardStack(b *testing.B) {
	s := newSemaphore(64)
	for b.Loop() {
		sinkShard += s.localShard()
	}
}

// BenchmarkLocalShardPool measures the hint it replaced: a sync.Pool token
// per P, one Get and one Put.
func BenchmarkLocalShardPool(b *testing.B) {
	var p sync.Pool
	var next int
	for b.Loop() {
		t, _ := p.Get().(*int)
		if t == nil {
			next++
			t = &next
		}
		p.Put(t)
		sinkShard += *t
	}
}
