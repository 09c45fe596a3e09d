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

// lock spins until it holds set base's lock (base is the set's first way).
func (t *table) lock(base int64) {
	w := &t.ways[base].kt
	for spins := 1; ; spins++ {
		if v := atomic.LoadUint64(w); v&lockBit == 0 && atomic.CompareAndSwapUint64(w, v, v|lockBit) {
			return
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

// get returns the key+1 (0: empty) and the bucket of way i; lock held.
func (t *table) get(base, i int64) (uint64, lim.Bucket) {
	w := &t.ways[i]
	var kt uint64
	if i == base {
		kt = atomic.LoadUint64(&w.kt) // the lock word: others CAS it
	} else {
		kt = w.kt
	}
	tks := int64(kt & tksMask)
	if t.wide != nil {
		tks = t.wide[i]
	}
	return kt >> 32, lim.Bucket{Tks: tks, Last: w.last}
}

// putUnlock stores key+1 k1 and bucket b in way i and gives back the lock
// of set base: for way 0 the word's one release store does both.
func (t *table) putUnlock(base, i int64, k1 uint64, b lim.Bucket) {
	w := &t.ways[i]
	kt := k1 << 32
	if t.wide != nil {
		t.wide[i] = b.Tks
	} else {
		kt |= uint64(b.Tks)
	}
	w.last = b.Last
	if i == base {
		storeRelease(&w.kt, kt)
		return
	}
	w.kt = kt
	t.unlock(base)
}

// clear empties way i, if i >= 0, of a locked set; i is never the set's way
// 0 (GATE-15 (b) empties a way above the one it fills).
func (t *table) clear(i int64) {
	if i >= 0 {
		t.ways[i] = way{}
	}
}

// find returns the way of set base that holds key+1 k1, or -1; lock held.
func (t *table) find(base int64, k1 uint64) int64 {
	if atomic.LoadUint64(&t.ways[base].kt)>>32 == k1 {
		return base
	}
	for i := base + 1; i < base+t.n; i++ {
		if t.ways[i].kt>>32 == k1 {
			return i
		}
	}
	return -1
}
