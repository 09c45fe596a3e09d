package httplimit

import (
	"fmt"
	"math"
	"net/http"

	"github.com/limcheck/limcheck/impl/gate"
)

// Limiter is the middleware over one [gate.Gate]: it keys each request by
// its client address, admits it through the gate, answers Shed and Limited
// with the 503 of spec LIM-17 and releases each passed request's in-flight
// place when the next handler returns. Build one with [New]. A Limiter is
// immutable: safe for concurrent use, and one gate may back several.
type Limiter struct {
	g             *gate.Gate
	other         Gate // when g is nil: the Gate of NewFor (backend.go)
	keys          keyer
	clock         func() int64 // nil: the gate's monotonic clock
	onReject      func(*http.Request, gate.Decision)
	rejectInvalid bool
	perKey        *keyCaps  // nil: no per-key in-flight cap
	perPrefix     *keyCaps  // nil: no per-prefix in-flight cap
	prefix        PrefixCap // the prefix lengths of perPrefix
	trueRetry     bool
	ivl, tick     int64 // the gate's step in ticks and tick in nanoseconds
	limitedStatus int   // the status of a Limited request: 503 or 429
	x             *extended
}

// New returns a Limiter over g configured by opts, or an error wrapping
// [ErrConfig] when g is nil or an option is out of range.
func New(g *gate.Gate, opts ...Option) (*Limiter, error) {
	if g == nil {
		return nil, fmt.Errorf("%w: nil gate", ErrConfig)
	}
	s := settings{v6bits: DefaultIPv6PrefixBits}
	for _, opt := range opts {
		opt(&s)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	cfg := g.Config()
	lc := cfg.Lim
	l := &Limiter{
		g: g, keys: newKeyer(&s), clock: s.clock,
		onReject: s.onReject, rejectInvalid: s.rejectInvalid,
		trueRetry: s.trueRetry, ivl: lc.Ivl(), tick: cfg.TickNanos, prefix: s.prefix,
	}
	l.perKey, l.perPrefix = newCaps(&s, lc.Maxif())
	return l.extend(&s)
}

// Wrap returns next behind the limiter. It panics when next is nil, at wrap
// time rather than on the first request (as http.Handle does). l.Wrap has the
// shape func(http.Handler) http.Handler of router middleware. The returned
// handler allocates nothing per request (see the package documentation's
// Allocation, and Shared header values for what its 503 and 400 ask of code
// that edits their header afterwards).
func (l *Limiter) Wrap(next http.Handler) http.Handler {
	if next == nil {
		panic("httplimit: nil handler")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.serve(next, w, r)
	})
}

// ClientKey returns the key the limiter gives r: the canonical client
// address (or the /n prefix of an IPv6 one), and false with [InvalidKey]
// when the address does not parse, whatever [WithKey] says. Use it to key
// other limits, e.g. the ip key of a [LoginGuard]. Safe for concurrent use.
func (l *Limiter) ClientKey(r *http.Request) (string, bool) {
	var buf [maxKeyLen]byte
	key, ok := l.keys.appendKey(buf[:0], r)
	return string(key), ok
}

// serve admits r and either rejects it or runs next and releases after it,
// also when next panics (the panic goes on to net/http).
func (l *Limiter) serve(next http.Handler, w http.ResponseWriter, r *http.Request) {
	a, valid := l.keys.client(r)
	if !valid && l.rejectInvalid {
		l.count(Invalid)
		writeBadAddress(w)
		return
	}
	if l.x.on {
		l.serveExt(next, w, r, a, valid)
		return
	}
	var buf [maxKeyLen]byte
	key := l.keys.appendKeyOf(buf[:0], a, valid)
	if l.perKey != nil || l.perPrefix != nil {
		hold, ok := l.takeCaps(key, a, valid)
		if !ok {
			l.count(Shed)
			l.reject(w, r, capShed)
			return
		}
		defer l.releaseCaps(hold)
	}
	now := l.now()
	d := l.admit(key, now) // the key stays bytes: see AdmitBytes
	if d.Verdict != gate.Pass {
		if d.Verdict == gate.Limited && l.trueRetry {
			d.RetryAfter = l.stepRetryAfter(key, now)
		}
		l.count(resultOf(d.Verdict))
		l.reject(w, r, d)
		return
	}
	l.count(Passed)
	l.entered()
	defer l.release(d)
	next.ServeHTTP(w, r)
}

// now is the injected tick or the gate's own.
func (l *Limiter) now() int64 {
	if l.clock != nil {
		return l.clock()
	}
	return l.gateNow()
}

// reject writes the 503 of d (the limited status for a Limited d) and
// calls the hook.
func (l *Limiter) reject(w http.ResponseWriter, r *http.Request, d gate.Decision) {
	status := http.StatusServiceUnavailable
	if d.Verdict == gate.Limited {
		status = l.limitedStatus
	}
	write503(w, status, d.RetryAfter)
	if l.onReject != nil {
		l.onReject(r, d)
	}
}

// stepRetryAfter is WithTrueRetryAfter's Retry-After of a request of key
// limited at tick now: the seconds until the bucket's next token, at the end
// of the current step (last + ivl), rounded up; 1 when a token is already
// due or the key left its way (a concurrent request of the key moved the
// bucket meanwhile, or an eviction dropped it: it returns born full).
func (l *Limiter) stepRetryAfter(key []byte, now int64) int64 {
	b, ok := l.g.BucketBytes(key, now)
	if !ok || b.Tks >= 1 {
		return 1
	}
	return gate.RetryAfterSeconds(stepWait(b.Last, l.ivl, now), l.tick)
}

// stepWait is last + ivl - now in ticks, exact, saturated at MaxInt64, and
// 0 when now is already past it; ivl >= 1.
func stepWait(last, ivl, now int64) int64 {
	if now >= last {
		since := uint64(now) - uint64(last) // exact: 0 <= now-last < 2^64
		if since >= uint64(ivl) {
			return 0
		}
		return ivl - int64(since)
	}
	ahead := uint64(last) - uint64(now) // the clock stepped back (spec FIND-13)
	if ahead >= uint64(math.MaxInt64-ivl) {
		return math.MaxInt64
	}
	return int64(ahead) + ivl
}
