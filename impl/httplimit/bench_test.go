package httplimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

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

// BenchmarkMiddlewarePassIPv6Addr keys by the whole address: a key over 32
// bytes no longer fits the runtime's stack buffer for string conversions.
func BenchmarkMiddlewarePassIPv6Addr(b *testing.B) {
	benchPass(b, "[2001:db8:1234:5678:9abc:def0:1234:5678]:443", httplimit.WithIPv6Prefix(128))
}

// BenchmarkMiddlewarePassXFF reads X-Forwarded-For from a trusted proxy.
func BenchmarkMiddlewarePassXFF(b *testing.B) {
	g := newGate(b, 1<<62, 1<<62, 1, 1<<20, 1)
	h := newLimiter(b, g, httplimit.WithTrustedProxies(httplimit.XForwardedFor, prefixes("10.0.0.0/8")...)).Wrap(nop)
	r := get("10.0.0.1:1", http.Header{"X-Forwarded-For": {"198.51.100.7, 10.0.0.2"}})
	rec := httptest.NewRecorder()
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(rec, r)
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

// BenchmarkMiddlewareReject is the 503 path with a bucket kept empty: the
// header map is reused (cleared) between requests, as net/http reuses none,
// so the figure is what the middleware itself allocates.
func BenchmarkMiddlewareReject(b *testing.B) {
	g := newGate(b, 1, 1, 1<<40, 1<<20, 1)
	h := newLimiter(b, g, fixedClock(0)).Wrap(nop)
	r := get("192.0.2.1:1234", nil)
	h.ServeHTTP(httptest.NewRecorder(), r) // spend the one token
	w := &discardWriter{h: make(http.Header, 4)}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, r)
	}
	if w.code != http.StatusServiceUnavailable {
		b.Fatalf("status %d, want 503", w.code)
	}
}
