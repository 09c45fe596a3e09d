package httplimit_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/limcheck/limcheck/impl/httplimit"
)

// keyPaths are the non-address paths whose cost the package documentation
// states (Allocation): each a handler that always passes and a request.
func keyPaths(t fatalT) []struct {
	name string
	h    http.Handler
	r    *http.Request
} {
	// Limits that always pass (a bucket refilled every tick of 1 ns, read
	// on the gate's monotonic clock) and whose remaining tokens stay below
	// 2^17, as a real limit's do: their decimals are cached.
	pass := func(opts ...httplimit.Option) *httplimit.Limiter {
		return newLimiter(t, newGate(t, 100_000, 100_000, 1, 1<<20, 1), opts...)
	}
	withKey := get("192.0.2.1:1234", http.Header{"X-Api-Key": {"k-0123456789abcdef"}})
	withUser := get("192.0.2.1:1234", nil)
	withUser = withUser.WithContext(context.WithValue(withUser.Context(), userKey{}, "user-42"))
	withRoute := get("192.0.2.1:1234", nil)
	withRoute.Pattern = "GET /items/{id}"
	policy := pass()
	api := mustPolicy(t, policy, httplimit.PolicyConfig{Name: "api", Cap: 100_000, Refil: 100_000, Ivl: 1,
		Key: httplimit.HeaderKey("X-API-Key", 64)})
	both := httplimit.WithFields(httplimit.RateLimitFields | httplimit.XRateLimitFields)
	return []struct {
		name string
		h    http.Handler
		r    *http.Request
	}{
		{"Address", pass().Wrap(nop), withKey},
		{"HeaderKey", pass(httplimit.WithKey(httplimit.HeaderKey("X-API-Key", 64))).Wrap(nop), withKey},
		{"ContextKey", pass(httplimit.WithKey(httplimit.ContextKey(userKey{}))).Wrap(nop), withUser},
		{"PatternAndAddress", pass(httplimit.WithKey(httplimit.CompositeKey(httplimit.PatternKey(), httplimit.AddressKey()))).Wrap(nop), withRoute},
		{"Hook", pass(httplimit.WithOnDecision(func(*http.Request, httplimit.Outcome) {})).Wrap(nop), withKey},
		{"Policy", policy.Wrap(api.Wrap(nop)), withKey},
		{"XRateLimitFields", pass(httplimit.WithFields(httplimit.XRateLimitFields)).Wrap(nop), withKey},
		{"RateLimitFields", pass(httplimit.WithFields(httplimit.RateLimitFields)).Wrap(nop), withKey},
		{"PolicyAllFields", pass(both).Wrap(mustPolicy(t, pass(both), httplimit.PolicyConfig{Name: "api", Cap: 100_000, Refil: 100_000, Ivl: 1,
			Key: httplimit.HeaderKey("X-API-Key", 64)}).Wrap(nop)), withKey},
	}
}

// BenchmarkMiddlewareKeys measures, beside the address path (Address), the
// paths beyond it (a key of
// a header, of a context value, of route and address; a decision hook; a
// policy; header fields): ns and allocations per request. The README and
// the package documentation quote its figures.
func BenchmarkMiddlewareKeys(b *testing.B) {
	for _, p := range keyPaths(b) {
		b.Run(p.name, func(b *testing.B) {
			w := &discardWriter{h: make(http.Header, 8)}
			b.ReportAllocs()
			cpu := cpuSeconds()
			for b.Loop() {
				clear(w.h)
				p.h.ServeHTTP(w, p.r)
			}
			b.ReportMetric((cpuSeconds()-cpu)*1e9/float64(b.N), "cpu-ns/op") // the process's CPU time: less of the machine's load than wall time
		})
	}
}

// TestKeyPathsAllocate pins the allocations of the paths beyond the address:
// none for a key of a header, a context value or a route and address, for a
// decision hook or a policy; the RateLimit field's value is one allocation
// per limit and request (X-RateLimit's none, below 2^17).
func TestKeyPathsAllocate(t *testing.T) {
	want := map[string]float64{"RateLimitFields": 1, "PolicyAllFields": 3}
	for _, p := range keyPaths(t) {
		w := &discardWriter{h: make(http.Header, 8)}
		allocs := testing.AllocsPerRun(100, func() {
			clear(w.h)
			p.h.ServeHTTP(w, p.r)
		})
		if allocs != want[p.name] {
			t.Errorf("%s: %v allocations per request, want %v", p.name, allocs, want[p.name])
		}
	}
}
