package httplimit_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/lim"
	"pgregory.net/rapid"
)

// fieldScenario is a limit under test and a history of requests: the
// Limiter's own bucket, or a policy's under a Limiter that always passes.
type fieldScenario struct {
	cap, refil, ivl, tickNanos int64
	policy                     bool
	ticks                      []int64 // the history's ticks, nondecreasing
	costs                      []int64 // the history's costs (a policy's; 1 for the Limiter)
}

// drawScenario draws a scenario.
func drawScenario(t *rapid.T, policy bool) fieldScenario {
	s := fieldScenario{
		cap:       rapid.Int64Range(1, 12).Draw(t, "cap"),
		refil:     rapid.Int64Range(1, 4).Draw(t, "refil"),
		ivl:       rapid.Int64Range(1, 8).Draw(t, "ivl"),
		tickNanos: rapid.SampledFrom([]int64{1e8, 3e8, 7e8, 1e9, 13e8}).Draw(t, "tickNanos"),
		policy:    policy,
	}
	now := rapid.Int64Range(0, 5).Draw(t, "t0")
	for i := range rapid.IntRange(0, 12).Draw(t, "requests") {
		now += rapid.Int64Range(0, 4).Draw(t, fmt.Sprintf("dt%d", i))
		s.ticks = append(s.ticks, now)
		cost := int64(1)
		if policy {
			cost = rapid.Int64Range(1, s.cap).Draw(t, fmt.Sprintf("cost%d", i))
		}
		s.costs = append(s.costs, cost)
	}
	return s
}

// fieldRig is a scenario's handler and its clock.
type fieldRig struct {
	h   http.Handler
	now atomic.Int64
}

// build returns a fresh rig for s, with every field on, the history
// replayed.
func (s fieldScenario) build(t fatalT) *fieldRig {
	rig := &fieldRig{}
	clock := httplimit.WithClock(rig.now.Load)
	fields := httplimit.WithFields(httplimit.RateLimitFields | httplimit.XRateLimitFields)
	if !s.policy {
		rig.h = newLimiter(t, newGate(t, s.cap, s.refil, s.ivl, 16, s.tickNanos), clock, fields).Wrap(ok)
	} else {
		l := newLimiter(t, newGate(t, 1<<40, 1<<40, 1, 16, s.tickNanos), clock, fields, httplimit.WithPolicyName("all"))
		p := mustPolicy(t, l, httplimit.PolicyConfig{Name: "p", Cap: s.cap, Refil: s.refil, Ivl: s.ivl, Cost: func(r *http.Request) int64 {
			n, _ := strconv.ParseInt(r.Header.Get("X-Cost"), 10, 64)
			return n
		}})
		rig.h = l.Wrap(p.Wrap(ok))
	}
	for i, tick := range s.ticks {
		rig.send(tick, s.costs[i])
	}
	return rig
}

// send sends one request of cost at tick and returns its response.
func (rig *fieldRig) send(tick, cost int64) *httptest.ResponseRecorder {
	rig.now.Store(tick)
	r := get("192.0.2.1:1", http.Header{"X-Cost": {strconv.FormatInt(cost, 10)}})
	return serve(rig.h, r)
}

// name is the scenario's limit's name in the RateLimit fields.
func (s fieldScenario) name() string {
	if s.policy {
		return "p"
	}
	return "default"
}

// described is what a response says of the limit under test: r and t of
// its RateLimit item (t -1 when absent), X-RateLimit-Remaining and Reset.
type described struct{ r, t, xRemaining, xReset int64 }

// describe parses rec's fields for the limit name, failing t when they
// are missing, malformed or disagree.
func describe(t fatalT, rec *httptest.ResponseRecorder, name string) described {
	t.Helper()
	d := described{t: -1}
	found := false
	for _, item := range rec.Header().Values("RateLimit") {
		n, params, _ := strings.Cut(item, ";")
		if n != `"`+name+`"` {
			continue
		}
		found = true
		for _, p := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(p, "=")
			x, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("RateLimit item %q: %v", item, err)
			}
			switch k {
			case "r":
				d.r = x
			case "t":
				d.t = x
			}
		}
	}
	if !found {
		t.Fatalf("no RateLimit item of %s in %v", name, rec.Header())
	}
	d.xRemaining, _ = strconv.ParseInt(rec.Header().Get("X-RateLimit-Remaining"), 10, 64)
	d.xReset, _ = strconv.ParseInt(rec.Header().Get("X-RateLimit-Reset"), 10, 64)
	if d.xRemaining != d.r {
		t.Fatalf("X-RateLimit-Remaining %d, RateLimit's r %d: they describe one bucket", d.xRemaining, d.r)
	}
	return d
}

