package httplimit

import (
	"encoding/binary"
	"hash/maphash"
	"net/http"
	"net/netip"

	"github.com/limcheck/limcheck/impl/gate"
)

// extended is what the options beyond the address path set: a key of
// WithKey, an allowlist, header fields, a decision hook. Immutable after
// New; policies read it too.
type extended struct {
	on         bool // serve takes serveExt: an option below is set
	key        Key
	custom     bool        // key is not the address alone: hashed with seed
	refusal    *keyRefusal // nil: a request without a key falls back to the address
	seed       maphash.Seed
	allow      *allowlist
	fields     Fields
	name       string
	fixed      *fixedFields // the gate's
	onDecision func(*http.Request, Outcome)
	metrics    Metrics // nil: nothing reported (metrics.go)
}

// rawKeyLen is the stack buffer of a key built by a Key: longer keys are
// built on the heap.
const rawKeyLen = 256

// extend finishes New: the limited status and the extended settings of s.
func (l *Limiter) extend(s *settings) (*Limiter, error) {
	l.limitedStatus = s.limitedStatus
	if l.limitedStatus == 0 {
		l.limitedStatus = http.StatusServiceUnavailable
	}
	x := &extended{
		key: s.key, custom: !s.key.isAddress(), refusal: newKeyRefusal(&s.key), seed: maphash.MakeSeed(),
		fields: s.fields, name: s.name, onDecision: s.onDecision, metrics: s.metrics,
	}
	if x.name == "" {
		x.name = "default"
	}
	x.on = x.custom || s.allow != nil || x.fields != 0 || x.onDecision != nil
	if s.allow != nil {
		al, err := newAllowlist(s.allow)
		if err != nil {
			return nil, err
		}
		x.allow = al
	}
	if l.g != nil {
		x.fixed = newFixedFields(x.name, l.g.Limits(), l.tick)
	}
	l.x = x
	return l, nil
}

// decided calls the decision hook, if any, with o.
func (x *extended) decided(r *http.Request, o Outcome) {
	if x.metrics != nil {
		x.metrics.Decision(o.Policy, o.Result, o.Shadow)
	}
	if x.onDecision != nil {
		x.onDecision(r, o)
	}
}

// serveExt is serve past the address checks when an extended option is
// set: the key, the allowlist, the caps, the gate's decision with the
// bucket it read (for the fields and the hook), then a rejection or next.
func (l *Limiter) serveExt(next http.Handler, w http.ResponseWriter, r *http.Request, a netip.Addr, valid bool) {
	x := l.x
	var raw [rawKeyLen]byte
	key, ok := x.key.appendKey(raw[:0], &l.keys, r, a, valid)
	if !ok {
		if x.refusal != nil {
			x.decided(r, Outcome{Policy: x.name, Result: Invalid, Cost: 1, Remaining: -1})
			x.refusal.write(w)
			return
		}
		key = l.keys.appendKeyOf(raw[:0], a, valid)
	}
	if x.allow.allowed(a, valid, key) {
		l.serveAllowed(next, w, r)
		return
	}
	var hashed [8]byte
	if ok && x.custom {
		binary.LittleEndian.PutUint64(hashed[:], maphash.Bytes(x.seed, key))
		key = hashed[:]
	}
	if l.perKey != nil || l.perPrefix != nil {
		hold, ok := l.takeCaps(key, a, valid)
		if !ok {
			x.decided(r, Outcome{Policy: x.name, Result: Shed, Cost: 1, Remaining: -1, RetryAfter: 1})
			l.reject(w, r, capShed)
			return
		}
		defer l.releaseCaps(hold)
	}
	now := l.now()
	d, b := l.g.AdmitBucketBytes(key, now)
	if d.Verdict == gate.Shed {
		x.decided(r, Outcome{Policy: x.name, Result: Shed, Cost: 1, Remaining: -1, RetryAfter: d.RetryAfter})
		l.reject(w, r, d)
		return
	}
	q := refusedQuota(d.RetryAfter)
	if d.Way != gate.NoWay {
		q = quotaOf(x.fixed.limits, b, now, l.tick)
	}
	if x.fields != 0 {
		writeFields(w.Header(), x.fields, x.name, x.fixed, q)
	}
	if d.Verdict == gate.Limited {
		if (x.fields != 0 || l.trueRetry) && d.Way != gate.NoWay {
			d.RetryAfter = max(q.more, 1) // the end of the bucket's step (WithTrueRetryAfter)
		}
		x.decided(r, Outcome{Policy: x.name, Result: Limited, Cost: 1, Remaining: q.remaining, RetryAfter: d.RetryAfter})
		l.reject(w, r, d)
		return
	}
	l.entered()
	defer l.release(d)
	x.decided(r, Outcome{Policy: x.name, Result: Passed, Cost: 1, Remaining: q.remaining})
	next.ServeHTTP(w, r)
}

// serveAllowed runs next for an allowlisted request: under an in-flight
// place unless the allowlist skips the gate.
func (l *Limiter) serveAllowed(next http.Handler, w http.ResponseWriter, r *http.Request) {
	x := l.x
	if !x.allow.skipInFlight {
		d := l.g.AdmitInFlight()
		if d.Verdict != gate.Pass {
			x.decided(r, Outcome{Policy: x.name, Result: Shed, Cost: 1, Remaining: -1, RetryAfter: d.RetryAfter})
			l.reject(w, r, d)
			return
		}
		l.entered()
		defer l.release(d)
	}
	x.decided(r, Outcome{Policy: x.name, Result: Allowed, Cost: 1, Remaining: -1})
	next.ServeHTTP(w, r)
}
