package httplimit

import (
	"hash/maphash"
	"math/bits"
	"net/netip"
	"sync/atomic"

	"github.com/limcheck/limcheck/impl/gate"
)

// keyCaps is an in-flight cap per hashed key: [WithMaxInFlightPerKey]'s over
// client keys, [WithMaxInFlightPerPrefix]'s over address prefixes. It is a
// fixed table of counters indexed by a seeded hash of the key, so keys that
// hash to one counter share its cap. Safe for concurrent use; it allocates
// nothing after newKeyCaps.
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

// newKeyCaps returns a cap of limit per key for a gate of maxif places: a
// table of 4*maxif counters rounded up to a power of two, within
// minKeyCaps..maxKeyCaps, hashed with a seed of its own.
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

// prefixKey is what the per-prefix cap hashes for a client address a (from
// keyer.client): the family (4 or 6; 0 when the address did not parse, so
// that all such requests share one prefix, as they share InvalidKey) and the
// address masked to the cap's prefix length. A value, so that it stays on
// the stack.
func (p PrefixCap) prefixKey(a netip.Addr, ok bool) [17]byte {
	var k [17]byte
	switch {
	case !ok:
	case a.Is4():
		k[0] = 4
		m := netip.PrefixFrom(a, p.IPv4Bits).Masked().Addr().As4()
		copy(k[1:], m[:])
	default:
		k[0] = 6
		m := netip.PrefixFrom(a, p.IPv6Bits).Masked().Addr().As16()
		copy(k[1:], m[:])
	}
	return k
}

// capHold is what takeCaps took: a counter of each table, -1 for none.
type capHold struct{ key, prefix int }

// takeCaps takes the places of a request with key from client address a
// (valid: it parsed) under the caps that are set, the per-key one first, and
// reports false, holding nothing, when either is full.
func (l *Limiter) takeCaps(key []byte, a netip.Addr, valid bool) (capHold, bool) {
	h := capHold{-1, -1}
	if l.perKey != nil {
		i, ok := l.perKey.acquire(key)
		if !ok {
			return h, false
		}
		h.key = i
	}
	if l.perPrefix != nil {
		pk := l.prefix.prefixKey(a, valid)
		i, ok := l.perPrefix.acquire(pk[:])
		if !ok {
			l.releaseCaps(h)
			return capHold{-1, -1}, false
		}
		h.prefix = i
	}
	return h, true
}

// newCaps returns the tables of the caps s sets (nil for one it does not)
// for a gate of maxif places.
func newCaps(s *settings, maxif int64) (perKey, perPrefix *keyCaps) {
	if s.perKeySet {
		perKey = newKeyCaps(int32(s.perKey), maxif)
	}
	if s.prefixSet {
		perPrefix = newKeyCaps(int32(s.prefix.Max), maxif)
	}
	return perKey, perPrefix
}

// releaseCaps gives back the places of h, each once.
func (l *Limiter) releaseCaps(h capHold) {
	if h.key >= 0 {
		l.perKey.release(h.key)
	}
	if h.prefix >= 0 {
		l.perPrefix.release(h.prefix)
	}
}

// capShed is the decision of a request over a per-key or per-prefix cap.
var capShed = gate.Decision{Verdict: gate.Shed, Slot: gate.NoWay, Set: gate.NoWay, Way: gate.NoWay, RetryAfter: 1}
