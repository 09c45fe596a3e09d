package httplimit

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/netip"

	"github.com/limcheck/limcheck/impl/gate"
)

// ErrConfig is wrapped by every error [New] returns. Test with errors.Is.
var ErrConfig = errors.New("httplimit: invalid config")

// DefaultIPv6PrefixBits is the IPv6 prefix length a [Limiter] keys by unless
// [WithIPv6Prefix] says otherwise: one key per /64, the block a single IPv6
// host or customer network controls.
const DefaultIPv6PrefixBits = 64

// ProxyHeader names the one header a trusted proxy writes the client address
// into (see [WithTrustedProxies]).
type ProxyHeader uint8

// The proxy headers.
const (
	// XForwardedFor is X-Forwarded-For: a comma-separated list of addresses,
	// each proxy appending its peer on the right.
	XForwardedFor ProxyHeader = iota + 1
	// Forwarded is RFC 7239's Forwarded: comma-separated elements whose
	// for= parameter names the address, e.g. for="[2001:db8::1]:4711".
	Forwarded
)

// String returns the header's name, "X-Forwarded-For" or "Forwarded", or
// "ProxyHeader(n)" for another value.
func (h ProxyHeader) String() string {
	switch h {
	case XForwardedFor:
		return "X-Forwarded-For"
	case Forwarded:
		return "Forwarded"
	}
	return fmt.Sprintf("ProxyHeader(%d)", uint8(h))
}

// Option configures [New]. Build one with the With functions; an option that
// is out of range makes New fail.
type Option func(*settings)

// settings is what the options set; New checks it.
type settings struct {
	header        ProxyHeader
	trusted       []netip.Prefix
	trustSet      bool
	v6bits        int
	clock         func() int64
	onReject      func(*http.Request, gate.Decision)
	rejectInvalid bool
	perKey        int // the per-key in-flight cap, when perKeySet
	perKeySet     bool
	prefix        PrefixCap // the per-prefix in-flight cap, when prefixSet
	prefixSet     bool
	trueRetry     bool // Retry-After to the end of the bucket's step
	key           Key  // WithKey's; the zero Key is the address
	allow         *Allowlist
	fields        Fields
	name          string // WithPolicyName's; "" is "default"
	onDecision    func(*http.Request, Outcome)
	limitedStatus int // WithLimitedStatus's; 0 is 503
	metrics       Metrics
}

// WithKey keys the Limiter's gate (its buckets, and the per-key in-flight
// cap) by k instead of the client address; see [Key] for the keys and for
// what a request without one gets. A key other than the address is hashed
// with a seed drawn for the Limiter (hash/maphash) before the gate sees
// it, so that no client can choose a key that shares another's bucket; the
// per-prefix cap and the allowlist's prefixes still read the address. New
// fails when k is out of range; a key other than the address needs a
// *gate.Gate.
func WithKey(k Key) Option { return func(s *settings) { s.key = k } }

// WithTrustedProxies honours header h, and only h, on requests whose
// immediate peer lies in one of proxies (CIDRs; an IPv4-mapped IPv6 prefix
// such as ::ffff:10.0.0.0/104 counts as its IPv4 form). The client address is
// the rightmost address of h that is not a trusted proxy; see the package
// documentation for the walk and its fallbacks. New fails when proxies is
// empty or holds an invalid prefix, or when h is not XForwardedFor or
// Forwarded. Without this option no header is ever read.
func WithTrustedProxies(h ProxyHeader, proxies ...netip.Prefix) Option {
	return func(s *settings) {
		s.header, s.trusted, s.trustSet = h, append([]netip.Prefix(nil), proxies...), true
	}
}

// WithIPv6Prefix keys IPv6 clients by their /bits prefix, bits in 1..128;
// 128 keys each address on its own. The default is [DefaultIPv6PrefixBits].
// IPv4 clients are always keyed by their address.
func WithIPv6Prefix(bits int) Option { return func(s *settings) { s.v6bits = bits } }

// WithClock makes the Limiter read the time, in the gate's ticks, from now
// instead of the gate's monotonic clock ([gate.Gate.Now]). now must be safe
// for concurrent use; tests inject a fixed or counting clock. A nil now
// keeps the gate's clock.
func WithClock(now func() int64) Option { return func(s *settings) { s.clock = now } }

