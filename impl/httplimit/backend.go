package httplimit

import (
	"bytes"
	"fmt"

	"github.com/limcheck/limcheck/impl/gate"
)

// Gate is what a [Limiter] admits through: a [*gate.Gate] (in-process), or
// another gate with the same methods, such as the Redis-backed gate's
// adapter (impl/redisgate's HTTPGate), for one limit across several nodes.
//
//   - AdmitBytes decides one request from ip at tick now. A Gate that cannot
//     decide (its store is down) answers as it is configured to: a Shed
//     (fail closed) or a Pass whose Release does nothing (fail open).
//   - Release gives back the place of a passed decision, once per pass.
//   - Now is the gate's tick.
//   - Config gives the bucket parameters (Lim) and TickNanos.
//
// Implementations must be safe for concurrent use.
type Gate interface {
	AdmitBytes(ip []byte, now int64) gate.Decision
	Release(d gate.Decision)
	Now() int64
	Config() gate.Config
}

var _ Gate = (*gate.Gate)(nil)

// NewFor returns a Limiter over any [Gate]; over a *gate.Gate it is [New].
// [WithTrueRetryAfter] needs the in-process gate's buckets: over another
// Gate it is refused with [ErrConfig].
func NewFor(g Gate, opts ...Option) (*Limiter, error) {
	if gg, ok := g.(*gate.Gate); ok || g == nil {
		return New(gg, opts...)
	}
	s := settings{v6bits: DefaultIPv6PrefixBits}
	for _, opt := range opts {
		opt(&s)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	switch {
	case s.trueRetry:
		return nil, fmt.Errorf("%w: WithTrueRetryAfter needs a *gate.Gate", ErrConfig)
	case s.fields != 0, s.allow != nil, !s.key.isAddress(), s.onDecision != nil:
		return nil, fmt.Errorf("%w: WithFields, WithAllowlist, WithKey (but the address) and WithOnDecision need a *gate.Gate", ErrConfig)
	}
	cfg := g.Config()
	l := &Limiter{
		other: g, keys: newKeyer(&s), clock: s.clock,
		onReject: s.onReject, rejectInvalid: s.rejectInvalid,
		ivl: cfg.Lim.Ivl(), tick: cfg.TickNanos, prefix: s.prefix,
	}
	l.perKey, l.perPrefix = newCaps(&s, cfg.Lim.Maxif())
	return l.extend(&s)
}

// admit, release and gateNow call the limiter's gate: the in-process one
// directly (no interface call on its hot path), else the other.
func (l *Limiter) admit(key []byte, now int64) gate.Decision {
	if l.g != nil {
		return l.g.AdmitBytes(key, now)
	}
	// A copy: key may be the caller's stack buffer, and a slice passed
	// through an interface escapes (the in-process path stays allocation
	// free; this one makes a round trip to its store anyway).
	return l.other.AdmitBytes(bytes.Clone(key), now)
}

func (l *Limiter) release(d gate.Decision) {
	l.left()
	if l.g != nil {
		l.g.Release(d)
		return
	}
	l.other.Release(d)
}

func (l *Limiter) gateNow() int64 {
	if l.g != nil {
		return l.g.Now()
	}
	return l.other.Now()
}
