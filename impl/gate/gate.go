package gate

import (
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"time"
	"unsafe"

	"github.com/limcheck/limcheck/impl/internal/siphash"
	"github.com/limcheck/limcheck/impl/lim"
)

// ErrConfig is wrapped by every error [New] returns for an invalid [Config].
var ErrConfig = errors.New("gate: invalid config")

// MaxWays is the largest table New preallocates, Sets*Ways ways of 16 bytes
// (4 GiB). The model allows any sets and ways >= 1; more than MaxWays in all
// is an implementation limit, reported as a config error.
const MaxWays = 1 << 28

// NoWay is the Way and Slot of a [Decision] after which no way holds the
// key: a shed, which reads no way (spec GATE-4), and a newcomer whose
// eviction the set's budget refused (spec GATE-19).
const NoWay int64 = -1

// Config configures a [Gate].
//
// Sizing (spec "What the table guarantees", FIND-27, PROP-26, PROP-27,
// DEC-57): keep the live addresses, those whose bucket is not full (active
// within cap/refil*ivl ticks), at most half of Sets*Ways, with Ways >= 8.
// A set that holds more than Ways live keys admits a newcomer only at one
// bucket's rate, its budget's (FIND-27), and gains a flood at most one
// address's worth; with that sizing few sets overflow (about 2% at half
// load with 8 ways, 0.4% with 16), so a flood gains nothing over its
// addresses' own limits.
type Config struct {
	Lim       lim.Config // must be valid
	Sets      int64      // number of sets, >= 1
	Ways      int64      // ways per set, >= 1; Sets*Ways <= MaxWays (an admission scans its set)
	TickNanos int64      // the length of one tick in nanoseconds, >= 1
	// Seed is the secret that places keys in sets (spec GATE-18). nil, the
	// production default, makes New draw 16 bytes from crypto/rand; that
	// seed is never logged nor returned. A non-nil seed is used as given (New
	// reads it and keeps nothing of it but its expanded key): for tests and
	// vectors, which pin placements, and for gates that must agree.
	Seed *[16]byte
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
	Slot       int64 // the table index of the way that holds the key after the take (Set*Ways + Way); NoWay on a shed or a refused eviction
	Retry      int64 // the bucket's (or the set's budget's) retry in ticks; 0 unless Limited
	RetryAfter int64 // Retry-After in seconds; 0 on Pass
	Set        int64 // the set of the request's key (a shed reads none of its ways)
	Way        int64 // the way of Set that holds the key after the take; NoWay on a shed or a refused eviction
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
	key       siphash.Key // the seed's, expanded (spec GATE-18)
	mod       modulus
	budgets   []budget // one per set (spec GATE-19); the zero budget is absent
	inflight  *semaphore
	fillAfter uint64 // a bucket is certainly full once now - last > fillAfter (see surelyFull)
	cap       int64
	lim       lim.Config
	maxif     int64
	sets      int64
	tickNanos int64
	epoch     time.Time // AdmitNow's tick 0
}

