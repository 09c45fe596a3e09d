//go:build !fuzzsmoke

package fuzz

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/limcheck/limcheck/internal/subject"
)

// loginServer serves a login handler over guard on a loopback HTTP server
// behind a Limiter that trusts X-Forwarded-For from 127.0.0.1, and returns
// a function that posts one login as the client in that header and gives
// its status. bob's password is hunter2; every other is wrong.
func loginServer(t *testing.T, guard *httplimit.LoginGuard) func(client, user, password string) int {
	t.Helper()
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(1<<40, 1<<40, 1, 1<<12), Sets: 256, Ways: 4, TickNanos: 1})
	if err != nil {
		t.Fatal(err)
	}
	l, err := httplimit.New(g, httplimit.WithTrustedProxies(httplimit.XForwardedFor, netip.MustParsePrefix("127.0.0.1/32")))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ip, _ := l.ClientKey(r)
		user := r.PostFormValue("user")
		a := guard.Begin(ip, user)
		defer a.Close()
		if a.Verdict != httplimit.LoginProceed {
			a.WriteRefusal(w)
			return
		}
		if user != "bob" || r.PostFormValue("password") != "hunter2" {
			_, _ = a.Failed() // an error was an alarm; the guard kept the failure
			http.Error(w, "bad credentials", http.StatusUnauthorized)
			return
		}
		_ = a.Succeeded()
		fmt.Fprintln(w, "welcome")
	})))
	t.Cleanup(srv.Close)
	return func(client, user, password string) int {
		form := url.Values{"user": {user}, "password": {password}}
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/login", strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", client)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("login %s from %s: %v", user, client, err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
}

// TestLoginOutageOverRedisDoesNotLockLoginForGood is issue 24's lockout
// over HTTP with Redis as the store: while the server is unreachable (the
// fault proxy refuses connections), failed logins from six IPv6 /64s fill
// the guard's table (MaxPending 60: 6 clients x 5 failures x 2 keys), which
// then answers 503. Redis comes back; a second before the window ends the
// kept failures still count (503), at its end the full table sweeps them
// and bob logs in, and a month later so does a flooding /64. Before the
// sweep, only a restart of the process lifted the 503.
func TestLoginOutageOverRedisDoesNotLockLoginForGood(t *testing.T) {
	srv, r := sharedRedis(t)
	p := redistest.NewProxy(t, srv.Addr())
	c, err := subject.NewClient(p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	var now atomic.Uint64
	now.Store(1000)
	guard := loginNode(t, c, r.Namespace(), 1, 100*time.Millisecond, &now, httplimit.LoginConfig{MaxPending: 60}, nil)
	login := loginServer(t, guard)

	if err := p.SetMode(redistest.Refuse); err != nil {
		t.Fatal(err)
	}
	codes := map[int]int{}
	for cl := range 6 {
		for i := range 6 {
			codes[login(fmt.Sprintf("2001:db8:%x::%x", cl+1, i+1), fmt.Sprintf("user%d", cl), "guess")]++
		}
	}
	if want := map[int]int{401: 30, 429: 6}; fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("the flood while Redis is unreachable: statuses %v, want %v (5 kept failures a client, then busy)", codes, want)
	}
	if st := guard.Stats(); st.Kept != 60 || st.Unavailable == 0 {
		t.Errorf("Stats() after the flood = %+v, want 60 kept and some unavailable", st)
	}
	if err := p.SetMode(redistest.Pass); err != nil { // Redis is back
		t.Fatal(err)
	}
	month := uint64(30 * 24 * 3600)
	for _, st := range []struct {
		now          uint64
		client, user string
		password     string
		code         int
		reason       string
	}{
		{1000, "192.0.2.50", "bob", "hunter2", 503, "the table is full of failures that count: fail closed"},
		{1899, "192.0.2.50", "bob", "hunter2", 503, "a second before the window ends they still count"},
		{1900, "192.0.2.50", "bob", "hunter2", 200, "at the window's end the full table sweeps them: room again"},
		{1900 + month, "2001:db8:1::7", "bob", "hunter2", 200, "a month later, from a flooding /64"},
		{1900 + month, "192.0.2.51", "mallory", "guess", 401, "a month later a wrong password is a failure again, in Redis"},
	} {
		now.Store(st.now)
		if got := login(st.client, st.user, st.password); got != st.code {
			t.Errorf("login %s from %s at %d: %d, want %d (%s)", st.user, st.client, st.now, got, st.code, st.reason)
		}
	}
	if d := guard.Throttle().Check("ip:192.0.2.51", now.Load()); d.Remaining != 4 {
		t.Errorf("Check(ip:192.0.2.51) after its failure = %+v, want Allow 4: recorded in Redis", d)
	}
}
