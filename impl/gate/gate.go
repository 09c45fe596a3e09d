package gate

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/limcheck/limcheck/impl/lim"
)

// ErrConfig is wrapped by every error [New] returns for an invalid [Config].
var ErrConfig = errors.New("gate: invalid config")

// MaxSlots is the largest slot table New preallocates (16 bytes a slot:
// 4 GiB). The model allows any slots >= 1; more than MaxSlots is an
// implementation limit, reported as a config error.
const MaxSlots = 1 << 28

// Config configures a [Gate].
type Config struct {
	Lim       lim.Config // must be valid
	Slots     int64      // number of bucket slots, 1..MaxSlots
	TickNanos int64      // the length of one tick in nanoseconds, >= 1
}

// Verdict is the kind of a [Decision]. Its String is the model's name.
type Verdict uint8

// The verdicts of [Gate.Admit].
const (
	Pass    Verdict = iota // both gates passed: call the next handler, then Release
	Shed                   // the in-flight gate is full: 503, Retry-After 1
	Limited                // the slot's bucket rejected: 503 with the bucket's retry
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
	Slot       int64 // the slot of the request's key
	Retry      int64 // the bucket's retry in ticks; 0 unless Limited
	RetryAfter int64 // Retry-After in seconds; 0 on Pass
}

// AppendResponse appends the decision's exact 503 response to dst (spec
// GATE-8, GATE-9); a Pass appends nothing.
func (d Decision) AppendResponse(dst []byte) []byte {
	if d.Verdict == Pass {
		return dst
	}
	return lim.AppendResponse503(dst, d.RetryAfter)
}

// Gate is the slot table and the in-flight counter. Build one with [New]; it
// is safe for concurrent use.
type Gate struct {
	lim       lim.Config
	maxif     int64
	cap       int64
	slots     []slot
	mod       modulus
	tickNanos int64
	epoch     time.Time // AdmitNow's tick 0
	inflight  *semaphore
}

// slot is one bucket: state is 0 untouched, 1 held, else ^tks. last is read
// and written only by the slot's holder; the Swap that takes the slot and the
// Store that gives it back order those accesses (the Go memory model's
// synchronized-before for sync/atomic), so last needs no atomic of its own.
type slot struct {
	state atomic.Int64
	last  int64
}

const (
	untouched int64 = 0
	held      int64 = 1
)

// New returns a gate with every slot untouched and nothing in flight, or an
// error wrapping [ErrConfig] that names the invalid field (spec GATE-1).
func New(cfg Config) (*Gate, error) {
	switch {
	case !cfg.Lim.Valid():
		return nil, fmt.Errorf("%w: lim config (cap %d, refil %d, ivl %d, maxif %d) is not valid",
			ErrConfig, cfg.Lim.Cap(), cfg.Lim.Refil(), cfg.Lim.Ivl(), cfg.Lim.Maxif())
	case cfg.Slots < 1 || cfg.Slots > MaxSlots:
		return nil, fmt.Errorf("%w: slots %d outside 1..%d", ErrConfig, cfg.Slots, MaxSlots)
	case cfg.TickNanos < 1:
		return nil, fmt.Errorf("%w: tick_nanos %d < 1", ErrConfig, cfg.TickNanos)
	}
	return &Gate{
		lim: cfg.Lim, maxif: cfg.Lim.Maxif(), cap: cfg.Lim.Cap(),
		slots: make([]slot, cfg.Slots), mod: newModulus(uint64(cfg.Slots)),
		tickNanos: cfg.TickNanos, epoch: time.Now(), inflight: newSemaphore(cfg.Lim.Maxif()),
	}, nil
}

// Config returns the config g was built with. Safe for concurrent use.
func (g *Gate) Config() Config {
	return Config{Lim: g.lim, Slots: int64(len(g.slots)), TickNanos: g.tickNanos}
}

// SlotOf returns the slot of ip: lim_ip_key(ip) mod Slots (spec GATE-3).
func (g *Gate) SlotOf(ip string) int64 { return int64(g.mod.mod(uint64(lim.IPKey(ip)))) }

