package httplimit_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

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
		Slots:     1 << 16,
		TickNanos: 100_000_000, // 0.1 s
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

// ExampleLoginGuard guards a login handler: 3 failures in 15 minutes from
// one address or on one account ban both for 15 minutes.
func ExampleLoginGuard() {
	store, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 3})
	if err != nil {
		panic(err)
	}
	thr, err := throttle.New(store, throttle.Config{Threshold: 3, WindowSecs: 900, BanSecs: 900})
	if err != nil {
		panic(err)
	}
	now := uint64(1_000_000) // seconds; nil Now would mean the wall clock
	guard := httplimit.LoginGuard{T: thr, Now: func() uint64 { return now }}
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(100, 1, 1, 100), Slots: 1024, TickNanos: 1_000_000})
	if err != nil {
		panic(err)
	}
	l, err := httplimit.New(g)
	if err != nil {
		panic(err)
	}
	login := l.Wrap(loginHandler(l, guard))

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

// loginHandler checks the guard before the password, records the outcome
// and answers 429 while banned.
func loginHandler(l *httplimit.Limiter, guard httplimit.LoginGuard) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ip, _ := l.ClientKey(r)
		user := r.PostFormValue("user")
		if d := guard.Check(ip, user); d.Verdict == throttle.Banned {
			guard.WriteHeaders(w, d)
			http.Error(w, "too many failed logins", http.StatusTooManyRequests)
			return
		} // Unavailable: the store failed; allow and alert (the seed's advice)
		acct, _ := httplimit.NormalizeAccount(user)
		if want, ok := passwords[acct]; !ok || r.PostFormValue("password") != want {
			d, _ := guard.Failed(ip, user) // an error here is an alert, not a reason to let in
			guard.WriteHeaders(w, d)
			code := http.StatusUnauthorized
			if d.Verdict == throttle.Banned {
				code = http.StatusTooManyRequests
			}
			http.Error(w, "bad credentials", code)
			return
		}
		_ = guard.Succeeded(ip, user)
		guard.WriteHeaders(w, guard.Check(ip, user))
		fmt.Fprintln(w, "welcome")
	}
}