// WithOnReject calls hook after each 503 is written, with the request and
// the gate's decision (Shed or Limited), on the request's goroutine: hook must
// be safe for concurrent use and should be fast (metrics, logging). It is not
// called for passes, for 400s of [WithRejectInvalid] or [Key.OrRefuse], nor
// for a [Policy]'s decisions: [WithOnDecision] sees every decision.
func WithOnReject(hook func(r *http.Request, d gate.Decision)) Option {
	return func(s *settings) { s.onReject = hook }
}

// WithRejectInvalid answers a request whose client address does not parse
// with 400 Bad Request (body [Body400]) without consulting the gate, instead
// of keying it by [InvalidKey].
func WithRejectInvalid() Option { return func(s *settings) { s.rejectInvalid = true } }

// WithMaxInFlightPerKey caps the requests of one client key in flight at
// once at n (n >= 1), under the gate's global in-flight cap: a request over
// it gets the 503 of a shed (Retry-After 1) before the gate is asked, so it
// spends no token and holds no place. The OnReject hook sees such a
// rejection as a Shed decision with Slot, Set and Way -1 ([gate.NoWay]).
// One slow client (slow uploads, slow reads) then holds at most n of the
// gate's maxif places, so filling the gate takes maxif/n keys in flight at
// once; a key is one IPv4 address or one IPv6 /64, so one network with many
// of them can still fill it: see [WithMaxInFlightPerPrefix].
//
// The count is exact under concurrency (an atomic compare-and-swap per
// request, no allocation) but kept per counter of a bounded table of
// 4*maxif counters rounded up to a power of two (256 to 65536), indexed by
// a hash of the key with a seed drawn for each Limiter: keys that land on
// one counter share its cap, which can shed more, never admit more. The
// package documentation's Dividing the gate says how likely that is. The
// counts are this Limiter's own: over a shared Gate ([NewFor]) they cap one
// process.
// New fails when n is not in 1..2^31-1.
func WithMaxInFlightPerKey(n int) Option {
	return func(s *settings) { s.perKey, s.perKeySet = n, true }
}

// PrefixCap is the argument of [WithMaxInFlightPerPrefix]: at most Max
// requests in flight at once from the client addresses of one IPv4 /IPv4Bits
// or one IPv6 /IPv6Bits prefix. PrefixCap{IPv4Bits: 24, IPv6Bits: 48, Max:
// 32} lets one /24 or one /48 hold at most 32 places. The zero value is
// invalid: New refuses it.
type PrefixCap struct {
	// IPv4Bits is the IPv4 prefix length, 1..32: 24 for a /24, the
	// smallest block routed on the internet; 32 caps each address.
	IPv4Bits int
	// IPv6Bits is the IPv6 prefix length, from 1 up to the prefix the keys
	// are made of ([WithIPv6Prefix], [DefaultIPv6PrefixBits]): 48 for a /48,
	// a site's usual assignment (RFC 6177), or 56.
	IPv6Bits int
	// Max is the cap, 1..2^31-1.
	Max int
}

// WithMaxInFlightPerPrefix caps the requests in flight at once from one
// address prefix at c.Max: the prefix is the client address (the one its
// key is made of, after the proxy walk, an IPv6 form of an IPv4 host as
// that host) masked to c.IPv4Bits or c.IPv6Bits. Addresses that do not
// parse count as one prefix of their own, as they share [InvalidKey]. A
// request over the cap gets the 503 of a shed (Retry-After 1) before the
// gate is asked, as one over [WithMaxInFlightPerKey]'s (checked first; a
// request over either holds neither), so it spends no token and takes no
// place, and the OnReject hook sees the same Shed with Slot -1.
//
// The per-key cap bounds one address or /64, but one site is given a /48
// (65536 /64s), and one IPv4 network often holds many addresses of a /24:
// 80 slow uploaders from 80 /64s of one
// /48 held all 512 places of a gate under WithMaxInFlightPerKey(8) (issue
// 24). Under this cap, a party that controls k prefixes holds at most
// k*c.Max places, and maxif - k*c.Max stay for everyone else; filling the
// gate takes maxif/c.Max prefixes. The price: honest clients behind one
// prefix (a carrier-grade NAT, an office, a university) share c.Max too, so
// choose it for the largest crowd expected behind one prefix.
//
// The counts are kept as the per-key cap's are, in a table of their own
// with a seed of its own: prefixes that share a counter share the cap.
// New fails when c.Max is not in 1..2^31-1, c.IPv4Bits not in 1..32, or
// c.IPv6Bits not in 1..the IPv6 key's prefix length: a prefix finer than
// the key would split one key's requests over several caps.
func WithMaxInFlightPerPrefix(c PrefixCap) Option {
	return func(s *settings) { s.prefix, s.prefixSet = c, true }
}

