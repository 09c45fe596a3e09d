package gate

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/limcheck/limcheck/impl/lim"
)

// This file is API beyond spec.md: a table of token buckets with no
// in-flight count of its own, for the policies of impl/httplimit, which run
// under one Gate's in-flight count. Its buckets follow lim_take (spec LIM-7
// to LIM-13) and its table the Gate's placement (GATE-14 to GATE-16, GATE-19:
// a full bucket behaves as empty, a newcomer evicts the way with the most
// tokens if the set's budget pays for it); what it adds is a cost per take,
// a key of any bytes, and limits that change at run time.

// ErrBuckets is wrapped by every error [NewBuckets] and
// [Buckets.SetLimits] return.
var ErrBuckets = errors.New("gate: invalid buckets config")

// Limits are the bucket parameters of a [Buckets] table: Cap tokens at
// most, Refil more every Ivl ticks (lim_cfg's cap, refil and ivl).
type Limits struct {
	Cap, Refil, Ivl int64
}

// check returns an error wrapping ErrBuckets when l is out of range for a
// table whose tokens fit 31 bits (narrow) or not.
func (l Limits) check(narrow bool) error {
	switch {
	case l.Cap < 1 || l.Refil < 1 || l.Ivl < 1:
		return fmt.Errorf("%w: cap %d, refil %d, ivl %d: each must be >= 1", ErrBuckets, l.Cap, l.Refil, l.Ivl)
	case narrow && l.Cap > maxNarow:
		return fmt.Errorf("%w: cap %d is over %d, the most a table built with a smaller cap holds: build a new table", ErrBuckets, l.Cap, maxNarow)
	}
	return nil
}

// FullIn returns the ticks from now until b, a bucket under l, is full
// (0 when it is full at now): the first tick at which lim_take's refill
// (spec LIM-9, LIM-10) reaches Cap, minus now, saturated at MaxInt64.
func (l Limits) FullIn(b lim.Bucket, now int64) int64 { return l.WaitFor(b, now, l.Cap) }

// MoreIn returns the ticks from now until b, a bucket under l refilled to
// now (as [Buckets.Take] returns it), holds more tokens (the end of the
// refill step now lies in), or 0 when it is full: no more will come.
func (l Limits) MoreIn(b lim.Bucket, now int64) int64 {
	if b.Tks >= l.Cap {
		return 0
	}
	return l.WaitFor(b, now, b.Tks+1)
}

// WaitFor returns the ticks from now until b, a bucket under l refilled to
// now, holds n tokens (n <= Cap): the first tick at which lim_take's
// refill of b reaches n, minus now; 0 when it holds them at now. It is
// when a take of n first passes, absent other takes.
func (l Limits) WaitFor(b lim.Bucket, now, n int64) int64 {
	if b.Tks >= n {
		return 0
	}
	steps := uint64(n-b.Tks+l.Refil-1) / uint64(l.Refil) // ceil((n - tks) / refil) >= 1
	return waitSteps(b.Last, steps, l.Ivl, now)
}

// waitSteps returns max(last + steps*ivl - now, 0), exact, saturated at
// MaxInt64.
func waitSteps(last int64, steps uint64, ivl, now int64) int64 {
	hi, span := bits.Mul64(steps, uint64(ivl))
	if hi != 0 || span > math.MaxInt64 {
		return math.MaxInt64
	}
	if now >= last {
		since := uint64(now) - uint64(last) // exact: 0 <= now-last < 2^64
		if since >= span {
			return 0
		}
		return int64(span - since)
	}
	ahead := uint64(last) - uint64(now)
	if ahead > math.MaxInt64-span {
		return math.MaxInt64
	}
	return int64(ahead + span)
}

// BucketsConfig configures [NewBuckets]: the limits and the table's Sets
// sets of Ways ways (16 bytes a way, 16 more a set; size it as
// [Config] says, by the keys whose bucket is not full).
type BucketsConfig struct {
	Limits     Limits
	Sets, Ways int64
}

// Buckets is a set-associative table of token buckets keyed by any bytes,
// without an in-flight count: [Buckets.Take] takes cost tokens from the
// bucket of a key. A key's bytes are hashed with a seed drawn for the
// table (hash/maphash), so that no one can choose keys that share a bucket
// or a set; two keys share a bucket when their 32-bit hashes agree (about
// one pair in 2^32). Its limits change at run time ([Buckets.SetLimits])
// and keep every bucket; a table of another size is a new table. Safe for
// concurrent use; Take allocates nothing. API beyond spec.md.
type Buckets struct {
	g    Gate // the table, budgets and limits of a Gate; no in-flight count
	seed maphash.Seed
	mu   sync.Mutex             // serialises SetLimits
	cur  atomic.Pointer[Limits] // the limits, for Limits
}

// NewBuckets returns a table of empty buckets, or an error wrapping
// [ErrBuckets] that names what is out of range.
func NewBuckets(c BucketsConfig) (*Buckets, error) {
	if err := c.Limits.check(false); err != nil {
		return nil, err
	}
	switch {
	case c.Sets < 1 || c.Ways < 1:
		return nil, fmt.Errorf("%w: sets %d, ways %d: each must be >= 1", ErrBuckets, c.Sets, c.Ways)
	case c.Sets > MaxWays/c.Ways:
		return nil, fmt.Errorf("%w: sets %d * ways %d is over %d ways", ErrBuckets, c.Sets, c.Ways, MaxWays)
	}
	t := &Buckets{seed: maphash.MakeSeed()}
	t.g = Gate{
		t: newTable(c.Sets, c.Ways, c.Limits.Cap), mod: newModulus(uint64(c.Sets)),
		budgets: make([]budget, c.Sets), sets: c.Sets,
	}
	t.g.setLimits(c.Limits)
	l := c.Limits
	t.cur.Store(&l)
	return t, nil
}

