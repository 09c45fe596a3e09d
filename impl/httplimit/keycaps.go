package httplimit

import (
	"hash/maphash"
	"math/bits"
	"sync/atomic"
)

// keyCaps is the per-key in-flight cap of [WithMaxInFlightPerKey]: a fixed
// table of counters indexed by a seeded hash of the key. Safe for concurrent
// use; it allocates nothing after newKeyCaps.
type keyCaps struct {
	seed maphash.Seed
	max  int32
	mask uint64
	n    []atomic.Int32
}

// Bounds of the counter table: 4 counters a place of the gate's in-flight
// cap, so that the keys in flight rarely share one, within these bounds.
const (
	minKeyCaps = 1 << 8
	maxKeyCaps = 1 << 16
)

// newKeyCaps returns a cap of limit per key for a gate of maxif places.
func newKeyCaps(limit int32, maxif int64) *keyCaps {
	want := uint64(min(max(maxif, 1), maxKeyCaps)) * 4
	size := uint64(1) << bits.Len64(want-1) // the power of two >= want
	size = min(max(size, minKeyCaps), maxKeyCaps)
	return &keyCaps{seed: maphash.MakeSeed(), max: limit, mask: size - 1, n: make([]atomic.Int32, size)}
}

// acquire takes a place for key and returns its counter, or false when the
// key's counter is at the cap.
func (c *keyCaps) acquire(key []byte) (int, bool) {
	i := maphash.Bytes(c.seed, key) & c.mask
	p := &c.n[i]
	for {
		v := p.Load()
		if v >= c.max {
			return 0, false
		}
		if p.CompareAndSwap(v, v+1) {
			return int(i), true
		}
	}
}

// release gives back the place of counter i.
func (c *keyCaps) release(i int) { c.n[i].Add(-1) }
