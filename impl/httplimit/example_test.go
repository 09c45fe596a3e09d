package httplimit_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/throttle"
)

// ExampleLimiter_Wrap puts a gate of 2 requests per client (one more per
// second) in front of a handler.
func ExampleLimiter_Wrap() {
	g, err := gate.New(gate.Config{
		Lim:       lim.NewConfig(2, 1, 10, 100), // cap 2, +1 per 10 ticks, 100 in flight
		Sets:      8192,
		Ways:      8,
		TickNanos: 100_000_000, // 0.1 s
		// Seed nil: New draws a secret one.
	})
	if err != nil {
		panic(err)
	}
	l, err := httplimit.New(g, httplimit.WithClock(func() int64 { return 0 })) // a fixed clock for the example
	if err != nil {
		panic(err)
	}
	h := l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello") }))
	for range 3 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		fmt.Println(rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	// Output:
	// 200  hello
	// 200  hello
	// 503 1 lim rejected
}

// ExampleNew_behindLoadBalancers is README.md's example (section "Using the
// implementation"), line for line between the markers:
// TestReadmeExampleIsExampleNew keeps the two equal, so the README's code
// compiles. It has no Output: it would listen on :8080, so it is compiled,
// never run.
func ExampleNew_behindLoadBalancers() {
	// README begins
	var rejected atomic.Int64 // a metric: requests answered 503
	mux := http.NewServeMux() // the service's routes
	g, err := gate.New(gate.Config{
		Lim: lim.NewConfig(20, 1, 10, 512), // burst 20, +1 token per 10 ticks, 512 in flight
		// 65,536 ways: for up to 32,768 clients active in any 20 s (a bucket refills in
		// cap/refil*ivl ticks), at most half the ways, with 8 ways a set (see gate.Config).
		Sets:      8192,
		Ways:      8,
		TickNanos: 100_000_000, // a tick is 0.1 s: one token per second per client
		// Seed nil: New draws a secret one, so nobody can aim addresses at one set.
	})
	if err != nil {
		log.Fatal(err)
	}
	l, err := httplimit.New(g,
		// Trust only the load balancers' own addresses: any other host allowed to reach the
		// server (a pod, a VPN client: all of 10.0.0.0/8) could write X-Forwarded-For itself
		// and choose its key.
		httplimit.WithTrustedProxies(httplimit.XForwardedFor,
			netip.MustParsePrefix("10.0.0.10/32"), netip.MustParsePrefix("10.0.0.11/32")),
		httplimit.WithMaxInFlightPerKey(8), // one slow client holds at most 8 of the 512 places
		// and one /24 or /48 at most 32, so that the 65536 /64s of a /48 cannot hold them all
		httplimit.WithMaxInFlightPerPrefix(httplimit.PrefixCap{IPv4Bits: 24, IPv6Bits: 48, Max: 32}),
		httplimit.WithOnReject(func(r *http.Request, d gate.Decision) { rejected.Add(1) }),
	)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{
		Addr:              ":8080",
		Handler:           l.Wrap(mux),      // 503 + Retry-After when shed or limited
		ReadHeaderTimeout: 5 * time.Second,  // before admission: a slow header holds no place
		ReadTimeout:       30 * time.Second, // 5 s + 1 MB at 40 kB/s: the most a slow body holds one
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	log.Fatal(srv.ListenAndServe())
	// README ends
}

// ExampleLimiter_NewPolicy runs newServer, README.md's second example
// (section "Using the implementation"; TestReadmeExampleIsExampleNew keeps
// the two equal), on a loopback server: the sixth login in a minute is
// limited with 429, an API request without a key is refused with 401, and
// a passed one carries the RateLimit fields of the Limiter and of its
// route's policy.
func ExampleLimiter_NewPolicy() {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	srv, err := newServer(ok, ok)
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv.Handler)
	defer ts.Close()
	send := func(method, path, key string) *http.Response {
		req, _ := http.NewRequest(method, ts.URL+path, nil)
		if key != "" {
			req.Header.Set("X-API-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		return resp
	}
	var logins []int
	for range 6 {
		logins = append(logins, send(http.MethodPost, "/login", "").StatusCode)
	}
	fmt.Println(logins)
	fmt.Println(send(http.MethodGet, "/api/items", "").StatusCode)
	resp := send(http.MethodGet, "/api/items", "k-123")
	fields := resp.Header.Values("RateLimit") // the Limiter's item, then the policy's
	fmt.Println(resp.StatusCode, fields[len(fields)-1])
	// Output:
	// [200 200 200 200 200 429]
	// 401
	// 200 "api";r=99;t=1
}

// README policies begin

// newServer serves api and login behind one Limiter: a global in-flight
// cap and a bucket per address, then /login 5 a minute per address and
// /api/ 100 a second per API key (Go 1.22 ServeMux patterns), with 429 for
// a limited request and the RateLimit header fields.
func newServer(api, login http.Handler) (*http.Server, error) {
	g, err := gate.New(gate.Config{
		Lim:       lim.NewConfig(200, 20, 1, 512), // 200 a second per address, 512 in flight
		Sets:      8192,
		Ways:      8,
		TickNanos: 100_000_000, // a tick is 0.1 s
	})
	if err != nil {
		return nil, err
	}
	l, err := httplimit.New(g,
		httplimit.WithLimitedStatus(http.StatusTooManyRequests), // a shed (the server is full) stays 503
		httplimit.WithFields(httplimit.RateLimitFields|httplimit.XRateLimitFields),
	)
	if err != nil {
		return nil, err
	}
	perLogin, err := l.NewPolicy(httplimit.PolicyConfig{
		Name: "login", Cap: 5, Refil: 5, Ivl: 600, // 5 a minute per address (the zero Key)
	})
	if err != nil {
		return nil, err
	}
	perKey, err := l.NewPolicy(httplimit.PolicyConfig{
		Name: "api", Cap: 100, Refil: 100, Ivl: 10, // 100 a second per API key
		Key: httplimit.HeaderKey("X-API-Key", 64).OrRefuse(http.StatusUnauthorized, `ApiKey realm="api"`),
	})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("POST /login", perLogin.Wrap(login))
	mux.Handle("GET /api/", perKey.Wrap(api))
	return &http.Server{
		Addr:              ":8080",
		Handler:           l.Wrap(mux), // the Limiter first, then the route's policy
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
	}, nil
}

// README policies end

// ExampleLoginGuard guards a login handler: 3 failures in 15 minutes from
// one address or on one account ban both for 15 minutes. Begin reserves the
// attempt before the password is checked, so concurrent guesses cannot pass
// the threshold; a store full of live keys makes the guard keep failures
// itself and raise an alarm (OnAlarm), never let guesses through unlimited.
func ExampleLoginGuard() {
	store, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 3, MaxKeys: 1 << 20})
	if err != nil {
		panic(err)
	}
	thr, err := throttle.New(store, throttle.Config{Threshold: 3, WindowSecs: 900, BanSecs: 900})
	if err != nil {
		panic(err)
	}
	now := uint64(1_000_000) // seconds; a nil Now would mean the wall clock
	guard, err := httplimit.NewLoginGuard(thr, httplimit.LoginConfig{
		Now:     func() uint64 { return now },
		OnAlarm: func(a httplimit.Alarm) { fmt.Println("alarm:", a.Kind, a.Key) }, // page the operator
	})
	if err != nil {
		panic(err)
	}
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(100, 1, 1, 100), Sets: 256, Ways: 4, TickNanos: 1_000_000})
	if err != nil {
		panic(err)
	}
	l, err := httplimit.New(g)
	if err != nil {
		panic(err)
	}
	login := l.Wrap(loginHandler(l, guard, checkPassword))

	try := func(remote, user, password string) {
		form := url.Values{"user": {user}, "password": {password}}
		r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.RemoteAddr = remote
		rec := httptest.NewRecorder()
		login.ServeHTTP(rec, r)
		fmt.Printf("%s %-6s %d remaining=%q retry-after=%q\n", remote, user, rec.Code,
			rec.Header().Get("X-RateLimit-Remaining"), rec.Header().Get("Retry-After"))
	}
	try("192.0.2.7:1001", "alice", "guess1")
	try("192.0.2.7:1002", "Alice", "guess2") // the same account key: "alice"
	try("192.0.2.7:1003", "alice", "guess3") // the third failure bans ip and account
	try("192.0.2.7:1004", "alice", "s3cret") // banned: the password is not even checked
	try("198.51.100.9:1", "alice", "s3cret") // the account is banned from everywhere
	try("192.0.2.7:1005", "bob", "hunter2")  // so is the address, for every account
	try("198.51.100.9:2", "bob", "hunter2")
	now += 900 // the ban and the failures expire together
	try("192.0.2.7:1006", "alice", "s3cret")
	// Output:
	// 192.0.2.7:1001 alice  401 remaining="2" retry-after=""
	// 192.0.2.7:1002 Alice  401 remaining="1" retry-after=""
	// 192.0.2.7:1003 alice  429 remaining="" retry-after="900"
	// 192.0.2.7:1004 alice  429 remaining="" retry-after="900"
	// 198.51.100.9:1 alice  429 remaining="" retry-after="900"
	// 192.0.2.7:1005 bob    429 remaining="" retry-after="900"
	// 198.51.100.9:2 bob    200 remaining="3" retry-after=""
	// 192.0.2.7:1006 alice  200 remaining="3" retry-after=""
}

