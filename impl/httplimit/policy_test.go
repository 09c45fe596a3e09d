package httplimit_test

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
)

// recorder keeps the outcomes a WithOnDecision hook sees.
type recorder struct {
	mu  sync.Mutex
	out []httplimit.Outcome
}

// hook is the recorder's WithOnDecision option.
func (rec *recorder) hook() httplimit.Option {
	return httplimit.WithOnDecision(func(_ *http.Request, o httplimit.Outcome) {
		rec.mu.Lock()
		rec.out = append(rec.out, o)
		rec.mu.Unlock()
	})
}

// take returns the outcomes seen since the last take.
func (rec *recorder) take() []httplimit.Outcome {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	out := rec.out
	rec.out = nil
	return out
}

// remaining returns the Remaining of policy's outcome in outs, or -2 when
// the policy decided nothing.
func remaining(outs []httplimit.Outcome, policy string) int64 {
	for _, o := range outs {
		if o.Policy == policy {
			return o.Remaining
		}
	}
	return -2
}

// TestPoliciesOverServeMux checks the example through a loopback
// server and Go 1.22 ServeMux patterns: /login 5 a minute per address,
// /api/ 3 per second per API key (here: per 10 ticks of 0.1 s), under one
// Limiter (a global in-flight gate and a generous bucket per address). The
// sixth login is limited, the API keys have buckets of their own, and
// another route meets only the Limiter.
func TestPoliciesOverServeMux(t *testing.T) {
	var now int64
	var mu sync.Mutex
	clock := httplimit.WithClock(func() int64 { mu.Lock(); defer mu.Unlock(); return now })
	l := newLimiter(t, newGate(t, 100, 100, 10, 64, tick100ms), clock, httplimit.WithLimitedStatus(429))
	login := mustPolicy(t, l, httplimit.PolicyConfig{Name: "login", Cap: 5, Refil: 5, Ivl: 600})
	api := mustPolicy(t, l, httplimit.PolicyConfig{Name: "api", Cap: 3, Refil: 3, Ivl: 10,
		Key: httplimit.HeaderKey("X-API-Key", 64).OrRefuse(401, "ApiKey")})
	mux := http.NewServeMux()
	mux.Handle("POST /login", login.Wrap(ok))
	mux.Handle("GET /api/{item}", api.Wrap(ok))
	mux.Handle("GET /", ok)
	url := loopback(t, l.Wrap(mux))
	var logins []int
	for range 6 {
		c, _ := call(t, http.MethodPost, url+"/login")
		logins = append(logins, c)
	}
	if want := []int{200, 200, 200, 200, 200, 429}; !eqInts(logins, want) {
		t.Errorf("/login: statuses %v, want %v", logins, want)
	}
	a := []int{}
	for _, k := range []string{"k1", "k1", "k1", "k1", "k2"} {
		c, _ := call(t, http.MethodGet, url+"/api/x", "X-API-Key", k)
		a = append(a, c)
	}
	if want := []int{200, 200, 200, 429, 200}; !eqInts(a, want) {
		t.Errorf("/api: statuses %v, want %v", a, want)
	}
	if c, _ := call(t, http.MethodGet, url+"/other"); c != 200 {
		t.Errorf("/other: status %d, want 200 (no policy)", c)
	}
	mu.Lock()
	now = 10 // one second: the API keys' buckets are full again, the login's not
	mu.Unlock()
	if c, _ := call(t, http.MethodGet, url+"/api/x", "X-API-Key", "k1"); c != 200 {
		t.Errorf("/api after a second: status %d, want 200", c)
	}
	if c, _ := call(t, http.MethodPost, url+"/login"); c != 429 {
		t.Errorf("/login after a second: status %d, want 429", c)
	}
}

// TestEarlierLimitsKeepTheirTokens checks one side of the rule on tokens
// already taken: when a later limit (a route's policy) rejects, the earlier
// ones (the Limiter's bucket, an outer policy) keep what they took.
func TestEarlierLimitsKeepTheirTokens(t *testing.T) {
	rec := &recorder{}
	l := newLimiter(t, newGate(t, 10, 1, 1<<40, 16, 1), fixedClock(0), rec.hook())
	outer := mustPolicy(t, l, httplimit.PolicyConfig{Name: "outer", Cap: 10, Refil: 1, Ivl: 1 << 40})
	inner := mustPolicy(t, l, httplimit.PolicyConfig{Name: "inner", Cap: 1, Refil: 1, Ivl: 1 << 40})
	url := loopback(t, l.Wrap(outer.Wrap(inner.Wrap(ok))))
	for i, want := range []int{200, 503, 503} {
		c, _ := call(t, http.MethodGet, url)
		outs := rec.take()
		if c != want || remaining(outs, "default") != int64(9-i) || remaining(outs, "outer") != int64(9-i) {
			t.Errorf("request %d: status %d, outcomes %+v; want %d, the Limiter's and outer's buckets at %d", i, c, outs, want, 9-i)
		}
	}
}

