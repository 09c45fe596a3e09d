package gate

import (
	"runtime"
	"sync/atomic"

	"github.com/limcheck/limcheck/impl/lim"
)

// way is one entry of the set-associative table, 16 bytes: kt packs the key
// and the tokens (key+1 << 32 | tks; 0 is an empty way), last is the
// bucket's last tick. A gate whose cap does not fit the 31 bits of tks keeps
// every way's tokens in a side array instead (see table.wide).
//
// Every access to a way's fields happens under its set's lock, which is bit
// 31 of the set's way 0 kt (tks < 2^31 leaves it free). Way 0's kt is
// therefore written atomically, and every kt is read atomically (see
// wordOf); the other writes are plain, ordered
// by the lock's CAS and its release store (sync/atomic's Store under the race
// detector and off amd64; a plain store on amd64, see storeRelease).
type way struct {
	kt   uint64
	last int64
}

const (
	lockBit  = uint64(1) << 31
	tksMask  = lockBit - 1
	maxNarow = int64(tksMask) // the largest cap whose tokens fit kt
)

// table is sets*ways ways, set s at ways [s*ways, (s+1)*ways).
type table struct {
	ways []way
	wide []int64 // the tokens of each way when cap > maxNarow; nil otherwise
	n    int64   // ways per set
}

func newTable(sets, ways, cap int64) table {
	t := table{ways: make([]way, sets*ways), n: ways}
	if cap > maxNarow {
		t.wide = make([]int64, sets*ways)
	}
	return t
}

// lock spins until it holds set base's lock (base is the set's first way)
// and returns way 0's word as it found it (the lock bit clear); the word
// stays so until the holder's unlock.
func (t *table) lock(base int64) uint64 {
	w := &t.ways[base].kt
	if v, ok := tryLock(w); ok {
		return v
	}
	return lockSlow(w)
}

// tryLock makes one attempt at the lock word w: one CAS if the lock is free.
func tryLock(w *uint64) (uint64, bool) {
	v := atomic.LoadUint64(w)
	return v, v&lockBit == 0 && atomic.CompareAndSwapUint64(w, v, v|lockBit)
}

// lockSlow is lock's loop: it spins until it holds the lock word w.
func lockSlow(w *uint64) uint64 {
	for spins := 1; ; spins++ {
		if v, ok := tryLock(w); ok {
			return v
		}
		if spins&63 == 0 {
			runtime.Gosched() // the holder may have been preempted
		}
	}
}

// unlock gives back the lock of set base: a release store, no locked
// instruction on amd64 (see storeRelease).
func (t *table) unlock(base int64) {
	w := &t.ways[base].kt
	storeRelease(w, atomic.LoadUint64(w)&^lockBit)
}

// set returns the ways of set base; lock held. Way 0's word carries the
// lock bit, bit 31, which is neither key (the top 32 bits) nor tokens
// (tksMask): its holder reads it as the other ways' words.
func (t *table) set(base int64) []way { return t.ways[base : base+t.n : base+t.n] }

// wordOf returns the kt of way i of ws; lock held. The load is atomic, a
// plain MOV on amd64, because way 0's word is the lock word: other
// goroutines CAS it while the lock is held, and the race detector counts
// even a failed CAS as a write.
func wordOf(ws []way, i int) uint64 { return atomic.LoadUint64(&ws[i].kt) }

// find returns the way of ws, a set, that holds key+1 k1, or -1; lock held.
func find(ws []way, k1 uint64) int {
	for i := range ws {
		if wordOf(ws, i)>>32 == k1 {
			return i
		}
	}
	return -1
}

// bucket returns the bucket of way i of ws, the set whose first way is
// base; lock held.
func (t *table) bucket(ws []way, base int64, i int) lim.Bucket {
	w := &ws[i]
	tks := int64(wordOf(ws, i) & tksMask)
	if t.wide != nil {
		tks = t.wide[base+int64(i)]
	}
	return lim.Bucket{Tks: tks, Last: w.last}
}

// putUnlock stores key+1 k1 and bucket b in way i of set ws (first way
// base), empties way drop if drop > 0 (GATE-15 (b) empties a way above the
// one it fills, never way 0), and gives back the lock with one release
// store of way 0's word, which is k1's when i is 0.
func (t *table) putUnlock(ws []way, base int64, i, drop int, k1 uint64, b lim.Bucket) {
	if drop > 0 {
		ws[drop] = way{}
	}
	kt := k1<<32 | uint64(b.Tks)
	if t.wide != nil {
		t.wide[base+int64(i)] = b.Tks
		kt = k1 << 32
	}
	ws[i].last = b.Last
	w0 := wordOf(ws, 0) &^ lockBit
	if i == 0 {
		w0 = kt
	} else {
		ws[i].kt = kt
	}
	storeRelease(&ws[0].kt, w0)
}
