package httplimit_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
)

// allocRow is one path of TestMiddlewareAllocatesNothingPerRequest: a
// handler behind the middleware, a request and the status it must get.
type allocRow struct {
	path   string
	h      http.Handler
	r      *http.Request
	code   int
	reason string
}

// passing is a limiter that always passes (a huge bucket, the gate's
// monotonic clock) in front of ok.
func passing(t *testing.T, opts ...httplimit.Option) http.Handler {
	return newLimiter(t, newGate(t, 1<<62, 1<<62, 1, 1<<20, 1), opts...).Wrap(ok)
}

// limited is a limiter whose bucket for r is spent (cap 1, a fixed clock),
// so that every request from r is Limited with Retry-After
// ceil(ivl*tickNanos / 1e9) seconds; a no-op OnReject hook is installed.
func limited(t *testing.T, r *http.Request, ivl, tickNanos int64, opts ...httplimit.Option) http.Handler {
	hook := httplimit.WithOnReject(func(*http.Request, gate.Decision) {})
	h := newLimiter(t, newGate(t, 1, 1, ivl, 1<<20, tickNanos), append(opts, fixedClock(0), hook)...).Wrap(ok)
	if rec := serve(h, r); rec.Code != http.StatusOK {
		t.Fatalf("spending the token: status %d, want 200", rec.Code)
	}
	return h
}

// nestedShed is a limiter with opts whose handler sends inner through it
// while the outer request holds its places: the outer request passes, the
// inner one is shed by a cap (its 503 must reach the inner writer, which the
// handler checks).
func nestedShed(t *testing.T, inner *http.Request, opts ...httplimit.Option) http.Handler {
	var h http.Handler
	w := &discardWriter{h: make(http.Header, 4)}
	h = newLimiter(t, newGate(t, 1<<62, 1<<62, 1, 1<<20, 1), opts...).Wrap(
		http.HandlerFunc(func(out http.ResponseWriter, r *http.Request) {
			clear(w.h)
			h.ServeHTTP(w, inner)
			if w.code != http.StatusServiceUnavailable {
				t.Errorf("the nested request from %s: status %d, want the cap's 503", inner.RemoteAddr, w.code)
			}
			out.WriteHeader(http.StatusOK)
		}))
	return h
}

// perPrefix1 and perKey1 cap a /24 or a /48 and a key at one place.
var (
	perPrefix1 = httplimit.WithMaxInFlightPerPrefix(httplimit.PrefixCap{IPv4Bits: 24, IPv6Bits: 48, Max: 1})
	perKey1    = httplimit.WithMaxInFlightPerKey(1)
)

// shedding is a limiter whose only in-flight place is held by a request
// that never releases it, so that every request is Shed.
func shedding(t *testing.T) http.Handler {
	g := newGate(t, 1<<62, 1<<62, 1, 1, 1)
	if d := g.Admit("holder", 0); d.Verdict != gate.Pass {
		t.Fatalf("holder: %v, want pass", d.Verdict)
	}
	return newLimiter(t, g).Wrap(ok)
}