// New returns a gate with every way empty, every set's budget absent and
// nothing in flight, or an error wrapping [ErrConfig] that names the invalid
// field (spec GATE-1, GATE-2). A nil cfg.Seed draws a secret seed from
// crypto/rand.
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
	var seed [16]byte
	if cfg.Seed != nil {
		seed = *cfg.Seed
	} else {
		// spec GATE-18: "An implementation draws a production gate's seed from a cryptographically secure source unless its caller gives one, and never logs or returns it."
		rand.Read(seed[:]) // never fails (crypto/rand, Go 1.24)
	}
	return &Gate{
		lim: cfg.Lim, maxif: cfg.Lim.Maxif(), cap: cfg.Lim.Cap(), sets: cfg.Sets,
		t: newTable(cfg.Sets, cfg.Ways, cfg.Lim.Cap()), key: siphash.New(seed), mod: newModulus(uint64(cfg.Sets)),
		budgets: make([]budget, cfg.Sets), fillAfter: fillAfter(cfg.Lim),
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

// Config returns the config g was built with, but for its Seed, which is
// nil: the gate keeps only the key expanded from its seed and never
// returns the seed (spec GATE-18), given or drawn, as impl/redisgate's
// Config does not. Safe for concurrent use.
func (g *Gate) Config() Config {
	return Config{Lim: g.lim, Sets: g.sets, Ways: g.t.n, TickNanos: g.tickNanos}
}

// SetOf returns the set of ip: SipHash-2-4 of lim_ip_key(ip) under the
// seed, mod Sets (spec GATE-13, GATE-18).
func (g *Gate) SetOf(ip string) int64 { return g.setOf(lim.IPKey(ip)) }

func (g *Gate) setOf(key int64) int64 {
	// spec GATE-13: "The key of a request from ip is k = lim_ip_key(ip) and its set is s = h mod sets, where h = siphash(seed, k) is GATE-18's 64-bit hash"
	return int64(g.mod.mod(g.key.Sum64(uint64(key))))
}

// WayOf returns the set and the way that hold the key of ip, and true, or
// false when no way holds it. A way whose bucket is full still holds its key
// until it is reused; use [Gate.Bucket] for what a decision can observe. It
// waits for an Admit of the set.
func (g *Gate) WayOf(ip string) (set, way int64, ok bool) {
	key := lim.IPKey(ip)
	set = g.setOf(key)
	base := set * g.t.n
	g.t.lock(base)
	i := find(g.t.set(base), uint64(key)+1)
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
	g.t.lock(base)
	defer g.t.unlock(base)
	ws := g.t.set(base)
	i := find(ws, uint64(key)+1)
	if i < 0 {
		return lim.Bucket{}, false
	}
	if b := g.t.bucket(ws, base, i); !g.full(b, now) {
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
func (g *Gate) surelyFull(b lim.Bucket, now int64) bool { return g.surelyFullAt(b.Last, now) }

// surelyFullAt is surelyFull of a stored bucket whose last is last.
func (g *Gate) surelyFullAt(last, now int64) bool {
	return now >= last && uint64(now)-uint64(last) > g.fillAfter
}

// Now returns the gate's monotonic clock in ticks since New, for AdmitNow.
func (g *Gate) Now() int64 { return int64(time.Since(g.epoch)) / g.tickNanos }

// AdmitNow is Admit(ip, g.Now()): shorthand for the gate's real clock.
func (g *Gate) AdmitNow(ip string) Decision { return g.Admit(ip, g.Now()) }

// Admit decides one request from ip at tick now, at a cost of one token (spec
// GATE-4..GATE-10, GATE-13..GATE-17). A Pass must be followed by one
// Release(d) once the response is written.
func (g *Gate) Admit(ip string, now int64) Decision {
	// One call, small enough to inline into the caller, so that the
	// Decision comes back in registers, not through a copy in this frame.
	return g.admit(ip, now)
}

// AdmitBytes is Admit(string(ip), now) without the conversion, which copies
// ip (to the heap when it is over 32 bytes): for a caller that builds keys in
// a buffer. It only reads ip, and keeps nothing of it.
func (g *Gate) AdmitBytes(ip []byte, now int64) Decision {
	// A string view of ip, not a copy: admit only reads it, through
	// lim.IPKey, before it returns, and keeps nothing of it (as
	// lim.IPKeyBytes does).
	return g.admit(unsafe.String(unsafe.SliceData(ip), len(ip)), now)
}

// admit is Admit of ip, whose key is lim_ip_key(ip). It holds the key's set
// for the whole decision: the way it picks, the takes (pure) and the
// in-flight test, so that a key is in at most one way and an eviction sees
// the whole set and its budget. A pass takes effect at the CAS that takes a place, a limited
// request at the read that proves a place was free, a shed at the read that
// proves none was; a shed writes nothing.
func (g *Gate) admit(ip string, now int64) Decision {
	key := lim.IPKey(ip)
	// spec GATE-13: "The key of a request from ip is k = lim_ip_key(ip) and its set is s = h mod sets, where h = siphash(seed, k) is GATE-18's 64-bit hash"
	set := int64(g.mod.mod(g.key.Sum64(uint64(key)))) // setOf, inlined
	base := set * g.t.n
	ws := g.t.set(base)
	if _, ok := tryLock(&ws[0].kt); !ok { // g.t.lock(base), its uncontended case inlined
		lockSlow(&ws[0].kt)
	}
	k1 := uint64(key) + 1
	// place's commonest outcome, decided inline: the key's way, if any, is
	// surely full (so it takes from GATE-10's born-full bucket), and way 0
	// is the key's, empty or surely full, so GATE-15 (b) picks it.
	i, r, drop := 0, lim.TakeResult{OK: 1, Tks: g.cap - 1, Last: now}, find(ws, k1)
	if (drop >= 0 && !g.surelyFullAt(ws[drop].last, now)) ||
		(drop != 0 && wordOf(ws, 0)>>32 != 0 && !g.surelyFullAt(ws[0].last, now)) {
		i, r, drop = g.place(ws, base, drop, k1, now)
	}
	si := g.inflight.localShard()
	sh := &g.inflight.shards[si]
	var d Decision
	switch {
	case drop == evict:
		return g.evict(set, base, i, k1, now, r.Tks, si)
	case r.OK == 1 && (sh.acquireFast() || g.inflight.tryAcquireLoop(sh)): // tryAcquire, its fast path inlined
		// spec GATE-6
		d = Decision{Verdict: Pass, shard: uint8(si), Slot: base + int64(i), Set: set, Way: int64(i)}
	case r.OK == 0 && g.inflight.hasFree(sh):
		d = Decision{Verdict: Limited, Slot: base + int64(i), Set: set, Way: int64(i),
			Retry: r.Retry, RetryAfter: RetryAfterSeconds(r.Retry, g.tickNanos)}
	default:
		g.t.unlock(base)
		return shed(set)
	}
	g.t.putUnlock(ws, base, i, drop, k1, r.Bucket()) // drop 0 (the key's way is way 0, i) empties nothing
	return d
}

// shed is the decision of a shed in set: it names no way and answers
// Retry-After 1 (spec GATE-4, GATE-9).
func shed(set int64) Decision {
	return Decision{Verdict: Shed, Slot: NoWay, Set: set, Way: NoWay, RetryAfter: 1}
}

// evict ends admit when key+1 k1 must evict way i of set (first way base)
// whose refilled bucket holds most tokens: the set's budget pays cap - most
// (spec GATE-16, GATE-19). Lock held; it unlocks. si is the caller's
// in-flight shard. A shed writes nothing, the budget included: the
// in-flight gate runs first (GATE-4).
func (g *Gate) evict(set, base int64, i int, k1 uint64, now, most int64, si int) Decision {
	sh := &g.inflight.shards[si]
	// spec GATE-19: "where budget is the set's stored budget, or lim_bkt_new(cap, now) when the set has none or its stored budget is full at now (GATE-14's test)."
	b := g.budgets[set].bucket(g.cap)
	if g.full(b, now) {
		b = lim.NewBucket(g.cap, now)
	}
	// spec GATE-16: "the eviction costs cap - tks' of the victim (at least 1: a victim is not full). The set's budget pays it (GATE-19)."
	pay := g.lim.Take(b, now, g.cap-most)
	switch {
	case pay.OK == 1 && (sh.acquireFast() || g.inflight.tryAcquireLoop(sh)):
		// spec GATE-19: "The set keeps the take's result as its budget on both outcomes. If the take passes, the eviction happens (GATE-16)."
		g.budgets[set] = makeBudget(pay.Bucket(), g.cap)
		// spec GATE-16: "the way now holds k, which takes from GATE-10's born-full bucket."
		g.t.putUnlock(g.t.set(base), base, i, -1, k1, lim.Bucket{Tks: g.cap - 1, Last: now})
		return Decision{Verdict: Pass, shard: uint8(si), Slot: base + int64(i), Set: set, Way: int64(i)}
	case pay.OK == 0 && g.inflight.hasFree(sh):
		// spec GATE-19: "If it rejects, the verdict is limited as in GATE-8, with the budget take's retry and its GATE-12 conversion and lim_resp_503; in-flight is unchanged, no way is written, and k has no way."
		g.budgets[set] = makeBudget(pay.Bucket(), g.cap)
		g.t.unlock(base)
		return Decision{Verdict: Limited, Slot: NoWay, Set: set, Way: NoWay,
			Retry: pay.Retry, RetryAfter: RetryAfterSeconds(pay.Retry, g.tickNanos)}
	}
	g.t.unlock(base)
	return shed(set)
}

// evict is place's drop when the way it returns must be evicted (spec
// GATE-16); the take result then carries the victim's tks' in Tks.
const evict = -2

// budget is a set's eviction budget (spec GATE-19) as cap minus its tokens,
// and its last tick, so that the zero budget, cap tokens, is full at every
// now: exactly as an absent one, which GATE-19 replaces by lim_bkt_new(cap,
// now). Read and written under the set's lock.
type budget struct {
	spent int64 // cap - tks
	last  int64
}

// bucket returns the budget's bucket for a gate of cap.
func (b budget) bucket(cap int64) lim.Bucket { return lim.Bucket{Tks: cap - b.spent, Last: b.last} }

// makeBudget returns the budget of bucket b (0 <= b.Tks <= cap).
func makeBudget(b lim.Bucket, cap int64) budget { return budget{spent: cap - b.Tks, last: b.Last} }

// place returns the way of set ws (first way base), where way old holds
// key+1 k1 (-1: none), that k1 uses at now, the result
// of its take of one token, and a way to empty (another way that held the
// key, or -1); nothing is written. When every way holds another key whose
// bucket is not full at now, the way is the victim, drop is [evict] and
// the result's Tks is the victim's refilled tokens. Lock held.
func (g *Gate) place(ws []way, base int64, old int, k1 uint64, now int64) (int, lim.TakeResult, int) {
	// spec GATE-10: a key that no way holds, or whose bucket is full at now,
	// takes from lim_bkt_new(cap, now): one token of cap, last = now.
	born := lim.TakeResult{OK: 1, Tks: g.cap - 1, Last: now}
	if old >= 0 {
		// spec GATE-15 (a): the way that holds the key, if its bucket is not
		// full at now (the take of a full bucket passes with cap - 1 left).
		if b := g.t.bucket(ws, base, old); !g.surelyFull(b, now) {
			if r := g.lim.Take(b, now, 1); r.OK == 0 || r.Tks != g.cap-1 {
				return old, r, -1
			}
		}
	}
	victim, most := 0, int64(-1)
	for i := range ws {
		tks := g.cap // an empty way, or the key's own full way: no take to test
		if i != old && wordOf(ws, i)>>32 != 0 {
			if b := g.t.bucket(ws, base, i); !g.surelyFull(b, now) {
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
		// spec GATE-16: the victim is the way whose refilled bucket holds
		// the most tokens, ties to the lowest way.
		if tks > most {
			victim, most = i, tks
		}
	}
	return victim, lim.TakeResult{Tks: most}, evict // old < 0 here: a key's full way ends the loop above
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
