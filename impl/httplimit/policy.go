package httplimit

import (
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/limcheck/limcheck/impl/gate"
)

// PolicyConfig configures [Limiter.NewPolicy]. Cap, Refil and Ivl are
// lim_cfg's, in the ticks of the Limiter's gate: with ticks of 0.1 s,
// "5 a minute" is Cap 5, Refil 5, Ivl 600 (5 more every minute) or Cap 5,
// Refil 1, Ivl 120 (one more every 12 s).
type PolicyConfig struct {
	// Name names the policy in the RateLimit fields and in [Outcome]s: 1
	// to 32 letters, digits, '-', '_' or '.'.
	Name string
	// Cap, Refil and Ivl are the bucket's: Cap tokens at most, Refil more
	// every Ivl ticks; each >= 1.
	Cap, Refil, Ivl int64
	// Sets and Ways size the policy's table of buckets (see gate.Config
	// for the sizing: at most half of Sets*Ways keys with a bucket that is
	// not full); 0 and 0 mean 1024 sets of 8 ways (8192 ways, 128 KiB).
	Sets, Ways int64
	// Key is what the policy keys requests by; the zero Key is the client
	// address.
	Key Key
	// Cost is the tokens a request takes, nil for 1. A cost below 1 counts
	// as 1; a cost over Cap is an ordinary reject (spec LIM-12: the bucket
	// can never hold it), with lim_take's retry as Retry-After. It runs on
	// the request's goroutine and must be safe for concurrent use.
	Cost func(r *http.Request) int64
	// Shadow computes and reports every decision (to the [WithOnDecision]
	// hook, with Outcome.Shadow set) but never rejects: a request the
	// policy would limit runs as if it had passed, and spends nothing.
	Shadow bool
	// ShadowFields makes a shadow policy write the header fields of
	// [WithFields] as an enforcing one would; without it a shadow policy
	// writes none, and clients see no trace of it.
	ShadowFields bool
}

// Policy is a limit of its own (a table of buckets, a key, a cost) that
// runs under its Limiter's in-flight gate: [Policy.Wrap] puts it in front of
// one route's handler, inside the Limiter's Wrap around the router, so that
// a request meets the Limiter's gate first (its in-flight place and its
// bucket) and then the policies of its route, in the order they wrap it.
// Build one with [Limiter.NewPolicy]. Safe for concurrent use. API beyond
// spec.md.
//
// Tokens already taken when a later limit rejects: they stay taken. A
// request that one limit rejects has paid every limit it met before
// (the Limiter's bucket, outer policies) and none after it; a shed (the
// in-flight gate is full, checked first) pays nothing anywhere. So a
// client's rejected requests count against the limits they reached, as
// its passed ones do, and no token is ever given back (a give-back races
// with other requests of the key, and can mint tokens when the bucket was
// evicted or refilled meanwhile).
type Policy struct {
	l      *Limiter
	name   string
	b      *gate.Buckets
	key    Key
	refuse *keyRefusal
	cost   func(*http.Request) int64
	shadow bool
	fields Fields                      // written on this policy's decisions
	fixed  atomic.Pointer[fixedFields] // of the current limits
}

// NewPolicy returns a policy of c under l's in-flight gate, clock, allowlist,
// header fields, limited status and decision hook, or an error wrapping
// [ErrConfig] naming what is out of range.
func (l *Limiter) NewPolicy(c PolicyConfig) (*Policy, error) {
	if !validName(c.Name) {
		return nil, fmt.Errorf("%w: policy name %q: want 1 to 32 letters, digits, '-', '_' or '.'", ErrConfig, c.Name)
	}
	if c.Sets == 0 && c.Ways == 0 {
		c.Sets, c.Ways = 1024, 8
	}
	if err := c.Key.check(); err != nil {
		return nil, err
	}
	lm := gate.Limits{Cap: c.Cap, Refil: c.Refil, Ivl: c.Ivl}
	b, err := gate.NewBuckets(gate.BucketsConfig{Limits: lm, Sets: c.Sets, Ways: c.Ways})
	if err != nil {
		return nil, fmt.Errorf("%w: policy %s: %w", ErrConfig, c.Name, err)
	}
	p := &Policy{l: l, name: c.Name, b: b, key: c.Key, refuse: newKeyRefusal(&c.Key), cost: c.Cost, shadow: c.Shadow, fields: l.x.fields}
	if c.Shadow && !c.ShadowFields {
		p.fields = 0
	}
	p.fixed.Store(newFixedFields(c.Name, lm, l.tick))
	return p, nil
}

// Name returns the policy's name.
func (p *Policy) Name() string { return p.name }

// Limits returns the policy's current cap, refil and ivl.
func (p *Policy) Limits() gate.Limits { return p.b.Limits() }