// TestMiddlewareAllocatesNothingPerRequest checks that no path of the
// middleware allocates: the README's "no allocation per request". The
// writer keeps one header map, cleared between requests, so the count is the
// middleware's own (net/http makes a fresh map per request, and its first
// insert is net/http's cost, paid by any handler that sets a header).
func TestMiddlewareAllocatesNothingPerRequest(t *testing.T) {
	v4 := get("192.0.2.1:1234", nil)
	xff := httplimit.WithTrustedProxies(httplimit.XForwardedFor, prefixes("10.0.0.0/8")...)
	fwd := httplimit.WithTrustedProxies(httplimit.Forwarded, prefixes("10.0.0.0/8")...)
	tests := []allocRow{
		{"pass IPv4", passing(t), v4, 200, "a 15-byte key"},
		{"pass IPv6 /64", passing(t), get("[2001:db8::1]:443", nil), 200, "the default prefix key"},
		{"pass IPv6 /128", passing(t, httplimit.WithIPv6Prefix(128)), get("[2001:db8:1234:5678:9abc:def0:1234:5678]:443", nil), 200,
			"a 39-byte key, past the runtime's 32-byte buffer for a string conversion"},
		{"pass mapped IPv4", passing(t), get("[::ffff:192.0.2.1]:80", nil), 200, "an IPv4-mapped peer, unmapped"},
		{"pass X-Forwarded-For", passing(t, xff), get("10.0.0.1:1", http.Header{"X-Forwarded-For": {"198.51.100.7, 10.0.0.2"}}), 200,
			"the header of a trusted proxy, walked from the right"},
		{"pass Forwarded", passing(t, fwd), get("10.0.0.1:1", http.Header{"Forwarded": {`for="[2001:db8:cafe::17]:4711";proto=https, for=10.0.0.2`}}), 200,
			"RFC 7239 from a trusted proxy, a quoted IPv6 client"},
		{"pass invalid key", passing(t), get("@", nil), 200, "a Unix socket's peer, keyed as InvalidKey"},
		{"400 WithRejectInvalid", passing(t, httplimit.WithRejectInvalid()), get("@", nil), 400, "the fixed 400"},
		{"400 empty peer", passing(t, httplimit.WithRejectInvalid()), get("", nil), 400, "an empty RemoteAddr"},
		{"503 shed", shedding(t), v4, 503, "Retry-After 1 (GATE-9)"},
		{"503 limited, 1 s", limited(t, v4, 10, tick100ms), v4, 503, "Retry-After 1"},
		{"503 limited, 4 s", limited(t, v4, 35, tick100ms), v4, 503, "Retry-After 4, as TestLimited503Exact"},
		{"503 limited, 1100 s", limited(t, v4, 1<<40, 1), v4, 503, "four digits, past strconv's cache of small numbers"},
		{"503 limited, a day", limited(t, v4, 86400, 1e9), v4, 503, "Retry-After 86400, a daily quota's longest wait"},
		{"503 limited, the cache's last", limited(t, v4, 1<<17-1, 1e9), v4, 503, "Retry-After 131071, the Retry-After cache's last value (retryafter.go)"},
	}
	tests = append(tests, longHeaderRows(t)...)
	tests = append(tests,
		allocRow{"pass and a per-key shed", nestedShed(t, v4, httplimit.WithMaxInFlightPerKey(1)), v4, 200,
			"WithMaxInFlightPerKey(1): the pass holds the key's place, a nested request of the key is shed"},
		allocRow{"pass and a per-prefix shed, IPv4", nestedShed(t, get("192.0.2.200:1", nil), perPrefix1, perKey1), v4, 200,
			"a /24 holds one place: another address of it is shed, its own key's place given back"},
		allocRow{"pass and a per-prefix shed, IPv6", nestedShed(t, get("[2001:db8:1:ffff::1]:1", nil), perPrefix1, perKey1),
			get("[2001:db8:1:2::1]:443", nil), 200, "a /48 holds one place: another /64 of it is shed"},
		allocRow{"pass and a per-prefix shed, invalid", nestedShed(t, get("", nil), perPrefix1), get("@", nil), 200,
			"addresses that do not parse share one prefix"},
		allocRow{"503 limited, true wait", limited(t, v4, 35, tick100ms, httplimit.WithTrueRetryAfter()), v4, 503, "WithTrueRetryAfter reads the bucket back"},
		allocRow{"429 limited", limited(t, v4, 35, tick100ms, httplimit.WithLimitedStatus(429)), v4, 429, "WithLimitedStatus(429): the 503's headers and body"},
		allocRow{"429 limited, X-RateLimit fields", limited(t, v4, 35, tick100ms, httplimit.WithLimitedStatus(429),
			httplimit.WithFields(httplimit.XRateLimitFields)), v4, 429, "the trio's values come from the shared cache"},
	)
	for _, tt := range tests {
		if tt.reason == "" {
			t.Fatalf("row %q has no reason", tt.path)
		}
		w := &discardWriter{h: make(http.Header, 4)}
		allocs := testing.AllocsPerRun(100, func() {
			clear(w.h)
			tt.h.ServeHTTP(w, tt.r)
		})
		if allocs != 0 || w.code != tt.code {
			t.Errorf("%s: %v allocations per request, status %d; want 0, %d (%s)", tt.path, allocs, w.code, tt.code, tt.reason)
		}
	}
}

// longHeaderRows are the rows of long proxy headers (chainSizes, both
// headers): the walk reads from the right without listing the hops, so no
// length allocates; before, a chain of more than 8 hops grew a list on the
// heap and cost time and memory in the header's length.
func longHeaderRows(t *testing.T) []allocRow {
	var rows []allocRow
	for _, h := range []httplimit.ProxyHeader{httplimit.XForwardedFor, httplimit.Forwarded} {
		trust := httplimit.WithTrustedProxies(h, prefixes("10.0.0.0/8")...)
		for _, c := range chainSizes {
			line := chain(h, c.hops, c.size)
			rows = append(rows, allocRow{fmt.Sprintf("pass %v %s", h, c.name), passing(t, trust),
				get("10.0.0.1:1", proxyHeader(h, line)), 200, fmt.Sprintf("a trusted chain of %d bytes", len(line))})
		}
	}
	return rows
}