// InFlight returns the exact number of passed requests not yet released. It
// briefly stops every Admit and Release that needs the in-flight count, so it
// is for tests and diagnostics, not for every request.
func (g *Gate) InFlight() int64 { return g.inflight.load() }

// Bucket returns the bucket of slot and true, or false when the slot is
// untouched or out of range. It waits for an Admit holding the slot.
func (g *Gate) Bucket(slot int64) (lim.Bucket, bool) {
	if slot < 0 || slot >= int64(len(g.slots)) {
		return lim.Bucket{}, false
	}
	s := &g.slots[slot]
	st := s.hold()
	defer s.state.Store(st)
	if st == untouched {
		return lim.Bucket{}, false
	}
	return lim.Bucket{Tks: ^st, Last: s.last}, true
}

// Now returns the gate's monotonic clock in ticks since New, for AdmitNow.
func (g *Gate) Now() int64 { return int64(time.Since(g.epoch)) / g.tickNanos }

// AdmitNow is Admit(ip, g.Now()): shorthand for the gate's real clock.
func (g *Gate) AdmitNow(ip string) Decision { return g.Admit(ip, g.Now()) }

// Admit decides one request from ip at tick now, at a cost of one token (spec
// GATE-4..GATE-10). A Pass must be followed by one Release(d) once the
// response is written.
func (g *Gate) Admit(ip string, now int64) Decision { return g.admit(g.SlotOf(ip), now) }

// AdmitBytes is Admit(string(ip), now) without the conversion, which copies
// ip (to the heap when it is over 32 bytes): for a caller that builds keys in
// a buffer. It only reads ip, and keeps nothing of it.
func (g *Gate) AdmitBytes(ip []byte, now int64) Decision {
	return g.admit(int64(g.mod.mod(uint64(lim.IPKeyBytes(ip)))), now)
}

// admit is Admit of the key whose slot is idx.
func (g *Gate) admit(idx, now int64) Decision {
	si := g.inflight.localShard()
	sh := &g.inflight.shards[si]
	s := &g.slots[idx]
	st := s.hold()
	b := lim.Bucket{Tks: ^st, Last: s.last}
	if st == untouched {
		b = lim.NewBucket(g.cap, now) // GATE-10: born full at the first take
	}
	r := g.lim.Take(b, now, 1) // pure: nothing is written before the in-flight test
	switch {
	case r.OK == 1 && g.inflight.tryAcquire(sh):
		s.put(r)
		return Decision{Verdict: Pass, shard: uint8(si), Slot: idx}
	case r.OK == 0 && g.inflight.hasFree(sh):
		s.put(r)
		return g.limited(idx, r.Retry)
	}
	s.state.Store(st) // GATE-4: a shed gives the slot back unchanged
	return shed(idx)
}

// Release gives back one in-flight place, flooring at 0 (spec GATE-11). d is
// the Pass decision whose place is given back; it only says where to look
// first, so the count is exact whatever d is (an extra Release does nothing
// when nothing is in flight, as lim_rel floors at 0).
func (g *Gate) Release(d Decision) {
	g.inflight.release(&g.inflight.shards[int(d.shard)&(len(g.inflight.shards)-1)])
}

func shed(idx int64) Decision {
	return Decision{Verdict: Shed, Slot: idx, RetryAfter: 1} // GATE-9
}

func (g *Gate) limited(idx, retry int64) Decision {
	return Decision{Verdict: Limited, Slot: idx, Retry: retry, RetryAfter: RetryAfterSeconds(retry, g.tickNanos)}
}

// hold spins until it owns the slot and returns the state it replaced. One
// Swap both tests and takes the slot: swapping held for held changes nothing.
func (s *slot) hold() int64 {
	for spins := 1; ; spins++ {
		if st := s.state.Swap(held); st != held {
			return st
		}
		for s.state.Load() == held { // wait without writing the cache line
			if spins++; spins&63 == 0 {
				runtime.Gosched() // the holder may have been preempted
			}
		}
	}
}

// put writes the bucket of r and gives the slot back.
func (s *slot) put(r lim.TakeResult) {
	s.last = r.Last
	s.state.Store(^r.Tks)
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
