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
// therefore read and written atomically; the other fields are plain, ordered
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

// find returns the way of set base that holds key+1 k1, or -1; w0 is way
// 0's word (the lock word, read once by its holder); lock held.
func (t *table) find(base int64, w0, k1 uint64) int {
	if w0>>32 == k1 {
		return 0
	}
	ws := t.ways[base : base+t.n]
	for i := 1; i < len(ws); i++ {
		if ws[i].kt>>32 == k1 {
			return i
		}
	}
	return -1
}

// kt returns the key-and-tokens word of way i of set base, w0 for way 0;
// lock held.
func (t *table) kt(base int64, w0 uint64, i int) uint64 {
	if i == 0 {
		return w0
	}
	return t.ways[base+int64(i)].kt
}

// bucket returns the bucket of way i of set base, whose word is kt; lock
// held.
func (t *table) bucket(base int64, i int, kt uint64) lim.Bucket {
	j := base + int64(i)
	tks := int64(kt & tksMask)
	if t.wide != nil {
		tks = t.wide[j]
	}
	return lim.Bucket{Tks: tks, Last: t.ways[j].last}
}

// putUnlock stores key+1 k1 and bucket b in way i of set base, empties way
// drop if drop > 0 (GATE-15 (b) empties a way above the one it fills, never
// way 0), and gives back the lock: for way 0 the word's one release store
// does both.
func (t *table) putUnlock(base int64, i, drop int, k1 uint64, b lim.Bucket) {
	if drop > 0 {
		t.ways[base+int64(drop)] = way{}
	}
	j := base + int64(i)
	w := &t.ways[j]
	kt := k1 << 32
	if t.wide != nil {
		t.wide[j] = b.Tks
	} else {
		kt |= uint64(b.Tks)
	}
	w.last = b.Last
	if i == 0 {
		storeRelease(&w.kt, kt)
		return
	}
	w.kt = kt
	t.unlock(base)
}