// setLimits sets the limits g's takes read; every set's lock held, or g
// not yet shared.
func (g *Gate) setLimits(l Limits) {
	g.lim = lim.NewConfig(l.Cap, l.Refil, l.Ivl, 1)
	g.cap = l.Cap
	g.fillAfter = fillAfter(g.lim)
	for i := range g.budgets {
		g.budgets[i].spent = min(g.budgets[i].spent, l.Cap) // at most an empty budget
	}
}

// Limits returns the table's current limits. Safe for concurrent use.
func (t *Buckets) Limits() Limits { return *t.cur.Load() }

// SetLimits makes every later take use l, and keeps every bucket: a stored
// bucket refills under l from its tokens and last tick (tokens over a
// lower Cap count as Cap), and each set's eviction budget keeps what it has
// spent, at most Cap. It holds every set's lock while it writes, so that
// each take decides under one set of limits. It fails, changing nothing,
// when l is out of range, or when l.Cap is over 2^31-1 and the table was
// built with a Cap below it (its ways keep 31 bits of tokens): such a
// change needs a new table.
func (t *Buckets) SetLimits(l Limits) error {
	if err := l.check(t.g.t.wide == nil); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	g := &t.g
	for s := range g.sets {
		g.t.lock(s * g.t.n) // in order: no deadlock with another locker of several sets
	}
	g.setLimits(l)
	t.cur.Store(&l)
	for s := range g.sets {
		g.t.unlock(s * g.t.n)
	}
	return nil
}

// Take is the outcome of [Buckets.Take].
type Take struct {
	OK bool // the bucket paid the cost
	// Retry is lim_take's retry in ticks on a reject (spec LIM-12), or the
	// set's budget's when the key was refused a way; 0 on a pass.
	Retry int64
	// Bucket is the key's bucket after the take (refilled to now, the cost
	// spent on a pass), the one the decision read. When the key was refused
	// a way (Way false) it is empty at now: the key has no bucket, and
	// comes back born full once the budget pays (after Retry).
	Bucket lim.Bucket
	// Way is false when no way holds the key after the take: a newcomer
	// whose eviction the set's budget refused.
	Way bool
	// Limits are the limits the take was decided under.
	Limits Limits
}

// Take takes cost tokens from the bucket of key at tick now (lim_take,
// spec LIM-7 to LIM-13): a key no way holds, or whose bucket is full at now,
// takes from a full bucket born at now. A cost over Cap is an ordinary
// reject (LIM-12: the bucket can never hold it) and writes nothing; a
// cost below 1 counts as 1. It reads key and keeps nothing of it.
func (t *Buckets) Take(key []byte, now, cost int64) Take {
	cost = max(cost, 1)
	h := maphash.Bytes(t.seed, key)
	k1 := h>>32%(1<<32-1) + 1 // 1..2^32-1: 0 is an empty way
	g := &t.g
	set := int64(g.mod.mod(h & (1<<32 - 1)))
	base := set * g.t.n
	ws := g.t.set(base)
	g.t.lock(base)
	lm := Limits{Cap: g.cap, Refil: g.lim.Refil(), Ivl: g.lim.Ivl()}
	old := find(ws, k1)
	if cost > g.cap {
		b := lim.NewBucket(g.cap, now)
		if old >= 0 && !g.full(g.t.bucket(ws, base, old), now) {
			b = g.t.bucket(ws, base, old)
		}
		g.t.unlock(base)
		r := g.lim.Take(b, now, cost)
		return Take{Retry: r.Retry, Bucket: r.Bucket(), Way: old >= 0, Limits: lm}
	}
	born := lim.TakeResult{OK: 1, Tks: g.cap - 1, Last: now}
	i, r, drop := g.place(ws, base, old, k1, now)
	if drop == evict {
		return t.evict(set, base, i, k1, now, r.Tks, cost, lm)
	}
	if cost != 1 {
		b := lim.NewBucket(g.cap, now)
		if r != born {
			b = g.t.bucket(ws, base, i) // the key's own bucket, not full
		}
		r = g.lim.Take(b, now, cost)
	}
	g.t.putUnlock(ws, base, i, drop, k1, r.Bucket())
	return Take{OK: r.OK == 1, Retry: r.Retry, Bucket: r.Bucket(), Way: true, Limits: lm}
}

// evict ends Take when the newcomer key+1 k1 must evict way i of set (first
// way base), whose refilled bucket holds most tokens: the set's budget pays
// cap - most (spec GATE-16, GATE-19), and the newcomer takes cost from a
// bucket born full at now. Lock held; it unlocks.
func (t *Buckets) evict(set, base int64, i int, k1 uint64, now, most, cost int64, lm Limits) Take {
	g := &t.g
	b := g.budgets[set].bucket(g.cap)
	if g.full(b, now) {
		b = lim.NewBucket(g.cap, now)
	}
	pay := g.lim.Take(b, now, g.cap-most)
	g.budgets[set] = makeBudget(pay.Bucket(), g.cap)
	if pay.OK == 0 {
		g.t.unlock(base)
		return Take{Retry: pay.Retry, Bucket: lim.Bucket{Last: now}, Limits: lm}
	}
	nb := lim.Bucket{Tks: g.cap - cost, Last: now}
	g.t.putUnlock(g.t.set(base), base, i, -1, k1, nb)
	return Take{OK: true, Bucket: nb, Way: true, Limits: lm}
}
