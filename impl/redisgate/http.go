package redisgate

import (
	"sync"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/lim"
)

// HTTPGate is a [Gate] as impl/httplimit's Gate interface (the middleware,
// httplimit.NewFor, admits through it) and its AccountGate interface (a
// LoginGuard's per-account buckets, httplimit.LoginConfig.Accounts). A
// passed decision carries its lease number in Slot (a Redis gate has no
// slots; -1 otherwise), which Release turns back into the lease; in Spread
// the number names the pass among those the HTTPGate holds until their
// Release (releasing one twice is a no-op, DIST-4). When Redis
// cannot decide (spec DIST-5: a definite or an ambiguous failure alike), an
// admit answers Shed with Retry-After 1 (fail closed) or, with FailOpen, a
// Pass whose Release does nothing; OnError, when set, is told every error.
type HTTPGate struct {
	G        *Gate
	FailOpen bool
	OnError  func(error)

	passes sync.Map // Spread: the passes not released, by their number
}

// AdmitBytes implements httplimit.Gate.
func (h *HTTPGate) AdmitBytes(ip []byte, now int64) gate.Decision {
	return h.decision(h.G.AdmitBytes(ip, now))
}

// Admit implements httplimit.AccountGate: AdmitBytes of a string key.
func (h *HTTPGate) Admit(key string, now int64) gate.Decision {
	return h.decision(h.G.Admit(key, now))
}

// decision is the httplimit decision of an admit's outcome.
func (h *HTTPGate) decision(d Decision, err error) gate.Decision {
	if err != nil {
		h.tell(err)
		if h.FailOpen {
			return gate.Decision{Verdict: gate.Pass, Slot: -1}
		}
		return gate.Decision{Verdict: gate.Shed, Slot: -1, RetryAfter: 1}
	}
	out := gate.Decision{Verdict: d.Verdict, Slot: -1, Retry: d.Retry, RetryAfter: d.RetryAfter}
	if d.Verdict == gate.Pass {
		out.Slot = int64(d.seq & (1<<63 - 1))
	}
	if d.place != nil {
		h.passes.Store(out.Slot, d)
	}
	return out
}

func (h *HTTPGate) tell(err error) {
	if h.OnError != nil {
		h.OnError(err)
	}
}

// Bucket implements httplimit.AccountGate: the key's bucket, or false when
// no way holds it, it is full at now, or Redis cannot be read (the error is
// told to OnError).
func (h *HTTPGate) Bucket(key string, now int64) (lim.Bucket, bool) {
	b, ok, err := h.G.Bucket(key, now)
	if err != nil {
		h.tell(err)
		return lim.Bucket{}, false
	}
	return b, ok
}

// Release implements httplimit.Gate and httplimit.AccountGate: the lease
// of a pass goes (an error is told to OnError; the lease then expires by
// itself, spec DIST-3).
func (h *HTTPGate) Release(d gate.Decision) {
	if d.Verdict != gate.Pass || d.Slot < 0 {
		return
	}
	if h.G.cfg.Mode == Spread {
		if p, ok := h.passes.LoadAndDelete(d.Slot); ok {
			_ = h.G.Release(p.(Decision)) // in memory: no error
		}
		return
	}
	if err := h.G.Release(Decision{Verdict: gate.Pass, lease: h.G.leaseOf(uint64(d.Slot))}); err != nil {
		h.tell(err)
	}
}

// Now implements httplimit.Gate: this node's tick.
func (h *HTTPGate) Now() int64 { return h.G.Now() }

// Config implements httplimit.Gate and httplimit.AccountGate: the bucket
// parameters and the tick.
func (h *HTTPGate) Config() gate.Config {
	return gate.Config{Lim: h.G.cfg.Lim, TickNanos: h.G.cfg.TickNanos}
}
