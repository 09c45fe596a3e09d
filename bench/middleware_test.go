package bench

import (
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/didip/tollbooth/v7"
	"github.com/didip/tollbooth/v7/limiter"
	"github.com/go-chi/httprate"
	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/lim"
)

// The middleware comparison of issue 26, item 9: the CPU of one request
// through each per-IP middleware in front of a handler that writes nothing,
// called directly (ServeHTTP, no network), each limit configured so that
// every request passes, each keyed by the peer's address (RemoteAddr; IPv4
// by address, IPv6 by /64 in all three), each on its real clock. The writer
// keeps one header map, cleared between requests: net/http makes a fresh
// map per request, so the allocations counted are the middleware's own
// (what a middleware puts in the header is its own cost). Besides ns/op
// (wall clock), cpu-ns/op is the CPU time of the benchmark's thread per
// request (getrusage RUSAGE_THREAD, the goroutine locked to its thread):
// on a shared machine it leaves out the time spent waiting for a core.
//
//   - limcheck: httplimit over impl/gate (a token bucket per key, a global
//     in-flight gate); it writes no header on a pass. limcheck-xratelimit
//     writes X-RateLimit-Limit, -Remaining and -Reset
//     (WithFields(XRateLimitFields)), as httprate does by default.
//   - httprate: go-chi/httprate's LimitBy (a sliding window counter per
//     key), keyed as its deprecated KeyByIP did (the peer, CanonicalizeIP);
//     by default it writes X-RateLimit-Limit, -Remaining and -Reset on every
//     response, and httprate-noheaders turns them off
//     (WithResponseHeaders of none) for the same job as limcheck's.
//   - tollbooth: didip/tollbooth v7 (x/time/rate per key in an expirable
//     cache), looking up RemoteAddr only; it always writes its
//     X-Rate-Limit-* headers.

// nopHandler writes nothing: the figures are the middleware's.
var nopHandler = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})

// middlewares are the handlers compared, each wrapping nopHandler.
func middlewares(tb testing.TB) []struct {
	name string
	h    http.Handler
} {
	// A bucket of 100,000 refilled in full every tick of 1 ns: every request
	// passes, and the X-RateLimit values (99,999 remaining) are in the
	// cache of formatted numbers below 2^17 that a real limit's are in; a
	// bucket of 2^62 would format 19 digits per response (2 allocations).
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(100_000, 100_000, 1, 1<<20), Sets: 1 << 13, Ways: 8, TickNanos: 1})
	if err != nil {
		tb.Fatal(err)
	}
	l, err := httplimit.New(g)
	if err != nil {
		tb.Fatal(err)
	}
	lx, err := httplimit.New(g, httplimit.WithFields(httplimit.XRateLimitFields))
	if err != nil {
		tb.Fatal(err)
	}
	tl := tollbooth.NewLimiter(1e12, &limiter.ExpirableOptions{DefaultExpirationTTL: time.Hour}).
		SetIPLookups([]string{"RemoteAddr"})
	return []struct {
		name string
		h    http.Handler
	}{
		{"limcheck", l.Wrap(nopHandler)},
		{"limcheck-xratelimit", lx.Wrap(nopHandler)},
		{"httprate", httprate.LimitBy(math.MaxInt32, time.Minute, keyByPeer)(nopHandler)},
		{"httprate-noheaders", httprate.LimitBy(math.MaxInt32, time.Minute, keyByPeer,
			httprate.WithResponseHeaders(httprate.ResponseHeaders{}))(nopHandler)},
		{"tollbooth", tollbooth.LimitHandler(tl, nopHandler)},
	}
}

// keyByPeer is httprate's KeyByIP (deprecated for its trust model, not its
// work): the host of RemoteAddr, canonicalised (IPv6 by /64).
func keyByPeer(r *http.Request) (string, error) {
	ip, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		ip = r.RemoteAddr
	}
	return httprate.CanonicalizeIP(ip), nil
}

// BenchmarkMiddleware is one request from one IPv4 client through each
// middleware, the address path: /impl= names the middleware.
func BenchmarkMiddleware(b *testing.B) { benchMiddleware(b, "192.0.2.1:1234") }

// BenchmarkMiddlewareIPv6 is BenchmarkMiddleware from an IPv6 client,
// keyed by its /64 in all three.
func BenchmarkMiddlewareIPv6(b *testing.B) { benchMiddleware(b, "[2001:db8::1]:443") }

// benchMiddleware runs requests from remote through each middleware.
func benchMiddleware(b *testing.B, remote string) {
	for _, m := range middlewares(b) {
		b.Run("impl="+m.name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = remote
			w := &headerWriter{h: make(http.Header, 8)}
			b.ReportAllocs()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu0, ok := threadCPU()
			for b.Loop() {
				clear(w.h)
				m.h.ServeHTTP(w, r)
			}
			if cpu1, ok1 := threadCPU(); ok && ok1 {
				b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
			}
			if w.code != 0 && w.code != http.StatusOK {
				b.Fatalf("%s: status %d, want a pass", m.name, w.code)
			}
		})
	}
}

// headerWriter is a ResponseWriter that keeps one header map and drops
// the body; code is the status written, 0 when none was.
type headerWriter struct {
	h    http.Header
	code int
}

func (w *headerWriter) Header() http.Header         { return w.h }
func (w *headerWriter) WriteHeader(code int)        { w.code = code }
func (w *headerWriter) Write(p []byte) (int, error) { return len(p), nil }

// TestMiddlewaresPass checks that each middleware of the comparison passes
// a request and sets the headers it is said to: a benchmark of a rejecting
// middleware would measure another path.
func TestMiddlewaresPass(t *testing.T) {
	for _, m := range middlewares(t) {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = "192.0.2.1:1234"
		m.h.ServeHTTP(rec, r)
		hasHeaders := len(rec.Header()) > 0
		if rec.Code != http.StatusOK || hasHeaders != (m.name == "httprate" || m.name == "tollbooth" || m.name == "limcheck-xratelimit") {
			t.Errorf("%s: status %d, headers %v", m.name, rec.Code, rec.Header())
		}
	}
}