// passwords is the example's user store.
var passwords = map[string]string{"alice": "s3cret", "bob": "hunter2"}

// checkPassword is the example's password check.
func checkPassword(user, password string) bool {
	acct, _ := httplimit.NormalizeAccount(user)
	want, ok := passwords[acct]
	return ok && password == want
}

// loginHandler begins an attempt, refuses it or checks the password,
// settles the attempt on the outcome and answers 401, 429 or 200. A
// failure the store could not keep was raised as an alarm by the guard,
// which keeps it itself: the handler needs no special case for it.
func loginHandler(l *httplimit.Limiter, guard *httplimit.LoginGuard, verify func(user, password string) bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ip, _ := l.ClientKey(r)
		user := r.PostFormValue("user")
		a := guard.Begin(ip, user)
		defer a.Close() // a panic before the outcome counts as a failed guess
		if a.Verdict != httplimit.LoginProceed {
			a.WriteRefusal(w) // 429 while banned or busy, 503 when the guard is full
			return
		}
		if !verify(user, r.PostFormValue("password")) {
			d, _ := a.Failed() // an error here was an alarm; the guard kept the failure
			guard.WriteHeaders(w, d)
			code := http.StatusUnauthorized
			if d.Verdict == throttle.Banned {
				code = http.StatusTooManyRequests
			}
			http.Error(w, "bad credentials", code)
			return
		}
		_ = a.Succeeded() // an error is an alarm, not a reason to refuse the user
		guard.WriteHeaders(w, guard.Check(ip, user))
		fmt.Fprintln(w, "welcome")
	}
}
