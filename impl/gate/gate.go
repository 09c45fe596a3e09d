package gate

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/limcheck/limcheck/impl/lim"
)

// ErrConfig is wrapped by every error [New] returns for an invalid [Config].
var ErrConfig = errors.New("gate: invalid config")

// MaxWays is the largest table New preallocates, Sets*Ways ways of 16 bytes
// (4 GiB). The model allows any sets and ways >= 1; more than MaxWays in all
// is an implementation limit, reported as a config error.
const MaxWays = 1 << 28

// NoWay is the Way and Slot of a shed [Decision]: a shed reads no way
// (spec GATE-4).
const NoWay int64 = -1

// Config configures a [Gate].
type Config struct {
	Lim       lim.Config // must be valid
	Sets      int64      // number of sets, >= 1
	Ways      int64      // ways per set, >= 1; Sets*Ways <= MaxWays (an admission scans its set)
	TickNanos int64      // the length of one tick in nanoseconds, >= 1
}

// Verdict is the kind of a [Decision]. Its String is the model's name.
type Verdict uint8

// The verdicts of [Gate.Admit].
const (
	Pass    Verdict = iota // both gates passed: call the next handler, then Release
	Shed                   // the in-flight gate is full: 503, Retry-After 1
	Limited                // the key's bucket rejected: 503 with the bucket's retry
)

// String returns "pass", "shed" or "limited", the names spec.md uses.
func (v Verdict) String() string {
	switch v {
	case Pass:
		return "pass"
	case Shed:
		return "shed"
	case Limited:
		return "limited"
	}
	return fmt.Sprintf("Verdict(%d)", uint8(v))
}

// Decision is the outcome of one Admit. It carries no response bytes, so that
// Admit never allocates; [Decision.AppendResponse] writes them. An unexported
// field remembers which in-flight shard a Pass took its place from, so that
// Release(d) gives it back on the same cache line.
type Decision struct {
	Verdict    Verdict
	shard      uint8 // the in-flight shard a Pass took its place from
	Slot       int64 // the table index of the way that holds the key after the take (Set*Ways + Way); NoWay on a shed
	Retry      int64 // the bucket's retry in ticks; 0 unless Limited
	RetryAfter int64 // Retry-After in seconds; 0 on Pass
	Set        int64 // the set of the request's key (a shed reads none of its ways)
	Way        int64 // the way of Set that holds the key after the take; NoWay on a shed
}

// AppendResponse appends the decision's exact 503 response to dst (spec
// GATE-8, GATE-9); a Pass appends nothing.
func (d Decision) AppendResponse(dst []byte) []byte {
	if d.Verdict == Pass {
		return dst
	}
	return lim.AppendResponse503(dst, d.RetryAfter)
}

// Gate is the set-associative table of per-key buckets and the in-flight
// counter. Build one with [New]; it is safe for concurrent use.
type Gate struct {
	t         table
	mod       modulus
	inflight  *semaphore
	fillAfter uint64 // a bucket is certainly full once now - last > fillAfter (see surelyFull)
	cap       int64
	lim       lim.Config
	maxif     int64
	sets      int64
	tickNanos int64
	epoch     time.Time // AdmitNow's tick 0
}

// New returns a gate with every way empty and nothing in flight, or an
// error wrapping [ErrConfig] that names the invalid field (spec GATE-1).
func New(cfg Config) (*Gate, error) {
	switch {
	case !cfg.Lim.Valid():
		return nil, fmt.Errorf("%w: lim config (cap %d, refil %d, ivl %d, maxif %d) is not valid",
			ErrConfig, cfg.Lim.Cap(), cfg.Lim.Refil(), cfg.Lim.Ivl(), cfg.Lim.Maxif())
	case cfg.Sets < 1:
		return nil, fmt.Errorf("%w: sets %d < 1", ErrConfig, cfg.Sets)
	case cfg.Ways < 1:
		return nil, fmt.Errorf("%w: ways %d < 1", ErrConfig, cfg.Ways)
	case cfg.Sets > MaxWays/cfg.Ways:
		return nil, fmt.Errorf("%w: sets %d * ways %d is over the %d ways the implementation preallocates", ErrConfig, cfg.Sets, cfg.Ways, MaxWays)
	case cfg.TickNanos < 1:
		return nil, fmt.Errorf("%w: tick_nanos %d < 1", ErrConfig, cfg.TickNanos)
	}
	return &Gate{
		lim: cfg.Lim, maxif: cfg.Lim.Maxif(), cap: cfg.Lim.Cap(), sets: cfg.Sets,
		t: newTable(cfg.Sets, cfg.Ways, cfg.Lim.Cap()), mod: newModulus(uint64(cfg.Sets)),
		fillAfter: fillAfter(cfg.Lim),
		tickNanos: cfg.TickNanos, epoch: time.Now(), inflight: newSemaphore(cfg.Lim.Maxif()),
	}, nil
}

