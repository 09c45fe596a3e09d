package httplimit

import (
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
)

// Allowlist is the argument of [WithAllowlist]: requests that skip the
// buckets.
type Allowlist struct {
	// Prefixes are client address prefixes (the address the key is made
	// of, after the proxy walk; an IPv4-mapped prefix counts as its IPv4
	// form) whose requests skip every bucket: the Limiter's and every
	// policy's.
	Prefixes []netip.Prefix
	// Keys are keys whose requests skip the bucket of a limit keyed by
	// them: a value of the Limiter's [Key] skips its gate's bucket, a value
	// of a policy's Key that policy's bucket (an API key, a user id; for
	// the client address, its key text, e.g. "192.0.2.7" or
	// "2001:db8::/64"; a [CompositeKey]'s values are not plain text and
	// match nothing here).
	Keys []string
	// SkipInFlight makes a request allowlisted by the Limiter skip its
	// in-flight gate as well, and its per-key and per-prefix caps: it then
	// holds no place and is never shed. The default (false) keeps the
	// in-flight gate for them: they take a place, and are shed (503) when
	// the gate is full, but skip the per-key and per-prefix caps.
	SkipInFlight bool
}

// WithAllowlist makes the requests a allows skip the buckets (see
// [Allowlist]); their decisions are reported as [Allowed] and carry no
// rate-limit header fields. New fails when a prefix is invalid. Needs a
// *gate.Gate.
func WithAllowlist(a Allowlist) Option {
	return func(s *settings) {
		s.allow = &a
	}
}

// allowlist is an Allowlist ready for lookups. Immutable after New.
type allowlist struct {
	prefixes     []netip.Prefix // canonical
	keys         map[string]struct{}
	skipInFlight bool
}

// newAllowlist returns a's lookups, or an error wrapping ErrConfig.
func newAllowlist(a *Allowlist) (*allowlist, error) {
	if err := checkPrefixes(a.Prefixes); err != nil {
		return nil, fmt.Errorf("%w (allowlist)", err)
	}
	al := &allowlist{skipInFlight: a.SkipInFlight, keys: make(map[string]struct{}, len(a.Keys))}
	for _, p := range a.Prefixes {
		al.prefixes = append(al.prefixes, canonicalPrefix(p))
	}
	for _, k := range a.Keys {
		al.keys[k] = struct{}{}
	}
	return al, nil
}

// allowed reports whether a request from client address a (valid: it
// parsed) whose raw key (without its namespace byte) is key skips the
// buckets. A nil allowlist allows nothing.
func (al *allowlist) allowed(a netip.Addr, valid bool, key []byte) bool {
	if al == nil {
		return false
	}
	if valid {
		for _, p := range al.prefixes {
			if p.Contains(a) {
				return true
			}
		}
	}
	_, ok := al.keys[string(key)] // no allocation: a map index by string(bytes)
	return ok
}

// WithLimitedStatus answers a Limited request (the Limiter's bucket or a
// policy's could not pay) with code: 503 Service Unavailable, the default
// and spec LIM-17's, or 429 Too Many Requests, the status of a client over
// its limit. A shed is always 503: it says the server is full, not that
// the client sent too much. The body, Retry-After and other headers stay
// those of the 503. New fails on another code.
func WithLimitedStatus(code int) Option {
	return func(s *settings) { s.limitedStatus = code }
}

// limitedStatusValid reports whether code is one WithLimitedStatus takes.
func limitedStatusValid(code int) bool {
	return code == http.StatusServiceUnavailable || code == http.StatusTooManyRequests
}

// keyRefusal is the fixed response of a Key's OrRefuse: status and body,
// and the WWW-Authenticate of a 401.
type keyRefusal struct {
	status    int
	challenge []string
}

// BodyInvalidKey is the body of the 400 or 401 of [Key.OrRefuse].
const BodyInvalidKey = "missing or invalid key"

var (
	bodyInvalidKey   = []byte(BodyInvalidKey)
	lengthInvalidKey = []string{strconv.Itoa(len(BodyInvalidKey))}
)

// newKeyRefusal returns the refusal of k, nil when k falls back to the
// address.
func newKeyRefusal(k *Key) *keyRefusal {
	if k.refuse == 0 {
		return nil
	}
	kr := &keyRefusal{status: k.refuse}
	if k.challenge != "" {
		kr.challenge = []string{k.challenge}
	}
	return kr
}

// write answers the refused request through w: fixed values only, no
// allocation.
func (kr *keyRefusal) write(w http.ResponseWriter) {
	h := w.Header()
	h["Content-Type"] = textPlainValue
	h["Content-Length"] = lengthInvalidKey
	h["Cache-Control"] = noStoreValue
	if kr.challenge != nil {
		h["Www-Authenticate"] = kr.challenge
	}
	w.WriteHeader(kr.status)
	_, _ = w.Write(bodyInvalidKey)
}
