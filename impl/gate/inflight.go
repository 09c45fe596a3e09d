package gate

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// semaphore is the exact in-flight counter of a gate (lim_acq and lim_rel
// over one count), sharded so that concurrent requests do not all write one
// cache line.
//
// The maxif places are split between a pool (guarded by mu) and shard words.
// A shard word packs two counts: free places leased to the shard, and places
// taken from the shard and still in flight. Acquire moves one place from free
// to used, release from used to free, each with one CAS on one word. A CAS
// that takes a free place proves in_flight < maxif at that instant; one that
// gives back a used place proves in_flight >= 1. So both fast paths are exact.
//
// When a fast path lacks its proof, the slow path takes mu and freezes every
// shard word (a frozen word is changed only by mu's holder), moving the free
// places into the pool. The counts are then exact and stable: it decides,
// deals the pool back out as equal leases and unfreezes.
//
// When no place is free the slow path leaves every word full instead. A full
// word leaves only through the slow path, and a place comes back only after
// every word is frozen, so a full word on any shard proves in_flight == maxif
// at that instant: under overload a shed is one read of its own shard word.
type semaphore struct {
	maxif  int64
	shards []shard
	mu     sync.Mutex
	pool   int64 // free places in no lease; guarded by mu
	spill  int64 // places in flight counted in no shard; guarded by mu
}

// shard is one word, alone on its cache line.
type shard struct {
	word atomic.Uint64 // frozen | full | used<<31 | free
	_    [56]byte
}

const (
	frozen   = uint64(1) << 63 // mu's holder owns the word
	full     = uint64(1) << 62 // no place is free anywhere
	fieldMax = uint64(1)<<31 - 1
	oneUsed  = uint64(1) << 31
)

func free(w uint64) uint64 { return w & fieldMax }
func used(w uint64) uint64 { return w >> 31 & fieldMax }

// newSemaphore returns a semaphore of maxif places, none in flight, with a
// shard per two Ps (at least 4, at most 64), a power of two.
func newSemaphore(maxif int64) *semaphore {
	n := 4
	for n < 2*runtime.GOMAXPROCS(0) && n < 64 {
		n <<= 1
	}
	s := &semaphore{maxif: maxif, shards: make([]shard, n), pool: maxif}
	s.mu.Lock()
	s.deal()
	s.mu.Unlock()
	return s
}

// localShard returns the index of a shard for the calling goroutine: a hash
// of the address of a variable on its stack. Goroutines run on distinct
// stacks, so goroutines running at once mostly keep to distinct lines, and a
// goroutine keeps its shard from Admit to Release (until its stack moves,
// which changes only where it looks first). It costs a multiply, where a
// sync.Pool token per P costs a Get and a Put; the shard is only a hint, so
// the count stays exact whichever shard a call uses.
func (s *semaphore) localShard() int {
	var probe byte
	addr := uint64(uintptr(unsafe.Pointer(&probe))) >> 11 // stacks are at least 2 KiB apart
	return int(addr*0x9e3779b97f4a7c15>>58) & (len(s.shards) - 1)
}

// tryAcquire takes one place if in_flight < maxif (lim_acq's test) and
// reports whether it did.
func (s *semaphore) tryAcquire(sh *shard) bool {
	return sh.acquireFast() || s.tryAcquireLoop(sh)
}

// acquireFast moves a free place of sh into flight with one CAS when the
// word has no flag, used < fieldMax (w below fieldMax<<31 says both) and a
// free place; it reports whether it did. Small enough to inline.
func (sh *shard) acquireFast() bool {
	w := sh.word.Load()
	return w < fieldMax<<31 && w&fieldMax != 0 && sh.word.CompareAndSwap(w, w-1+oneUsed)
}

// tryAcquireLoop is tryAcquire past a failed fast path.
func (s *semaphore) tryAcquireLoop(sh *shard) bool {
	for {
		w := sh.word.Load()
		switch {
		case w&full != 0:
			return false
		case w&frozen != 0 || free(w) == 0 || used(w) == fieldMax:
			return s.slow(func() bool { return s.take(sh) })
		case sh.word.CompareAndSwap(w, w-1+oneUsed):
			return true
		}
	}
}