// ticksOf is the tick s seconds after the start of tick 0: floor(s*1e9 /
// tickNanos).
func ticksOf(s, tickNanos int64) int64 { return s * 1_000_000_000 / tickNanos }

// checkRemainingIsTrue is the property of TestRemainingIsTrue for one
// kind of limit.
func checkRemainingIsTrue(t *rapid.T, policy bool) {
	s := drawScenario(t, policy)
	rig := s.build(t)
	now := int64(0)
	if n := len(s.ticks); n > 0 {
		now = s.ticks[n-1]
	}
	now += rapid.Int64Range(0, 3).Draw(t, "dtLast")
	d := describe(t, rig.send(now, 1), s.name())
	for i := range d.r {
		if rec := rig.send(now, 1); rec.Code != 200 {
			t.Fatalf("r=%d at tick %d, but request %d of cost 1 after it got %d", d.r, now, i+1, rec.Code)
		}
	}
	if rec := rig.send(now, 1); rec.Code == 200 {
		t.Fatalf("r=%d at tick %d, but request %d of cost 1 after it passed", d.r, now, d.r+1)
	}
}

// TestRemainingIsTrue checks the RateLimit field's r (and
// X-RateLimit-Remaining, which must agree): after a response that says r,
// the next r requests of cost 1 at the same tick pass and the one after is
// limited, absent other traffic; for the Limiter's bucket and for a
// policy's, after random histories (of random costs, for the policy).
func TestRemainingIsTrue(t *testing.T) {
	t.Run("limiter", rapid.MakeCheck(func(t *rapid.T) { checkRemainingIsTrue(t, false) }))
	t.Run("policy", rapid.MakeCheck(func(t *rapid.T) { checkRemainingIsTrue(t, true) }))
}

// tokensBefore is the tokens a probe of cost 1 found: its remaining plus
// the token it took when it passed.
func tokensBefore(t fatalT, rec *httptest.ResponseRecorder, name string) int64 {
	d := describe(t, rec, name)
	if rec.Code == 200 {
		return d.r + 1
	}
	return d.r
}

// checkResetIsTrue is the property of TestResetIsTrue for one kind of
// limit.
func checkResetIsTrue(t *rapid.T, policy bool) {
	s := drawScenario(t, policy)
	now := int64(0)
	if n := len(s.ticks); n > 0 {
		now = s.ticks[n-1]
	}
	s.ticks = append(s.ticks, now)
	s.costs = append(s.costs, 1)
	rig := s.build(t)
	d := describe(t, rig.send(now, 1), s.name())
	// the answer itself spent a token: the history below includes it
	s.ticks = append(s.ticks, now)
	s.costs = append(s.costs, 1)
	probe := func(secs int64) int64 {
		return tokensBefore(t, s.build(t).send(now+ticksOf(secs, s.tickNanos), 1), s.name())
	}
	if got := probe(d.xReset); got != s.cap {
		t.Fatalf("X-RateLimit-Reset %d at tick %d, but the bucket holds %d of %d then", d.xReset, now, got, s.cap)
	}
	if d.xReset > 0 {
		if got := probe(d.xReset - 1); got == s.cap {
			t.Fatalf("X-RateLimit-Reset %d at tick %d, but the bucket is full a second earlier", d.xReset, now)
		}
	}
	if d.t < 0 {
		if d.r != s.cap {
			t.Fatalf("no t, but r=%d of cap %d: more quota will come", d.r, s.cap)
		}
		return
	}
	if got := probe(d.t); got <= d.r {
		t.Fatalf("t=%d with r=%d at tick %d, but the bucket holds %d then", d.t, d.r, now, got)
	}
	if got := probe(d.t - 1); got != d.r {
		t.Fatalf("t=%d with r=%d at tick %d, but the bucket holds %d a second earlier", d.t, d.r, now, got)
	}
}

