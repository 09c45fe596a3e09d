package metricstest

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/throttle"
)

// Policy is the policy name Drive's limiter reports under.
const Policy = "api"

// Want are the figures m must show after [Drive]: per result of Policy
// (not a shadow; 0 for the others), the in-flight gauge, and the login
// alarms by kind (0 for the others).
var Want = struct {
	Results  map[httplimit.Result]int
	InFlight int
	Alarms   map[httplimit.AlarmKind]int
}{
	Results: map[httplimit.Result]int{
		httplimit.Passed: 2, httplimit.Limited: 1, httplimit.Shed: 1, httplimit.Invalid: 1,
	},
	Alarms: map[httplimit.AlarmKind]int{httplimit.AlarmPendingFull: 1},
}

// Drive serves a Limiter (a bucket of 2 tokens that never refills, one
// in-flight place, 400 for a peer that does not parse, policy [Policy])
// and a login route behind a LoginGuard that holds one pending entry, both
// reporting to m, on a loopback server, and sends: a request held in the
// handler (pass), one while it is held (shed), then after it returns one
// that passes, one that is limited, one from a peer that does not parse
// (invalid), and a login whose two keys the guard cannot hold (503, an
// AlarmPendingFull). held runs while the first request is held: the
// in-flight gauge is then 1. Afterwards m must show [Want].
func Drive(t *testing.T, m httplimit.Metrics, held func()) {
	t.Helper()
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(2, 1, 1<<40, 1), Sets: 64, Ways: 4, TickNanos: 1})
	if err != nil {
		t.Fatal(err)
	}
	l, err := httplimit.New(g, httplimit.WithClock(func() int64 { return 0 }), httplimit.WithRejectInvalid(),
		httplimit.WithMetrics(m), httplimit.WithPolicyName(Policy))
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	mux := http.NewServeMux()
	mux.Handle("/", l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		once.Do(func() { entered <- struct{}{}; <-release })
	})))
	mux.Handle("POST /login", loginRoute(t, m))
	srv := httptest.NewServer(unixPeer(mux))
	defer srv.Close()

	var first int
	var wg sync.WaitGroup
	wg.Go(func() { first = get(t, srv.URL, false) })
	<-entered
	held()
	codes := []int{get(t, srv.URL, false)}
	close(release)
	wg.Wait()
	codes = append(codes, first, get(t, srv.URL, false), get(t, srv.URL, false), get(t, srv.URL, true), login(t, srv.URL))
	want := []int{503, 200, 200, 503, 400, 503}
	for i := range want {
		if codes[i] != want[i] {
			t.Fatalf("statuses %v, want %v (shed, held pass, pass, limited, invalid, login full)", codes, want)
		}
	}
}

// loginRoute is a login handler over a guard of one pending entry
// reporting to m: every attempt with an ip and an account is refused as
// full.
func loginRoute(t *testing.T, m httplimit.Metrics) http.Handler {
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 5})
	if err != nil {
		t.Fatal(err)
	}
	thr, err := throttle.New(mem, throttle.Config{Threshold: 5, WindowSecs: 900, BanSecs: 900})
	if err != nil {
		t.Fatal(err)
	}
	guard, err := httplimit.NewLoginGuard(thr, httplimit.LoginConfig{MaxPending: 1, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := guard.Begin("192.0.2.1", r.PostFormValue("user"))
		defer a.Close()
		if a.Verdict != httplimit.LoginProceed {
			a.WriteRefusal(w)
			return
		}
		_ = a.Succeeded()
	})
}

// unixPeer gives requests carrying X-Test-Unix the peer of a Unix socket
// ("@", which does not parse as an address): a loopback TCP server sees
// only valid peers.
func unixPeer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test-Unix") != "" {
			r.RemoteAddr = "@"
		}
		h.ServeHTTP(w, r)
	})
}

// get GETs base (with X-Test-Unix when unix) and returns the status.
func get(t *testing.T, base string, unix bool) int {
	req, err := http.NewRequest(http.MethodGet, base, nil)
	if err != nil {
		t.Error(err)
		return 0
	}
	if unix {
		req.Header.Set("X-Test-Unix", "1")
	}
	return do(t, req)
}

// login posts alice's credentials to base's /login and returns the status.
func login(t *testing.T, base string) int {
	resp, err := http.PostForm(base+"/login", url.Values{"user": {"alice"}, "password": {"s3cret"}})
	if err != nil {
		t.Error(err)
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// do sends req and returns its status, 0 after an error reported to t.
func do(t *testing.T, req *http.Request) int {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}