// TestLaterLimitsAreNotAsked checks the other side: a limit that rejects
// stops the request, so the limits after it take nothing, and a shed (the
// in-flight gate, met first) takes nothing anywhere.
func TestLaterLimitsAreNotAsked(t *testing.T) {
	rec := &recorder{}
	g := newGate(t, 1, 1, 1<<40, 1, 1)
	l := newLimiter(t, g, fixedClock(0), rec.hook())
	p := mustPolicy(t, l, httplimit.PolicyConfig{Name: "p", Cap: 5, Refil: 1, Ivl: 1 << 40})
	url := loopback(t, l.Wrap(p.Wrap(ok)))
	if c, _ := call(t, http.MethodGet, url); c != 200 || remaining(rec.take(), "p") != 4 {
		t.Fatalf("first request: status %d, want 200 with p at 4", c)
	}
	if c, _ := call(t, http.MethodGet, url); c != 503 || remaining(rec.take(), "p") != -2 {
		t.Errorf("second request: status %d, want the Limiter's 503 and no decision of p", c)
	}
	hold, held := make(chan struct{}), make(chan struct{})
	g2 := newGate(t, 100, 1, 1<<40, 1, 1)
	l2 := newLimiter(t, g2, fixedClock(0), rec.hook())
	p2 := mustPolicy(t, l2, httplimit.PolicyConfig{Name: "p2", Cap: 5, Refil: 1, Ivl: 1 << 40})
	mux2 := http.NewServeMux()
	mux2.Handle("GET /hold", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { close(held); <-hold }))
	mux2.Handle("GET /", p2.Wrap(ok))
	url2 := loopback(t, l2.Wrap(mux2))
	go func() { _, _ = http.Get(url2 + "/hold") }()
	<-held
	rec.take()
	if c, _ := call(t, http.MethodGet, url2); c != 503 {
		t.Errorf("a request while the one place is held: status %d, want the shed's 503", c)
	}
	if outs := rec.take(); len(outs) != 1 || outs[0].Result != httplimit.Shed || remaining(outs, "p2") != -2 {
		t.Errorf("outcomes of the shed %+v, want one Shed of the Limiter and nothing of p2", outs)
	}
	close(hold)
	waitFor(t, "the held place to come back", func() bool { return g2.InFlight() == 0 })
	if c, _ := call(t, http.MethodGet, url2); c != 200 || remaining(rec.take(), "p2") != 4 {
		t.Errorf("after the shed: status %d, want 200 with p2 at 4: the shed took nothing", c)
	}
}

// TestPolicySetLimitsKeepsBuckets checks that a policy's limits change at
// run time without losing the buckets: a key that spent 3 of 5 has 2 left
// under a cap of 10 (not a new full bucket), and the fields describe the
// new limits.
func TestPolicySetLimitsKeepsBuckets(t *testing.T) {
	l := newLimiter(t, newGate(t, 100, 1, 1<<40, 16, tick100ms), fixedClock(0), httplimit.WithFields(httplimit.RateLimitFields))
	p := mustPolicy(t, l, httplimit.PolicyConfig{Name: "p", Cap: 5, Refil: 1, Ivl: 10})
	url := loopback(t, l.Wrap(p.Wrap(ok)))
	for range 3 {
		call(t, http.MethodGet, url)
	}
	if err := p.SetLimits(10, 2, 10); err != nil {
		t.Fatal(err)
	}
	_, h := call(t, http.MethodGet, url)
	if got := h.Values("RateLimit"); len(got) != 2 || got[1] != `"p";r=1;t=1` {
		t.Errorf("RateLimit after the change = %q, want p's r=1 (2 kept, 1 taken) and t=1", got)
	}
	if got := h.Values("RateLimit-Policy"); len(got) != 2 || got[1] != `"p";q=10;w=5` {
		t.Errorf("RateLimit-Policy after the change = %q, want q=10;w=5", got)
	}
	if got := p.Limits(); got != (gate.Limits{Cap: 10, Refil: 2, Ivl: 10}) {
		t.Errorf("Limits() = %+v", got)
	}
	if err := p.SetLimits(0, 1, 1); !errors.Is(err, httplimit.ErrConfig) {
		t.Errorf("SetLimits(0, 1, 1) = %v, want ErrConfig", err)
	}
}

