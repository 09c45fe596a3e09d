package httplimit_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
)

// nop is a handler that writes nothing, so the benchmarks measure the
// middleware alone.
var nop = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})

// benchPass runs requests from remote through a limiter that always passes
// (a huge bucket, the gate's monotonic clock), reusing one request and one
// recorder.
func benchPass(b *testing.B, remote string, opts ...httplimit.Option) {
	g := newGate(b, 1<<62, 1<<62, 1, 1<<20, 1)
	h := newLimiter(b, g, opts...).Wrap(nop)
	r, rec := get(remote, nil), httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(rec, r)
	}
	if g.InFlight() != 0 {
		b.Fatalf("in flight %d", g.InFlight())
	}
}

// BenchmarkMiddlewarePass is the pass path for an IPv4 client: key, admit,
// next, release.
func BenchmarkMiddlewarePass(b *testing.B) { benchPass(b, "192.0.2.1:1234") }

// BenchmarkMiddlewarePassIPv6 keys an IPv6 client by its /64 (the default).
func BenchmarkMiddlewarePassIPv6(b *testing.B) { benchPass(b, "[2001:db8::1]:443") }

// BenchmarkMiddlewarePassCaps is BenchmarkMiddlewarePassIPv6 under both
// in-flight caps, per key and per /48: two compare-and-swaps and two adds
// more a request.
func BenchmarkMiddlewarePassCaps(b *testing.B) {
	benchPass(b, "[2001:db8::1]:443", httplimit.WithMaxInFlightPerKey(8),
		httplimit.WithMaxInFlightPerPrefix(httplimit.PrefixCap{IPv4Bits: 24, IPv6Bits: 48, Max: 32}))
}

// BenchmarkMiddlewarePassIPv6Addr keys by the whole address: a key over 32
// bytes no longer fits the runtime's stack buffer for string conversions.
func BenchmarkMiddlewarePassIPv6Addr(b *testing.B) {
	benchPass(b, "[2001:db8:1234:5678:9abc:def0:1234:5678]:443", httplimit.WithIPv6Prefix(128))
}

// BenchmarkMiddlewarePassXFF reads X-Forwarded-For from a trusted proxy.
func BenchmarkMiddlewarePassXFF(b *testing.B) {
	benchProxy(b, httplimit.XForwardedFor, http.Header{"X-Forwarded-For": {"198.51.100.7, 10.0.0.2"}})
}

// BenchmarkMiddlewarePassForwarded reads RFC 7239's Forwarded from a
// trusted proxy: a quoted IPv6 client with a port, then the proxy's hop.
func BenchmarkMiddlewarePassForwarded(b *testing.B) {
	benchProxy(b, httplimit.Forwarded, http.Header{"Forwarded": {`for="[2001:db8:cafe::17]:4711";proto=https, for=10.0.0.2`}})
}

// chain returns a proxy header line naming the client 198.51.100.7 followed
// by trusted hops 10.x.y.z (as in X-Forwarded-For, or as for= elements in
// Forwarded), n entries in all or, when n is 0, at least size bytes: the
// worst case of the walk, which meets only trusted hops until MaxProxyHops.
func chain(h httplimit.ProxyHeader, n, size int) string {
	var b strings.Builder
	for i := 0; n > 0 && i < n || n == 0 && b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if h == httplimit.Forwarded {
			b.WriteString("for=")
		}
		if i == 0 {
			b.WriteString("198.51.100.7")
			continue
		}
		fmt.Fprintf(&b, "10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
	}
	return b.String()
}

// chainSizes are the header sizes the long-header benchmarks and
// allocation rows use: by hops, and by bytes.
var chainSizes = []struct {
	name       string
	hops, size int
}{
	{"hops=1", 1, 0}, {"hops=8", 8, 0}, {"hops=9", 9, 0}, {"hops=64", 64, 0},
	{"bytes=8KiB", 0, 8 << 10}, {"bytes=64KiB", 0, 64 << 10}, {"bytes=1MiB", 0, 1 << 20},
}

// proxyHeader is the http.Header of a line of header h.
func proxyHeader(h httplimit.ProxyHeader, line string) http.Header {
	if h == httplimit.Forwarded {
		return http.Header{"Forwarded": {line}}
	}
	return http.Header{"X-Forwarded-For": {line}}
}

// BenchmarkXFF is the pass path behind a trusted proxy for X-Forwarded-For
// headers of 1 to 64 hops and of 8 KiB to 1 MiB: the cost is that of the
// hops the walk inspects (at most MaxProxyHops), whatever the header's
// length, and nothing is allocated.
func BenchmarkXFF(b *testing.B) { benchChains(b, httplimit.XForwardedFor) }

// BenchmarkForwarded is BenchmarkXFF for RFC 7239's Forwarded.
func BenchmarkForwarded(b *testing.B) { benchChains(b, httplimit.Forwarded) }

