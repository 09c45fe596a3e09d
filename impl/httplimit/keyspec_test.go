package httplimit_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/limcheck/limcheck/impl/httplimit"
)

// call sends a GET to url with the header lines h (name, value pairs) and
// returns the response's status and header; the body is drained.
func call(t testing.TB, method, url string, h ...string) (int, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(h); i += 2 {
		req.Header.Add(h[i], h[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header
}

// codes sends the requests (a header name and value each, "" for none) in
// order and returns their statuses.
func codes(t testing.TB, url string, headers ...[2]string) []int {
	t.Helper()
	var out []int
	for _, h := range headers {
		var c int
		if h[0] == "" {
			c, _ = call(t, http.MethodGet, url)
		} else {
			c, _ = call(t, http.MethodGet, url, h[0], h[1])
		}
		out = append(out, c)
	}
	return out
}

// eqInts reports whether a and b are equal.
func eqInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// apiKey is a header line with the API key k.
func apiKey(k string) [2]string { return [2]string{"X-Api-Key", k} }

// TestHeaderKeyBucketsPerValue checks, through a loopback server (every
// request from 127.0.0.1), that a Limiter keyed by an API key header gives
// each key a bucket of its own, and that a request without one falls back
// to the address's bucket, which is not any key's.
func TestHeaderKeyBucketsPerValue(t *testing.T) {
	l := newLimiter(t, newGate(t, 1, 1, 1<<40, 16, 1), fixedClock(0), httplimit.WithKey(httplimit.HeaderKey("X-API-Key", 64)))
	url := loopback(t, l.Wrap(ok))
	got := codes(t, url, apiKey("alpha"), apiKey("alpha"), apiKey("beta"), [2]string{}, [2]string{}, apiKey("127.0.0.1"))
	want := []int{200, 503, 200, 200, 503, 200}
	if !eqInts(got, want) {
		t.Errorf("statuses %v, want %v: a bucket per key (cap 1), the address's for none, and a key spelling the address apart from it", got, want)
	}
}

// TestHeaderKeyRefusals checks OrRefuse: 401 with WWW-Authenticate, or 400,
// for a request whose key is missing or breaks the normalisation (too long,
// a space, two field lines), without spending a token.
func TestHeaderKeyRefusals(t *testing.T) {
	k := httplimit.HeaderKey("X-API-Key", 8)
	l401 := newLimiter(t, newGate(t, 1, 1, 1<<40, 16, 1), fixedClock(0), httplimit.WithKey(k.OrRefuse(401, `ApiKey realm="api"`)))
	l400 := newLimiter(t, newGate(t, 1, 1, 1<<40, 16, 1), fixedClock(0), httplimit.WithKey(k.OrRefuse(400, "")))
	u401, u400 := loopback(t, l401.Wrap(ok)), loopback(t, l400.Wrap(ok))
	for _, tt := range []struct {
		h      []string
		reason string
	}{
		{nil, "no key"},
		{[]string{"X-API-Key", "123456789"}, "9 bytes, over the bound of 8"},
		{[]string{"X-API-Key", "a b"}, "a space inside"},
		{[]string{"X-API-Key", "a", "X-API-Key", "b"}, "two field lines"},
		{[]string{"X-API-Key", "é"}, "a non-ASCII byte"},
	} {
		code, h := call(t, http.MethodGet, u401, tt.h...)
		if code != 401 || h.Get("WWW-Authenticate") != `ApiKey realm="api"` {
			t.Errorf("%s: status %d, WWW-Authenticate %q; want 401 with the challenge", tt.reason, code, h.Get("WWW-Authenticate"))
		}
		if code, _ := call(t, http.MethodGet, u400, tt.h...); code != 400 {
			t.Errorf("%s: status %d, want 400", tt.reason, code)
		}
	}
	if got := codes(t, u401, apiKey("12345678"), apiKey("12345678")); !eqInts(got, []int{200, 503}) {
		t.Errorf("a key of exactly 8 bytes: statuses %v, want 200 then 503 (the refusals spent nothing)", got)
	}
}

// userKey is the context key of the test's auth middleware.
type userKey struct{}

// withUser is an auth middleware: it puts the X-User header, as an int64
// user id for "7" and a string otherwise, into the request's context.
func withUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch u := r.Header.Get("X-User"); u {
		case "":
		case "7":
			r = r.WithContext(context.WithValue(r.Context(), userKey{}, int64(7)))
		default:
			r = r.WithContext(context.WithValue(r.Context(), userKey{}, u))
		}
		next.ServeHTTP(w, r)
	})
}