// TestPolicyCost checks weighted requests: a cost function per policy
// spends its tokens, and a cost over cap is an ordinary reject (spec
// LIM-12) with lim_take's retry as Retry-After.
func TestPolicyCost(t *testing.T) {
	l := newLimiter(t, newGate(t, 100, 1, 1<<40, 16, tick100ms), fixedClock(0))
	p := mustPolicy(t, l, httplimit.PolicyConfig{Name: "w", Cap: 10, Refil: 1, Ivl: 10, Cost: func(r *http.Request) int64 {
		n, _ := strconv.ParseInt(r.Header.Get("X-Cost"), 10, 64)
		return n
	}})
	url := loopback(t, l.Wrap(p.Wrap(ok)))
	for i, tt := range []struct {
		cost       string
		code       int
		retryAfter string
		reason     string
	}{
		{"6", 200, "", "6 of 10"},
		{"5", 503, "1", "5 of the 4 left: one more token in a second (10 ticks of 0.1 s)"},
		{"4", 200, "", "the 4 left"},
		{"0", 503, "1", "a cost below 1 counts as 1: none left"},
		{"11", 503, "11", "over cap: LIM-12's retry, 11 tokens at 1 a second"},
	} {
		code, h := call(t, http.MethodGet, url, "X-Cost", tt.cost)
		if code != tt.code || h.Get("Retry-After") != tt.retryAfter {
			t.Errorf("request %d (%s): status %d, Retry-After %q; want %d, %q", i, tt.reason, code, h.Get("Retry-After"), tt.code, tt.retryAfter)
		}
	}
}

// TestShadowPolicyNeverRejects checks that a shadow policy reports what it
// would decide (the hook sees Limited with Shadow set) and lets every
// request through, with no header fields unless ShadowFields.
func TestShadowPolicyNeverRejects(t *testing.T) {
	rec := &recorder{}
	l := newLimiter(t, newGate(t, 100, 1, 1<<40, 16, 1), fixedClock(0), rec.hook(), httplimit.WithFields(httplimit.RateLimitFields))
	quiet := mustPolicy(t, l, httplimit.PolicyConfig{Name: "quiet", Cap: 1, Refil: 1, Ivl: 1 << 40, Shadow: true})
	loud := mustPolicy(t, l, httplimit.PolicyConfig{Name: "loud", Cap: 2, Refil: 1, Ivl: 1 << 40, Shadow: true, ShadowFields: true})
	url := loopback(t, l.Wrap(quiet.Wrap(loud.Wrap(ok))))
	for i, want := range []struct {
		quiet, loud httplimit.Result
		field       string
	}{
		{httplimit.Passed, httplimit.Passed, `"loud";r=1;t=1100`},
		{httplimit.Limited, httplimit.Passed, `"loud";r=0;t=1100`},
		{httplimit.Limited, httplimit.Limited, `"loud";r=0;t=1100`},
	} {
		code, h := call(t, http.MethodGet, url)
		outs := rec.take()
		if code != 200 || len(outs) != 3 || outs[1].Result != want.quiet || outs[2].Result != want.loud || !outs[1].Shadow || !outs[2].Shadow {
			t.Errorf("request %d: status %d, outcomes %+v; want 200, quiet %v, loud %v, both shadows", i, code, outs, want.quiet, want.loud)
		}
		if got := h.Values("RateLimit"); len(got) != 2 || got[1] != want.field {
			t.Errorf("request %d: RateLimit %q, want the Limiter's and %s, none of quiet", i, got, want.field)
		}
	}
}

// TestLimited429 checks WithLimitedStatus(429): a limited request of the
// Limiter or of a policy gets 429 with the 503's Retry-After and body, and
// a shed stays 503.
func TestLimited429(t *testing.T) {
	g := newGate(t, 1, 1, 10, 1, tick100ms)
	l := newLimiter(t, g, fixedClock(0), httplimit.WithLimitedStatus(429))
	p := mustPolicy(t, l, httplimit.PolicyConfig{Name: "p", Cap: 1, Refil: 1, Ivl: 30, Key: httplimit.HeaderKey("X-K", 8)})
	held, hold := make(chan struct{}), make(chan struct{})
	mux := http.NewServeMux()
	mux.Handle("GET /p", p.Wrap(ok))
	mux.Handle("GET /hold", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { close(held); <-hold }))
	url := loopback(t, l.Wrap(mux))
	l2 := newLimiter(t, newGate(t, 100, 1, 10, 16, tick100ms), fixedClock(0), httplimit.WithLimitedStatus(429))
	p2 := mustPolicy(t, l2, httplimit.PolicyConfig{Name: "p", Cap: 1, Refil: 1, Ivl: 30})
	url2 := loopback(t, l2.Wrap(p2.Wrap(ok)))
	call(t, http.MethodGet, url2)
	if code, h := call(t, http.MethodGet, url2); code != 429 || h.Get("Retry-After") != "3" {
		t.Errorf("a policy's limited request: %d, Retry-After %q; want 429, 3", code, h.Get("Retry-After"))
	}
	go func() { _, _ = http.Get(url + "/hold") }()
	<-held
	if code, _ := call(t, http.MethodGet, url+"/p"); code != 503 {
		t.Errorf("a shed under WithLimitedStatus(429): %d, want 503", code)
	}
	close(hold)
	waitFor(t, "the held place", func() bool { return g.InFlight() == 0 })
	if code, h := call(t, http.MethodGet, url+"/p"); code != 429 || h.Get("Retry-After") != "1" || h.Get("Content-Length") != "12" {
		t.Errorf("the Limiter's limited request: %d, %v; want 429, Retry-After 1, the 12-byte body", code, h)
	}
	if _, err := httplimit.New(g, httplimit.WithLimitedStatus(418)); !errors.Is(err, httplimit.ErrConfig) {
		t.Errorf("WithLimitedStatus(418): %v, want ErrConfig", err)
	}
}

