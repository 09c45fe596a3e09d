package gate

import (
	"fmt"
	"math"
	"math/big"

	"github.com/limcheck/limcheck/model/lim"
)

// Error is the type of the gate's sentinel errors.
type Error string

func (e Error) Error() string { return string(e) }

// ErrConfig is wrapped by every error [New] returns for an invalid [Config].
const ErrConfig Error = "gate: invalid config"

// NanosPerSecond is the number of nanoseconds in the second that Retry-After counts.
const NanosPerSecond int64 = 1_000_000_000

// Config configures a [Gate].
type Config struct {
	Lim       lim.Config `json:"lim"`        // the bucket and in-flight parameters; must be valid
	Slots     int64      `json:"slots"`      // number of bucket slots, >= 1
	TickNanos int64      `json:"tick_nanos"` // length of one tick in nanoseconds, >= 1
}

// Verdict is the kind of a gate [Decision].
type Verdict string

// The three verdicts of [Gate.Admit].
const (
	Pass    Verdict = "pass"    // both gates passed: call the next handler, then Release
	Shed    Verdict = "shed"    // the in-flight gate is full: 503, Retry-After 1
	Limited Verdict = "limited" // the slot's bucket rejected: 503 with the bucket's retry
)

// Decision is the outcome of one [Gate.Admit].
type Decision struct {
	Verdict    Verdict `json:"verdict"`
	Slot       int64   `json:"slot"`        // the slot of the request's key (touched only when not shed)
	Retry      int64   `json:"retry"`       // the bucket's retry in ticks; 0 unless Limited
	RetryAfter int64   `json:"retry_after"` // Retry-After in seconds; 0 on Pass
	Response   string  `json:"response"`    // the exact 503 bytes; "" on Pass
}

// Gate is the composition layer's state: the slot table and the in-flight
// count. The zero Gate is not usable; build one with [New]. Not safe for
// concurrent use.
type Gate struct {
	cfg      Config
	slots    map[int64]lim.Bucket // touched slots only: an absent slot is untouched
	inflight int64
}

// New returns a gate with every slot untouched and nothing in flight, or an
// error wrapping [ErrConfig] that names the invalid field.
func New(cfg Config) (*Gate, error) {
	// spec GATE-1: "A gate needs a valid lim config, slots >= 1 and tick_nanos >= 1; anything else is a construction error."
	switch {
	case !cfg.Lim.Valid():
		return nil, fmt.Errorf("%w: lim config %+v is not valid", ErrConfig, cfg.Lim)
	case cfg.Slots < 1:
		return nil, fmt.Errorf("%w: slots %d < 1", ErrConfig, cfg.Slots)
	case cfg.TickNanos < 1:
		return nil, fmt.Errorf("%w: tick_nanos %d < 1", ErrConfig, cfg.TickNanos)
	}
	// spec GATE-2: "A new gate has nothing in flight and every slot untouched."
	return &Gate{cfg: cfg, slots: map[int64]lim.Bucket{}}, nil
}

// Config returns the gate's configuration.
func (g *Gate) Config() Config { return g.cfg }

// SlotOf returns the slot index of ip: lim_ip_key(ip) mod Slots.
func (g *Gate) SlotOf(ip string) int64 {
	// spec GATE-3: "The slot of a request is lim_ip_key(ip) mod slots; requests whose keys share a slot share its bucket."
	return lim.IPKey(ip) % g.cfg.Slots
}

// InFlight returns the number of passed requests not yet released.
func (g *Gate) InFlight() int64 { return g.inflight }

// Bucket returns the bucket of slot and true, or a zero bucket and false when
// the slot is untouched (or out of range).
func (g *Gate) Bucket(slot int64) (lim.Bucket, bool) {
	b, ok := g.slots[slot]
	return b, ok
}

// Admit decides one request from ip at tick now, at a cost of one token.
func (g *Gate) Admit(ip string, now int64) Decision {
	slot := g.SlotOf(ip)
	// spec GATE-4: "The in-flight gate runs first: on a shed no slot is read, touched or written and in-flight is unchanged."
	acq := lim.Acquire(g.inflight, g.cfg.Lim.Maxif)
	if acq.OK == 0 {
		// spec GATE-9: "A shed answers lim_resp_503(1): Retry-After 1."
		return Decision{Verdict: Shed, Slot: slot, Retry: 0, RetryAfter: 1, Response: lim.Response503(1)}
	}
	// spec GATE-5: "Each admission takes exactly one token: lim_take(bucket, cfg, now, 1)."
	t := lim.Take(g.bucketAt(slot, now), g.cfg.Lim, now, 1)
	// spec GATE-6: "The slot keeps the bucket of the take's result on both outcomes."
	g.slots[slot] = t.Bucket()
	if t.OK == 1 {
		// spec GATE-7: "A pass keeps the acquired place (in-flight becomes lim_acq's n) and carries no response."
		g.inflight = acq.N
		return Decision{Verdict: Pass, Slot: slot}
	}
	// spec GATE-8: "A limited request keeps no in-flight place and answers lim_resp_503 with the bucket's retry converted to seconds."
	secs := RetryAfterSeconds(t.Retry, g.cfg.TickNanos)
	return Decision{Verdict: Limited, Slot: slot, Retry: t.Retry, RetryAfter: secs, Response: lim.Response503(secs)}
}

// bucketAt returns the bucket of slot, born full at now if the slot is untouched.
func (g *Gate) bucketAt(slot, now int64) lim.Bucket {
	if b, ok := g.slots[slot]; ok {
		return b
	}
	// spec GATE-10: "An untouched slot's bucket is born full at its first take: lim_bkt_new(cap, now)."
	return lim.NewBucket(g.cfg.Lim.Cap, now)
}

// Release gives back one in-flight place. The composition layer calls it once
// per [Pass], after the response is written; an extra call floors at 0.
func (g *Gate) Release() {
	// spec GATE-11: "Release sets in-flight to lim_rel(in-flight)."
	g.inflight = lim.Release(g.inflight)
}

// RetryAfterSeconds converts a retry of ticks of tickNanos nanoseconds into
// Retry-After seconds: max(1, ceil(retry*tickNanos / 1e9)), exact, saturated at
// MaxInt64. retry <= 0 gives 1.
func RetryAfterSeconds(retry, tickNanos int64) int64 {
	// spec GATE-12: "Retry-After seconds = max(1, ceil(retry * tick_nanos / 1e9)), exact, saturated at MaxInt64."
	num := new(big.Int).Mul(big.NewInt(retry), big.NewInt(tickNanos))
	q, r := new(big.Int).QuoRem(num, big.NewInt(NanosPerSecond), new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	switch {
	case q.Cmp(big.NewInt(1)) < 0:
		return 1
	case !q.IsInt64():
		return math.MaxInt64
	}
	return q.Int64()
}