// TestContextKeyBucketsPerUser checks that a policy keyed by a value the
// auth middleware put in the context gives each user a bucket, for a string
// and an int64 id, and refuses a request without one.
func TestContextKeyBucketsPerUser(t *testing.T) {
	l := newLimiter(t, newGate(t, 100, 1, 1<<40, 16, 1), fixedClock(0))
	p := mustPolicy(t, l, httplimit.PolicyConfig{Name: "user", Cap: 1, Refil: 1, Ivl: 1 << 40,
		Key: httplimit.ContextKey(userKey{}).OrRefuse(401, "Bearer")})
	url := loopback(t, l.Wrap(withUser(p.Wrap(ok))))
	u := func(id string) [2]string { return [2]string{"X-User", id} }
	got := codes(t, url, u("ann"), u("ann"), u("7"), u("7"), u("bob"), [2]string{})
	if want := []int{200, 503, 200, 503, 200, 401}; !eqInts(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
}

// TestPatternKeyPerRoute checks a composite key of route and address over
// Go's ServeMux patterns: one address has a bucket per route pattern, and
// two paths of one pattern share it.
func TestPatternKeyPerRoute(t *testing.T) {
	l := newLimiter(t, newGate(t, 100, 1, 1<<40, 16, 1), fixedClock(0))
	p := mustPolicy(t, l, httplimit.PolicyConfig{Name: "route", Cap: 1, Refil: 1, Ivl: 1 << 40,
		Key: httplimit.CompositeKey(httplimit.PatternKey(), httplimit.AddressKey())})
	mux := http.NewServeMux()
	mux.Handle("GET /items/{id}", p.Wrap(ok))
	mux.Handle("GET /users/{id}", p.Wrap(ok))
	url := loopback(t, l.Wrap(mux))
	var got []int
	for _, path := range []string{"/items/1", "/users/1", "/items/2", "/users/2"} {
		c, _ := call(t, http.MethodGet, url+path)
		got = append(got, c)
	}
	if want := []int{200, 200, 503, 503}; !eqInts(got, want) {
		t.Errorf("statuses %v, want %v: a bucket per pattern and address", got, want)
	}
}

// TestKeysRejectedAtNew checks that keys out of range are config errors.
func TestKeysRejectedAtNew(t *testing.T) {
	g := newGate(t, 1, 1, 1, 1, 1)
	for _, tt := range []struct {
		k      httplimit.Key
		reason string
	}{
		{httplimit.HeaderKey("X-API-Key", 0), "a length bound of 0"},
		{httplimit.HeaderKey("X-API-Key", httplimit.MaxKeyBytes+1), "a length bound over MaxKeyBytes"},
		{httplimit.HeaderKey("X-API-Key", 8).OrRefuse(403, ""), "a refusal neither 400 nor 401"},
		{httplimit.HeaderKey("X-API-Key", 8).OrRefuse(401, ""), "a 401 without WWW-Authenticate"},
		{httplimit.FuncKey(nil), "a nil function"},
		{httplimit.ContextKey(nil), "a nil context key"},
	} {
		if _, err := httplimit.New(g, httplimit.WithKey(tt.k)); !errors.Is(err, httplimit.ErrConfig) {
			t.Errorf("%s: New = %v, want ErrConfig", tt.reason, err)
		}
	}
}

// mustPolicy returns l.NewPolicy(c), failing t on error.
func mustPolicy(t fatalT, l *httplimit.Limiter, c httplimit.PolicyConfig) *httplimit.Policy {
	t.Helper()
	p, err := l.NewPolicy(c)
	if err != nil {
		t.Fatalf("NewPolicy(%s): %v", c.Name, err)
	}
	return p
}

// TestFuncKeyForAnyRouter checks FuncKey as a router other than ServeMux
// would use it (chi's RoutePattern, here a header a router middleware
// set): a bucket per route, and a request without a route refused with
// 400, spending nothing.
func TestFuncKeyForAnyRouter(t *testing.T) {
	l := newLimiter(t, newGate(t, 100, 1, 1<<40, 16, 1), fixedClock(0))
	route := func(r *http.Request) (string, bool) {
		p := r.Header.Get("X-Route")
		return p, p != ""
	}
	p := mustPolicy(t, l, httplimit.PolicyConfig{Name: "route", Cap: 1, Refil: 1, Ivl: 1 << 40,
		Key: httplimit.FuncKey(route).OrRefuse(400, "")})
	url := loopback(t, l.Wrap(p.Wrap(ok)))
	r := func(p string) [2]string { return [2]string{"X-Route", p} }
	got := codes(t, url, r("/a"), r("/a"), r("/b"), [2]string{}, r("/b"))
	if want := []int{200, 503, 200, 400, 503}; !eqInts(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
}