// TestResetIsTrue checks the reset values against the bucket, absent other
// traffic: X-RateLimit-Reset is the first whole second (from the tick of
// the response) at which the bucket is full again, and the RateLimit
// field's t the first at which it holds more than r (absent when it is
// full: no more will come); for the Limiter's bucket and a policy's.
func TestResetIsTrue(t *testing.T) {
	t.Run("limiter", rapid.MakeCheck(func(t *rapid.T) { checkResetIsTrue(t, false) }))
	t.Run("policy", rapid.MakeCheck(func(t *rapid.T) { checkResetIsTrue(t, true) }))
}

// TestFieldsWithCurl checks the fields through a real loopback server and
// curl: RateLimit-Policy and RateLimit of the Limiter and of an API-key
// policy on a pass, the X-RateLimit trio describing the one with fewer
// tokens, and on the policy's 429 r=0 with a Retry-After no earlier than t.
func TestFieldsWithCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Fatalf("curl is needed: %v", err)
	}
	l := newLimiter(t, newGate(t, 100, 10, 10, 16, tick100ms), fixedClock(0), httplimit.WithLimitedStatus(429),
		httplimit.WithFields(httplimit.RateLimitFields|httplimit.XRateLimitFields))
	api := mustPolicy(t, l, httplimit.PolicyConfig{Name: "api", Cap: 2, Refil: 1, Ivl: 30, Key: httplimit.HeaderKey("X-API-Key", 64)})
	url := loopback(t, l.Wrap(api.Wrap(ok)))
	get := func() (string, map[string][]string) {
		out, err := exec.Command(curl, "-sS", "-D", "-", "-o", "/dev/null", "-H", "X-API-Key: k1", url).Output()
		if err != nil {
			t.Fatalf("curl: %v", err)
		}
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		sc.Scan()
		status := sc.Text()
		h := map[string][]string{}
		for sc.Scan() {
			k, v, ok := strings.Cut(strings.TrimRight(sc.Text(), "\r"), ": ")
			if ok {
				k = strings.ToLower(k)
				h[k] = append(h[k], v)
			}
		}
		return status, h
	}
	status, h := get()
	want := map[string][]string{
		"ratelimit-policy":      {`"default";q=100;w=10`, `"api";q=2;w=6`},
		"ratelimit":             {`"default";r=99;t=1`, `"api";r=1;t=3`},
		"x-ratelimit-limit":     {"2"},
		"x-ratelimit-remaining": {"1"},
		"x-ratelimit-reset":     {"3"},
	}
	for k, v := range want {
		if strings.Join(h[k], "|") != strings.Join(v, "|") {
			t.Errorf("%s on the pass (%s): %q, want %q", k, status, h[k], v)
		}
	}
	get()
	status, h = get()
	if !strings.Contains(status, " 429") || strings.Join(h["ratelimit"], "|") != `"default";r=97;t=1|"api";r=0;t=3` || strings.Join(h["retry-after"], "") != "3" {
		t.Errorf("the third request: %s, RateLimit %q, Retry-After %q; want 429, api r=0;t=3, Retry-After 3", status, h["ratelimit"], h["retry-after"])
	}
}

// TestFieldsOfARefusedNewcomer checks the fields of a request whose key the
// gate's full set refuses a way (its eviction budget is spent, spec
// GATE-19): the key has no bucket, so r=0, and t, X-RateLimit-Reset and
// Retry-After are the budget's wait, after which the key is born full.
func TestFieldsOfARefusedNewcomer(t *testing.T) {
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(2, 1, 10, 16), Sets: 1, Ways: 1, TickNanos: tick100ms})
	if err != nil {
		t.Fatal(err)
	}
	h := newLimiter(t, g, fixedClock(0), httplimit.WithFields(httplimit.RateLimitFields|httplimit.XRateLimitFields)).Wrap(ok)
	for i, addr := range []string{"192.0.2.1", "192.0.2.2", "192.0.2.3"} {
		if rec := serve(h, get(addr+":1", nil)); rec.Code != 200 {
			t.Fatalf("request %d from %s: %d, want 200 (born, then evictions the budget pays)", i, addr, rec.Code)
		}
	}
	rec := serve(h, get("192.0.2.4:1", nil))
	d := describe(t, rec, "default")
	if rec.Code != 503 || d.r != 0 || d.t != 1 || d.xReset != 1 || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("the refused newcomer: %d, %+v, Retry-After %q; want 503, r=0, t=1, reset 1, Retry-After 1", rec.Code, d, rec.Header().Get("Retry-After"))
	}
}
