//go:build !fuzzsmoke

package fuzz

import (
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisgate"
)

// TestRedisGateBehindHTTPLimitHoldsAndReleasesPlaces checks that the
// middleware over the Redis gate (httplimit.NewFor, redisgate.HTTPGate)
// passes a client's first cap requests, answers the next with the exact 503
// of a limited request, holds an in-flight place while the handler runs and
// gives it back when it returns.
func TestRedisGateBehindHTTPLimitHoldsAndReleasesPlaces(t *testing.T) {
	_, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	g, err := redisgate.New(redisgate.Config{Client: c, Name: r.Namespace(), Lim: lim.NewConfig(2, 1, 1000, 10),
		Sets: math.MaxInt64, Ways: 1, TickNanos: int64(time.Second), LeaseTTL: time.Hour, Seed: &redisTestSeed})
	if err != nil {
		t.Fatal(err)
	}
	var inside int64 = -1
	l, err := httplimit.NewFor(&redisgate.HTTPGate{G: g}, httplimit.WithClock(func() int64 { return 5 }))
	if err != nil {
		t.Fatal(err)
	}
	h := l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		inside, _ = g.InFlight()
	}))
	for i, want := range []int{200, 200, 503} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = "192.0.2.7:1234"
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Fatalf("request %d: status %d, want %d", i, rec.Code, want)
		}
		if want == 200 && inside != 1 {
			t.Fatalf("request %d: in flight inside the handler %d, want 1", i, inside)
		}
		if want == 503 && rec.Header().Get("Retry-After") != "1000" {
			t.Fatalf("request %d: Retry-After %q, want 1000 (ivl/refil ticks of 1s)", i, rec.Header().Get("Retry-After"))
		}
	}
	if n, err := g.InFlight(); err != nil || n != 0 {
		t.Fatalf("in flight after the requests = %d, %v; want 0", n, err)
	}
	if _, err := httplimit.NewFor(&redisgate.HTTPGate{G: g}, httplimit.WithTrueRetryAfter()); err == nil {
		t.Fatalf("NewFor(HTTPGate, WithTrueRetryAfter) = nil error, want ErrConfig")
	}
}