// fillAfter returns the ticks a bucket of c takes to refill from 0 tokens
// to cap, minus one: ceil(cap / refil) steps of ivl ticks, saturated at
// 2^64 - 1 (then no tick difference exceeds it, and the cheap test never
// decides).
func fillAfter(c lim.Config) uint64 {
	steps := (uint64(c.Cap()) + uint64(c.Refil()) - 1) / uint64(c.Refil()) // cap, refil >= 1: no overflow below 2^64
	hi, lo := bits.Mul64(steps, uint64(c.Ivl()))
	if hi != 0 {
		return math.MaxUint64
	}
	return lo - 1 // lo >= 1
}

// Config returns the config g was built with. Safe for concurrent use.
func (g *Gate) Config() Config {
	return Config{Lim: g.lim, Sets: g.sets, Ways: g.t.n, TickNanos: g.tickNanos}
}

// SetOf returns the set of ip: lim_ip_key(ip) mod Sets (spec GATE-13).
func (g *Gate) SetOf(ip string) int64 { return g.setOf(lim.IPKey(ip)) }

func (g *Gate) setOf(key int64) int64 { return int64(g.mod.mod(uint64(key))) }

// WayOf returns the set and the way that hold the key of ip, and true, or
// false when no way holds it. A way whose bucket is full still holds its key
// until it is reused; use [Gate.Bucket] for what a decision can observe. It
// waits for an Admit of the set.
func (g *Gate) WayOf(ip string) (set, way int64, ok bool) {
	key := lim.IPKey(ip)
	set = g.setOf(key)
	base := set * g.t.n
	i := g.t.find(base, g.t.lock(base), uint64(key)+1)
	g.t.unlock(base)
	return set, int64(i), i >= 0
}

// InFlight returns the exact number of passed requests not yet released. It
// briefly stops every Admit and Release that needs the in-flight count, so it
// is for tests and diagnostics, not for every request.
func (g *Gate) InFlight() int64 { return g.inflight.load() }

// Bucket returns the bucket of the key of ip and true, or a zero bucket and
// false when no way holds the key or its bucket is full at now (such a way behaves as empty,
// spec GATE-14). The bucket is the stored one, not refilled. It waits for an
// Admit of the set.
func (g *Gate) Bucket(ip string, now int64) (lim.Bucket, bool) {
	return g.bucket(lim.IPKey(ip), now)
}

// BucketBytes is Bucket(string(ip), now) without the conversion.
func (g *Gate) BucketBytes(ip []byte, now int64) (lim.Bucket, bool) {
	return g.bucket(lim.IPKeyBytes(ip), now)
}

func (g *Gate) bucket(key, now int64) (lim.Bucket, bool) {
	base := g.setOf(key) * g.t.n
	w0 := g.t.lock(base)
	defer g.t.unlock(base)
	i := g.t.find(base, w0, uint64(key)+1)
	if i < 0 {
		return lim.Bucket{}, false
	}
	if b := g.t.bucket(base, i, g.t.kt(base, w0, i)); !g.full(b, now) {
		return b, true
	}
	return lim.Bucket{}, false
}

// full reports whether b is full at now: its refill reaches cap (spec GATE-14).
func (g *Gate) full(b lim.Bucket, now int64) bool {
	if g.surelyFull(b, now) {
		return true
	}
	r := g.lim.Take(b, now, 1)
	return r.OK == 1 && r.Tks == g.cap-1 // refilled - 1 = cap - 1
}

// surelyFull reports that b, a stored bucket (tks >= 0), is full at now
// because at least ceil(cap / refil) whole steps have passed since its last:
// from 0 tokens that many steps refill to cap (LIM-9, LIM-10). It is the
// test without a division; false means only that a take must decide.
func (g *Gate) surelyFull(b lim.Bucket, now int64) bool {
	return now >= b.Last && uint64(now)-uint64(b.Last) > g.fillAfter
}

// Now returns the gate's monotonic clock in ticks since New, for AdmitNow.
func (g *Gate) Now() int64 { return int64(time.Since(g.epoch)) / g.tickNanos }

// AdmitNow is Admit(ip, g.Now()): shorthand for the gate's real clock.
func (g *Gate) AdmitNow(ip string) Decision { return g.Admit(ip, g.Now()) }

// Admit decides one request from ip at tick now, at a cost of one token (spec
// GATE-4..GATE-10, GATE-13..GATE-17). A Pass must be followed by one
// Release(d) once the response is written.
func (g *Gate) Admit(ip string, now int64) Decision { return g.admit(lim.IPKey(ip), now) }

// AdmitBytes is Admit(string(ip), now) without the conversion, which copies
// ip (to the heap when it is over 32 bytes): for a caller that builds keys in
// a buffer. It only reads ip, and keeps nothing of it.
func (g *Gate) AdmitBytes(ip []byte, now int64) Decision {
	return g.admit(lim.IPKeyBytes(ip), now)
}