// WithTrueRetryAfter makes a Limited 503 carry the true wait instead of the
// spec's: the seconds until the end of the current refill step of the
// client's bucket, when its next token arrives (the gate's bucket after the
// take, read right after it; a concurrent request of the same key may have
// moved it since, which only changes which step is next). Seed 000's retry
// (spec LIM-12, GATE-12) is ceil((cost - tks) * ivl / refil): it ignores
// where now lies in the step, so with refil > 1 it tells a client to come
// back before any token can arrive (spec FIND-1: lim_cfg(2, 2, 10, 1) says
// 5 ticks when 10 are needed), and after a clock step back it ignores the
// time left until last (FIND-13). The true wait is never earlier than the
// first time a take can pass, and at most one step (rounded up to a second)
// away. The spec's value stays in impl/lim and impl/gate (and in the
// decision's Retry, in ticks); the OnReject hook sees the decision with the
// RetryAfter that was sent. Sheds keep Retry-After 1 (GATE-9).
func WithTrueRetryAfter() Option { return func(s *settings) { s.trueRetry = true } }

// check returns an error wrapping ErrConfig when s is out of range.
func (s *settings) check() error {
	switch {
	case s.v6bits < 1 || s.v6bits > 128:
		return fmt.Errorf("%w: ipv6 prefix /%d not in 1..128", ErrConfig, s.v6bits)
	case s.perKeySet && (s.perKey < 1 || s.perKey > math.MaxInt32):
		return fmt.Errorf("%w: per-key in-flight cap %d not in 1..%d", ErrConfig, s.perKey, math.MaxInt32)
	case s.prefixSet:
		if err := s.prefix.check(s.v6bits); err != nil {
			return err
		}
	case s.limitedStatus != 0 && !limitedStatusValid(s.limitedStatus):
		return fmt.Errorf("%w: limited status %d is neither 503 nor 429", ErrConfig, s.limitedStatus)
	case s.name != "" && !validName(s.name):
		return fmt.Errorf("%w: policy name %q: want 1 to 32 letters, digits, '-', '_' or '.'", ErrConfig, s.name)
	case s.fields&^(RateLimitFields|XRateLimitFields) != 0:
		return fmt.Errorf("%w: fields %#x: unknown bits", ErrConfig, uint8(s.fields))
	}
	if err := s.key.check(); err != nil {
		return err
	}
	return s.checkTrust()
}

// checkTrust returns an error wrapping ErrConfig when WithTrustedProxies
// was given out of range.
func (s *settings) checkTrust() error {
	switch {
	case !s.trustSet:
		return nil
	case s.header != XForwardedFor && s.header != Forwarded:
		return fmt.Errorf("%w: proxy header %d is neither XForwardedFor nor Forwarded", ErrConfig, s.header)
	case len(s.trusted) == 0:
		return fmt.Errorf("%w: trusted proxies given but empty", ErrConfig)
	}
	return checkPrefixes(s.trusted)
}

// check returns an error wrapping ErrConfig when c is out of range under
// IPv6 keys of /v6bits.
func (c PrefixCap) check(v6bits int) error {
	switch {
	case c.Max < 1 || c.Max > math.MaxInt32:
		return fmt.Errorf("%w: per-prefix in-flight cap %d not in 1..%d", ErrConfig, c.Max, math.MaxInt32)
	case c.IPv4Bits < 1 || c.IPv4Bits > 32:
		return fmt.Errorf("%w: per-prefix cap's ipv4 prefix /%d not in 1..32", ErrConfig, c.IPv4Bits)
	case c.IPv6Bits < 1 || c.IPv6Bits > v6bits:
		return fmt.Errorf("%w: per-prefix cap's ipv6 prefix /%d not in 1..%d (no finer than the ipv6 keys' /%d)", ErrConfig, c.IPv6Bits, v6bits, v6bits)
	}
	return nil
}

// checkPrefixes rejects invalid prefixes.
func checkPrefixes(ps []netip.Prefix) error {
	for i, p := range ps {
		if !p.IsValid() {
			return fmt.Errorf("%w: trusted proxy %d (%q) is not a valid prefix", ErrConfig, i, p)
		}
	}
	return nil
}