// TestAllowlist checks that allowlisted prefixes and keys skip the buckets,
// that they keep the in-flight gate by default and skip it with
// SkipInFlight.
func TestAllowlist(t *testing.T) {
	for _, skip := range []bool{false, true} {
		g := newGate(t, 1, 1, 1<<40, 1, 1)
		l := newLimiter(t, g, fixedClock(0), httplimit.WithAllowlist(httplimit.Allowlist{
			Prefixes: prefixes("127.0.0.0/8"), SkipInFlight: skip}))
		p := mustPolicy(t, l, httplimit.PolicyConfig{Name: "p", Cap: 1, Refil: 1, Ivl: 1 << 40})
		held, hold := make(chan struct{}), make(chan struct{})
		mux := http.NewServeMux()
		mux.Handle("GET /", p.Wrap(ok))
		mux.Handle("GET /hold", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { close(held); <-hold }))
		url := loopback(t, l.Wrap(mux))
		if got := codes(t, url, [2]string{}, [2]string{}, [2]string{}); !eqInts(got, []int{200, 200, 200}) {
			t.Errorf("skip %v: an allowlisted address under cap 1: %v, want every request passed", skip, got)
		}
		go func() { _, _ = http.Get(url + "/hold") }()
		<-held
		want := 503
		if skip {
			want = 200
		}
		if code, _ := call(t, http.MethodGet, url); code != want {
			t.Errorf("skip %v: a request while a place is held: %d, want %d", skip, code, want)
		}
		close(hold)
	}
	l := newLimiter(t, newGate(t, 1, 1, 1<<40, 4, 1), fixedClock(0), httplimit.WithKey(httplimit.HeaderKey("X-API-Key", 16)),
		httplimit.WithAllowlist(httplimit.Allowlist{Keys: []string{"monitor"}}))
	url := loopback(t, l.Wrap(ok))
	if got := codes(t, url, apiKey("monitor"), apiKey("monitor"), apiKey("other"), apiKey("other")); !eqInts(got, []int{200, 200, 200, 503}) {
		t.Errorf("an allowlisted key: %v, want it never limited, another key limited", got)
	}
}

// TestPolicyFieldsUnderConcurrentSetLimits runs requests through a policy
// while its limits change (for the race detector), and checks that every
// response describes one set of limits: its RateLimit-Policy's q is a cap
// that was set, and its r is within it.
func TestPolicyFieldsUnderConcurrentSetLimits(t *testing.T) {
	l := newLimiter(t, newGate(t, 1<<40, 1<<40, 1, 64, 1), httplimit.WithFields(httplimit.RateLimitFields), httplimit.WithPolicyName("all"))
	p := mustPolicy(t, l, httplimit.PolicyConfig{Name: "p", Cap: 4, Refil: 1, Ivl: 1000})
	h := l.Wrap(p.Wrap(ok))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 300 {
				rec := serve(h, get("192.0.2."+strconv.Itoa(w*50+i%50)+":1", nil))
				pol, rl := rec.Header().Values("RateLimit-Policy"), rec.Header().Values("RateLimit")
				if len(pol) != 2 || len(rl) != 2 {
					t.Errorf("fields %q %q, want the Limiter's and p's", pol, rl)
					return
				}
				var q, r int64
				if _, err := fmt.Sscanf(pol[1], `"p";q=%d;`, &q); err != nil || (q != 4 && q != 40) {
					t.Errorf("RateLimit-Policy %q: q %d (%v), want 4 or 40", pol[1], q, err)
					return
				}
				if _, err := fmt.Sscanf(rl[1], `"p";r=%d`, &r); err != nil || r < 0 || r >= q {
					t.Errorf("RateLimit %q under q=%d: r %d (%v)", rl[1], q, r, err)
					return
				}
			}
		})
	}
	for i := range 200 {
		if err := p.SetLimits(4+36*int64(i%2), 1, 1000); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
}