// benchChains runs benchProxy over chainSizes.
func benchChains(b *testing.B, h httplimit.ProxyHeader) {
	for _, c := range chainSizes {
		line := chain(h, c.hops, c.size)
		b.Run(c.name, func(b *testing.B) {
			benchProxy(b, h, proxyHeader(h, line))
			b.ReportMetric(float64(len(line)), "header-bytes") // after the loop, which resets metrics
		})
	}
}

// BenchmarkMiddlewarePassInvalidKey is a peer that does not parse (a Unix
// socket's "@"), keyed as InvalidKey.
func BenchmarkMiddlewarePassInvalidKey(b *testing.B) { benchPass(b, "@") }

// benchProxy runs requests from the trusted proxy 10.0.0.1 carrying header
// through a limiter that always passes and trusts 10.0.0.0/8's header h.
func benchProxy(b *testing.B, h httplimit.ProxyHeader, header http.Header) {
	g := newGate(b, 1<<62, 1<<62, 1, 1<<20, 1)
	handler := newLimiter(b, g, httplimit.WithTrustedProxies(h, prefixes("10.0.0.0/8")...)).Wrap(nop)
	r := get("10.0.0.1:1", header)
	rec := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		handler.ServeHTTP(rec, r)
	}
}

// discardWriter is a ResponseWriter that keeps one header map and drops
// the body, so that the reject benchmark counts the middleware's allocations
// and not a recorder's.
type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }

// benchAnswer runs r through h into a discardWriter whose header map is
// reused (cleared) between requests, as net/http reuses none, so the figure
// is what the middleware itself allocates; the last status must be want.
func benchAnswer(b *testing.B, h http.Handler, r *http.Request, want int) {
	w := &discardWriter{h: make(http.Header, 4)}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, r)
	}
	if w.code != want {
		b.Fatalf("status %d, want %d", w.code, want)
	}
}

// benchReject runs the 503 path of a bucket kept empty (cap 1, a fixed
// clock): every request but the first is Limited with Retry-After
// ceil(ivl*tickNanos / 1e9) seconds.
func benchReject(b *testing.B, ivl, tickNanos int64) {
	g := newGate(b, 1, 1, ivl, 1<<20, tickNanos)
	h := newLimiter(b, g, fixedClock(0)).Wrap(nop)
	r := get("192.0.2.1:1234", nil)
	h.ServeHTTP(httptest.NewRecorder(), r) // spend the one token
	benchAnswer(b, h, r, http.StatusServiceUnavailable)
}

// BenchmarkMiddlewareReject is the 503 path with Retry-After 1100 (2^40
// ticks of 1 ns), four digits.
func BenchmarkMiddlewareReject(b *testing.B) { benchReject(b, 1<<40, 1) }

// BenchmarkMiddlewareRejectSmallRetry is the 503 path with Retry-After 4
// (35 ticks of 0.1 s), the common case of a short refill interval.
func BenchmarkMiddlewareRejectSmallRetry(b *testing.B) { benchReject(b, 35, 100_000_000) }

// BenchmarkMiddlewareRejectLargeRetry is the 503 path with Retry-After
// 86400, a day's quota window (ticks of 1 s).
func BenchmarkMiddlewareRejectLargeRetry(b *testing.B) { benchReject(b, 86400, 1_000_000_000) }

// BenchmarkMiddlewareRejectHugeRetry is the 503 path with Retry-After
// 10^9 s (about 32 years), far past any quota window.
func BenchmarkMiddlewareRejectHugeRetry(b *testing.B) { benchReject(b, 1_000_000_000, 1_000_000_000) }

// BenchmarkMiddlewareShed is the 503 of a full in-flight gate (Retry-After
// 1): the one place is held by a request that never releases it.
func BenchmarkMiddlewareShed(b *testing.B) {
	g := newGate(b, 1<<62, 1<<62, 1, 1, 1)
	if d := g.Admit("holder", 0); d.Verdict != gate.Pass {
		b.Fatalf("holder: %v, want pass", d.Verdict)
	}
	benchAnswer(b, newLimiter(b, g).Wrap(nop), get("192.0.2.1:1234", nil), http.StatusServiceUnavailable)
}

// BenchmarkMiddlewareBadAddress is the 400 of WithRejectInvalid for a peer
// that does not parse.
func BenchmarkMiddlewareBadAddress(b *testing.B) {
	g := newGate(b, 1<<62, 1<<62, 1, 1<<20, 1)
	h := newLimiter(b, g, httplimit.WithRejectInvalid()).Wrap(nop)
	benchAnswer(b, h, get("@", nil), http.StatusBadRequest)
}

// BenchmarkMiddlewarePassMetrics is BenchmarkMiddlewarePass reporting to a
// Metrics of atomic counters: the cost of the three calls a pass makes
// (Decision, InFlight +1 and -1) without an adapter's own.
func BenchmarkMiddlewarePassMetrics(b *testing.B) {
	benchPass(b, "192.0.2.1:1234", httplimit.WithMetrics(newTally("default")))
}