// hasFree reports whether in_flight < maxif at some instant of the call.
func (s *semaphore) hasFree(sh *shard) bool {
	w := sh.word.Load()
	switch {
	case w&full != 0:
		return false
	case w&frozen == 0 && free(w) > 0:
		return true
	}
	return s.slow(func() bool { return s.pool > 0 })
}

// release gives one place back, preferably to sh (lim_rel: with nothing in
// flight it does nothing).
func (s *semaphore) release(sh *shard) {
	if !sh.releaseFast() {
		s.releaseLoop(sh)
	}
}

// releaseFast moves a used place of sh back to free with one CAS when the
// word has no flag (w below full), a used place (w at least oneUsed) and
// room for one more free; it reports whether it did.
func (sh *shard) releaseFast() bool {
	w := sh.word.Load()
	return w < full && w >= oneUsed && w&fieldMax != fieldMax && sh.word.CompareAndSwap(w, w+1-oneUsed)
}

// releaseLoop is release past a failed fast path.
func (s *semaphore) releaseLoop(sh *shard) {
	for {
		w := sh.word.Load()
		if w&(frozen|full) != 0 || used(w) == 0 || free(w) == fieldMax {
			s.slow(func() bool { s.put(sh); return true })
			return
		}
		if sh.word.CompareAndSwap(w, w+1-oneUsed) {
			return
		}
	}
}

// load returns the exact number of places in flight.
func (s *semaphore) load() int64 {
	var n int64
	s.slow(func() bool { n = s.maxif - s.pool; return true })
	return n
}

// slow runs op with every shard frozen and every free place in the pool, then
// deals the pool back out, and returns op's result.
func (s *semaphore) slow(op func() bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.collect()
	ok := op()
	s.deal()
	return ok
}

// collect freezes every shard, moving its free places into the pool.
func (s *semaphore) collect() {
	for i := range s.shards {
		w := &s.shards[i].word
		for {
			old := w.Load()
			if w.CompareAndSwap(old, frozen|used(old)<<31) {
				s.pool += int64(free(old)) // a full word has none
				break
			}
		}
	}
}

// take moves a place from the pool into flight on sh; mu held, shards frozen.
func (s *semaphore) take(sh *shard) bool {
	if s.pool == 0 {
		return false
	}
	s.pool--
	if w := sh.word.Load(); used(w) < fieldMax {
		sh.word.Store(w + oneUsed)
	} else {
		s.spill++
	}
	return true
}

// put moves a place from flight into the pool, taking it from sh's count if
// it has one, else from any; with nothing in flight it does nothing.
func (s *semaphore) put(sh *shard) {
	switch {
	case used(sh.word.Load()) > 0:
		sh.word.Store(sh.word.Load() - oneUsed)
	case s.spill > 0:
		s.spill--
	default:
		for i := range s.shards {
			if w := &s.shards[i].word; used(w.Load()) > 0 {
				w.Store(w.Load() - oneUsed)
				s.pool++
				return
			}
		}
		return // nothing in flight: lim_rel floors at 0
	}
	s.pool++
}

// deal unfreezes every shard with an equal share of the pool (the first
// shards one more while there is a remainder), or marks every shard full when
// the pool is empty; mu held, shards frozen.
func (s *semaphore) deal() {
	n := int64(len(s.shards))
	if s.pool == 0 {
		for i := range s.shards {
			s.shards[i].word.Store(s.shards[i].word.Load()&^frozen | full)
		}
		return
	}
	share, extra := s.pool/n, s.pool%n
	for i := range s.shards {
		lease := share
		if int64(i) < extra {
			lease++
		}
		lease = min(lease, int64(fieldMax))
		s.pool -= lease
		w := &s.shards[i].word
		w.Store(w.Load()&^frozen | uint64(lease))
	}
}
