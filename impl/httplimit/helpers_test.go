package httplimit_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/lim"
)

// tick100ms is a tick of 0.1 s.
const tick100ms = 100_000_000

// fatalT is what the helpers need of a test: a *testing.T or a *rapid.T.
type fatalT interface {
	Helper()
	Fatalf(format string, args ...any)
}

// newGate returns a gate over lim_cfg(cap, refil, ivl, maxif) with 1024
// slots and ticks of tickNanos, failing t on error.
func newGate(t fatalT, cap, refil, ivl, maxif, tickNanos int64) *gate.Gate {
	t.Helper()
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(cap, refil, ivl, maxif), Sets: 256, Ways: 4, TickNanos: tickNanos})
	if err != nil {
		t.Fatalf("gate.New: %v", err)
	}
	return g
}

// newLimiter returns httplimit.New(g, opts...), failing t on error.
func newLimiter(t fatalT, g *gate.Gate, opts ...httplimit.Option) *httplimit.Limiter {
	t.Helper()
	l, err := httplimit.New(g, opts...)
	if err != nil {
		t.Fatalf("httplimit.New: %v", err)
	}
	return l
}

// fixedClock is a tick clock stuck at tick.
func fixedClock(tick int64) httplimit.Option {
	return httplimit.WithClock(func() int64 { return tick })
}

// get returns a GET request from remote with the given header lines.
func get(remote string, header http.Header) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = remote
	for k, vs := range header {
		r.Header[k] = vs
	}
	return r
}

// serve runs h on r and returns the recorded response.
func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// ok is a handler answering 200 with no body.
var ok = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })

// prefixes parses CIDRs, panicking on a typo in a test.
func prefixes(cidrs ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(cidrs))
	for i, c := range cidrs {
		out[i] = netip.MustParsePrefix(c)
	}
	return out
}
