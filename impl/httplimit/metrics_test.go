package httplimit_test

import (
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/throttle"
)

// tally is a Metrics that counts with atomics only (it allocates nothing):
// the decisions of the policies it is given, by policy, result and shadow;
// those of any other policy, or of an unknown result, in wrong; the
// in-flight sum; the login alarms by kind.
type tally struct {
	policies []string
	n        [4][8][2]atomic.Int64 // by policy index, result, shadow
	wrong    atomic.Int64
	inFlight atomic.Int64
	alarms   [len(httplimit.AlarmKinds)]atomic.Int64
}

var _ httplimit.Metrics = (*tally)(nil)

func newTally(policies ...string) *tally { return &tally{policies: policies} }

func (m *tally) Decision(policy string, r httplimit.Result, shadow bool) {
	for i, p := range m.policies {
		if p == policy && int(r) < len(m.n[i]) {
			s := 0
			if shadow {
				s = 1
			}
			m.n[i][r][s].Add(1)
			return
		}
	}
	m.wrong.Add(1)
}

func (m *tally) InFlight(delta int) { m.inFlight.Add(int64(delta)) }

func (m *tally) LoginAlarm(kind httplimit.AlarmKind) {
	for i, k := range httplimit.AlarmKinds {
		if k == kind {
			m.alarms[i].Add(1)
			return
		}
	}
	m.wrong.Add(1)
}

// counts returns what m counted as "policy result[ shadow]" -> n (counts
// of 0 left out), with "wrong" and "in flight" when not 0.
func (m *tally) counts() map[string]int64 {
	out := map[string]int64{}
	for i, p := range m.policies {
		for r := range m.n[i] {
			for s, name := range []string{"", " shadow"} {
				if n := m.n[i][r][s].Load(); n != 0 {
					out[p+" "+httplimit.Result(r).String()+name] = n
				}
			}
		}
	}
	if n := m.wrong.Load(); n != 0 {
		out["wrong"] = n
	}
	if n := m.inFlight.Load(); n != 0 {
		out["in flight"] = n
	}
	return out
}

// unixPeer is a handler that gives requests carrying X-Test-Unix the peer
// of a Unix socket ("@", which does not parse as an address) before h: a
// loopback TCP server sees only valid peers.
func unixPeer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test-Unix") != "" {
			r.RemoteAddr = "@"
		}
		h.ServeHTTP(w, r)
	})
}

// status GETs u with the header lines h and returns the status.
func status(t *testing.T, u string, h http.Header) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// unix is the header that makes unixPeer give a request the peer "@".
var unix = http.Header{"X-Test-Unix": {"1"}}

// TestMetricsCountEveryDecisionOnce sends requests through a loopback
// server, on the address path, that meet each result of the gate (a pass
// held in the handler, a shed while it holds the only place, a pass, a
// limited request once the bucket of 2 is spent, a 400 for a peer that
// does not parse): each is reported once, under the Limiter's policy name,
// and the in-flight gauge is 1 while the handler holds its place and 0
// after.
func TestMetricsCountEveryDecisionOnce(t *testing.T) {
	m := newTally("api")
	b := newBlocker(1)
	l := newLimiter(t, newGate(t, 2, 1, 1<<40, 1, 1), fixedClock(0), httplimit.WithRejectInvalid(),
		httplimit.WithMetrics(m), httplimit.WithPolicyName("api"))
	u := loopback(t, unixPeer(l.Wrap(b)))

	var held int
	var wg sync.WaitGroup
	wg.Go(func() { held = status(t, u, nil) })
	<-b.entered
	if diff := cmp.Diff(map[string]int64{"api passed": 1, "in flight": 1}, m.counts()); diff != "" {
		t.Errorf("while a pass is held (-want +got):\n%s", diff)
	}
	codes := []int{status(t, u, nil)} // shed: the one place is held
	close(b.release)
	wg.Wait()
	codes = append(codes, held, status(t, u, nil), status(t, u, nil), status(t, u, unix))
	if want := []int{503, 200, 200, 503, 400}; !cmp.Equal(codes, want) {
		t.Errorf("statuses %v, want %v (shed, held pass, pass, limited, invalid)", codes, want)
	}
	want := map[string]int64{"api passed": 2, "api limited": 1, "api shed": 1, "api invalid": 1}
	if diff := cmp.Diff(want, m.counts()); diff != "" {
		t.Errorf("metrics after the five requests (-want +got):\n%s", diff)
	}
}