// SetLimits changes the policy's cap, refil and ivl at run time, keeping
// every bucket (see [gate.Buckets.SetLimits]: a bucket refills under the
// new limits from what it holds; tokens over a lower cap count as the cap).
// The size of the table is fixed: another size is a new policy (and new,
// full buckets). It fails, changing nothing, when a value is < 1, or when
// the cap grows past 2^31-1 from below it. Safe for concurrent use with
// requests: each request is decided under one set of limits, and its header
// fields describe those.
func (p *Policy) SetLimits(cap, refil, ivl int64) error {
	lm := gate.Limits{Cap: cap, Refil: refil, Ivl: ivl}
	if err := p.b.SetLimits(lm); err != nil {
		return fmt.Errorf("%w: policy %s: %w", ErrConfig, p.name, err)
	}
	p.fixed.Store(newFixedFields(p.name, lm, p.l.tick))
	return nil
}

// Wrap returns next behind the policy. It panics when next is nil. Put it
// around a route's handler inside [Limiter.Wrap]: with Go's ServeMux,
// mux.Handle("POST /login", login.Wrap(h)); with chi,
// r.With(login.Wrap).Post("/login", h). A request the policy limits gets
// the Limiter's limited status (503, or 429 with [WithLimitedStatus]) with
// the true Retry-After: the seconds until the bucket holds the request's
// cost (lim_take's retry for a cost over cap).
func (p *Policy) Wrap(next http.Handler) http.Handler {
	if next == nil {
		panic("httplimit: nil handler")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.serve(next, w, r)
	})
}

// serve decides r under the policy and answers it, or runs next.
func (p *Policy) serve(next http.Handler, w http.ResponseWriter, r *http.Request) {
	l, x := p.l, p.l.x
	a, valid := l.keys.client(r)
	var raw [rawKeyLen]byte
	raw[0] = 'k' // keys and addresses apart: no header value spells an address's key
	key, ok := p.key.appendKey(raw[:1], &l.keys, r, a, valid)
	if !ok {
		if p.refuse != nil {
			x.decided(r, Outcome{Policy: p.name, Result: Invalid, Shadow: p.shadow, Cost: 1, Remaining: -1})
			if !p.shadow {
				p.refuse.write(w)
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		raw[0] = 'a'
		key = l.keys.appendKeyOf(raw[:1], a, valid)
	}
	if p.key.isAddress() {
		key[0] = 'a'
	}
	if x.allow.allowed(a, valid, key[1:]) {
		x.decided(r, Outcome{Policy: p.name, Result: Allowed, Shadow: p.shadow, Cost: 1, Remaining: -1})
		next.ServeHTTP(w, r)
		return
	}
	cost := int64(1)
	if p.cost != nil {
		cost = max(p.cost(r), 1)
	}
	now := l.now()
	tk := p.b.Take(key, now, cost)
	q := p.quota(tk, now, cost)
	if p.fields != 0 {
		writeFields(w.Header(), p.fields, p.name, p.fixedOf(tk.Limits), q.quota)
	}
	if !tk.OK {
		x.decided(r, Outcome{Policy: p.name, Result: Limited, Shadow: p.shadow, Cost: cost, Remaining: q.remaining, RetryAfter: q.retryAfter})
		if !p.shadow {
			write503(w, l.limitedStatus, q.retryAfter)
			return
		}
	} else {
		x.decided(r, Outcome{Policy: p.name, Result: Passed, Shadow: p.shadow, Cost: cost, Remaining: q.remaining})
	}
	next.ServeHTTP(w, r)
}

// policyQuota is a take's quota and the Retry-After of a reject.
type policyQuota struct {
	quota
	retryAfter int64
}

// quota describes tk, a take of cost at tick now.
func (p *Policy) quota(tk gate.Take, now, cost int64) policyQuota {
	tick := p.l.tick
	if !tk.Way {
		ra := gate.RetryAfterSeconds(tk.Retry, tick)
		return policyQuota{refusedQuota(ra), ra}
	}
	q := policyQuota{quota: quotaOf(tk.Limits, tk.Bucket, now, tick)}
	if !tk.OK {
		q.retryAfter = gate.RetryAfterSeconds(tk.Retry, tick) // a cost over cap: LIM-12's
		if cost <= tk.Limits.Cap {
			q.retryAfter = max(seconds(tk.Limits.WaitFor(tk.Bucket, now, cost), tick), 1)
		}
	}
	return q
}

// fixedOf returns the fixed fields of lm: the cached ones, or new ones when
// the limits changed since.
func (p *Policy) fixedOf(lm gate.Limits) *fixedFields {
	if f := p.fixed.Load(); f.limits == lm {
		return f
	}
	return newFixedFields(p.name, lm, p.l.tick)
}