// admit is Admit of lim_ip_key key. It holds the key's set for the whole
// decision: the way it picks, the take (pure) and the in-flight test, so
// that a key is in at most one way and an eviction sees the whole set. A
// pass takes effect at the CAS that takes a place, a limited request at the
// read that proves a place was free, a shed at the read that proves none
// was; a shed writes nothing.
func (g *Gate) admit(key, now int64) Decision {
	si := g.inflight.localShard()
	sh := &g.inflight.shards[si]
	set := g.setOf(key)
	base := set * g.t.n
	k1 := uint64(key) + 1
	lw := &g.t.ways[base].kt
	w0, ok := tryLock(lw) // g.t.lock(base), its uncontended case inlined
	if !ok {
		w0 = lockSlow(lw)
	}
	i, r, drop := g.place(base, w0, k1, now)
	switch {
	case r.OK == 1 && (sh.acquireFast() || g.inflight.tryAcquireLoop(sh)): // tryAcquire, its fast path inlined
		g.t.putUnlock(base, i, drop, k1, r.Bucket()) // spec GATE-6
		return Decision{Verdict: Pass, shard: uint8(si), Slot: base + int64(i), Set: set, Way: int64(i)}
	case r.OK == 0 && g.inflight.hasFree(sh):
		g.t.putUnlock(base, i, drop, k1, r.Bucket())
		return Decision{Verdict: Limited, Slot: base + int64(i), Set: set, Way: int64(i),
			Retry: r.Retry, RetryAfter: RetryAfterSeconds(r.Retry, g.tickNanos)}
	}
	g.t.unlock(base)                                                                 // spec GATE-4: a shed writes no way
	return Decision{Verdict: Shed, Slot: NoWay, Set: set, Way: NoWay, RetryAfter: 1} // GATE-9
}

// place returns the way of set base that key+1 k1 uses at now, the result
// of its take of one token, and a way to empty (another way that held the
// key, or -1); nothing is written. Lock held; w0 is way 0's word.
func (g *Gate) place(base int64, w0, k1 uint64, now int64) (int, lim.TakeResult, int) {
	// spec GATE-10: a key that no way holds, or whose bucket is full at now,
	// takes from lim_bkt_new(cap, now): one token of cap, last = now.
	born := lim.TakeResult{OK: 1, Tks: g.cap - 1, Last: now}
	old := g.t.find(base, w0, k1)
	if old >= 0 {
		// spec GATE-15 (a): the way that holds the key, if its bucket is not
		// full at now (the take of a full bucket passes with cap - 1 left).
		if b := g.t.bucket(base, old, g.t.kt(base, w0, old)); !g.surelyFull(b, now) {
			if r := g.lim.Take(b, now, 1); r.OK == 0 || r.Tks != g.cap-1 {
				return old, r, -1
			}
		}
	}
	victim, most := 0, int64(-1)
	for i := range int(g.t.n) {
		tks := g.cap // an empty way, or the key's own full way: no take to test
		if kt := g.t.kt(base, w0, i); i != old && kt>>32 != 0 {
			if b := g.t.bucket(base, i, kt); !g.surelyFull(b, now) {
				r := g.lim.Take(b, now, 1)
				tks = r.Tks + r.OK // tks' of LIM-10: the take's tks plus the token it took
			}
		}
		if tks == g.cap {
			// spec GATE-15 (b): the lowest way that is empty or full at now
			// (the key's own full way is one, no lower for holding it); any
			// other way that held the key is emptied.
			if old == i {
				old = -1
			}
			return i, born, old
		}
		// spec GATE-16: evict the way whose refilled bucket holds the most
		// tokens, ties to the lowest way.
		if tks > most {
			victim, most = i, tks
		}
	}
	return victim, born, -1 // old < 0 here: a key's full way ends the loop above
}

// Release gives back one in-flight place, flooring at 0 (spec GATE-11). d is
// the Pass decision whose place is given back; it only says where to look
// first, so the count is exact whatever d is (an extra Release does nothing
// when nothing is in flight, as lim_rel floors at 0).
func (g *Gate) Release(d Decision) {
	g.inflight.release(&g.inflight.shards[int(d.shard)&(len(g.inflight.shards)-1)])
}

// RetryAfterSeconds converts retry ticks of tickNanos nanoseconds to
// Retry-After seconds: max(1, ceil(retry*tickNanos / 1e9)), exact, saturated
// at MaxInt64 (spec GATE-12).
func RetryAfterSeconds(retry, tickNanos int64) int64 {
	if retry <= 0 || tickNanos <= 0 {
		return 1
	}
	hi, lo := bits.Mul64(uint64(retry), uint64(tickNanos))
	const second = 1_000_000_000
	if hi >= second {
		return math.MaxInt64
	}
	q, r := bits.Div64(hi, lo, second)
	if r != 0 {
		q++ // q < 2^64 - 1 here: hi < 1e9
	}
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return max(int64(q), 1)
}