// TestMetricsOfPolicies sends three requests with one API key through a
// loopback server to a route behind a shadow policy "trial" (a bucket of
// 1) and, inside it, a policy "api" keyed by the key (a bucket of 2), under
// a Limiter "global" whose header fields take it off the address path, then
// one from an allowlisted address: every limit a request meets reports its
// decision once, the shadow's with shadow set (it limits and never
// rejects), the allowlisted request as allowed by every limit, and every
// place taken is given back.
func TestMetricsOfPolicies(t *testing.T) {
	m := newTally("global", "trial", "api")
	l := newLimiter(t, newGate(t, 100, 1, 1<<40, 8, 1), fixedClock(0), httplimit.WithMetrics(m),
		httplimit.WithPolicyName("global"), httplimit.WithFields(httplimit.RateLimitFields),
		httplimit.WithAllowlist(httplimit.Allowlist{Prefixes: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}}))
	trial, err := l.NewPolicy(httplimit.PolicyConfig{Name: "trial", Cap: 1, Refil: 1, Ivl: 1 << 40, Shadow: true})
	if err != nil {
		t.Fatal(err)
	}
	api, err := l.NewPolicy(httplimit.PolicyConfig{Name: "api", Cap: 2, Refil: 1, Ivl: 1 << 40, Key: httplimit.HeaderKey("X-API-Key", 64)})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /api", trial.Wrap(api.Wrap(ok)))
	u := loopback(t, allowlisted(l.Wrap(mux)))
	key := http.Header{"X-Api-Key": {"k1"}}
	codes := []int{status(t, u+"/api", key), status(t, u+"/api", key), status(t, u+"/api", key), status(t, u+"/api", allowedPeer)}
	if want := []int{200, 200, 503, 200}; !cmp.Equal(codes, want) {
		t.Errorf("statuses %v, want %v (the third is api's limit; the shadow rejects nothing)", codes, want)
	}
	want := map[string]int64{
		"global passed": 3, "global allowed": 1,
		"trial passed shadow": 1, "trial limited shadow": 2, "trial allowed shadow": 1,
		"api passed": 2, "api limited": 1, "api allowed": 1,
	}
	if diff := cmp.Diff(want, m.counts()); diff != "" {
		t.Errorf("metrics after the four requests (-want +got):\n%s", diff)
	}
}

// allowedPeer is the header that makes allowlisted give a request a peer
// in 192.0.2.0/24.
var allowedPeer = http.Header{"X-Test-Allowed": {"1"}}

// allowlisted gives requests carrying X-Test-Allowed the peer
// 192.0.2.7:1 before h.
func allowlisted(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test-Allowed") != "" {
			r.RemoteAddr = "192.0.2.7:1"
		}
		h.ServeHTTP(w, r)
	})
}

// TestMetricsInFlightAfterAPanic checks that a handler that panics gives
// its place back in the gauge too, as in the gate.
func TestMetricsInFlightAfterAPanic(t *testing.T) {
	m := newTally("default")
	l := newLimiter(t, newGate(t, 100, 1, 1000, 4, 1), httplimit.WithMetrics(m))
	h := l.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	func() {
		defer func() {
			if p := recover(); p != http.ErrAbortHandler {
				t.Errorf("recovered %v, want http.ErrAbortHandler", p)
			}
		}()
		serve(h, get("198.51.100.1:1", nil))
	}()
	if diff := cmp.Diff(map[string]int64{"default passed": 1}, m.counts()); diff != "" {
		t.Errorf("after a panicking handler (-want +got):\n%s", diff)
	}
}

// TestMetricsAllocateNothing runs the allocation check of
// TestMiddlewareAllocatesNothingPerRequest with a Metrics that allocates
// nothing: reporting adds no allocation on any result of the address path.
func TestMetricsAllocateNothing(t *testing.T) {
	m := newTally("default")
	with := httplimit.WithMetrics(m)
	v4 := get("192.0.2.1:1234", nil)
	tests := []allocRow{
		{"pass", passing(t, with), v4, 200, "Decision and InFlight twice"},
		{"400", passing(t, httplimit.WithRejectInvalid(), with), get("@", nil), 400, "an invalid result"},
		{"503 limited", limited(t, v4, 10, tick100ms, with), v4, 503, "a limited result"},
		{"pass and a per-key shed", nestedShed(t, v4, perKey1, with), v4, 200, "a pass, and a shed by the per-key cap"},
	}
	for _, tt := range tests {
		w := &discardWriter{h: make(http.Header, 4)}
		allocs := testing.AllocsPerRun(100, func() {
			clear(w.h)
			tt.h.ServeHTTP(w, tt.r)
		})
		if allocs != 0 || w.code != tt.code {
			t.Errorf("%s: %v allocations per request, status %d; want 0, %d (%s)", tt.path, allocs, w.code, tt.code, tt.reason)
		}
	}
	if m.wrong.Load() != 0 || m.inFlight.Load() != 0 {
		t.Errorf("after the runs: %v, want no other policy and 0 in flight", m.counts())
	}
}

// TestMetricsLoginAlarm logs in through a loopback server with a guard
// that holds one pending entry: the attempt's two keys need two, so it is
// refused as full (503) and the guard's alarm reaches the metrics as well
// as its own count.
func TestMetricsLoginAlarm(t *testing.T) {
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 5})
	if err != nil {
		t.Fatal(err)
	}
	m := newTally()
	guard := mustGuard(t, mem, throttle.Config{Threshold: 5, WindowSecs: 900, BanSecs: 900},
		httplimit.LoginConfig{Now: func() uint64 { return 1000 }, MaxPending: 1, Metrics: m})
	l := newLimiter(t, newGate(t, 1<<40, 1<<40, 1, 1<<12, 1))
	base := loopback(t, l.Wrap(loginHandler(l, guard, checkPassword)))
	resp, err := http.PostForm(base+"/login", url.Values{"user": {"alice"}, "password": {"s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var got [len(httplimit.AlarmKinds)]int64
	for i := range got {
		got[i] = m.alarms[i].Load()
	}
	if resp.StatusCode != http.StatusServiceUnavailable || got != [3]int64{0, 0, 1} || guard.Stats().PendingFull != 1 {
		t.Errorf("login with one pending entry: status %d, alarms (unavailable, kept, pending full) %v, stats %+v; want 503, [0 0 1], PendingFull 1",
			resp.StatusCode, got, guard.Stats())
	}
}
