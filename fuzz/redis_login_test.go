//go:build !fuzzsmoke

package fuzz

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisgate"
	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/limcheck/limcheck/internal/slowdown"
	"github.com/limcheck/limcheck/internal/subject"
	"github.com/redis/rueidis"
)

// redisCallTimeout bounds each Redis call of the login tests' guards: a
// refused connection fails at once whatever it is, and a call that passes
// must not time out on a busy machine (a fixed 100 ms did, for New's INFO
// read under a load of 10).
var redisCallTimeout = slowdown.Scale(2 * time.Second)

// loginOverRedis is a LoginGuard whose throttle and accounts gate both
// live in Redis behind client c: threshold 5 (window and ban 900 s), and
// per-account buckets of 3 attempts and one a minute (ticks of 1 s). now
// is the guard's clock; timeout bounds each Redis call (0: the default).
func loginOverRedis(t *testing.T, c rueidis.Client, ns string, timeout time.Duration, failOpen bool, onError func(error), now *uint64) *httplimit.LoginGuard {
	t.Helper()
	s, err := redisstore.New(redisstore.Config{Client: c, Namespace: ns, StampsPerKey: 5, TTL: time.Hour, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	thr, err := throttle.New(s, throttle.Config{Threshold: 5, WindowSecs: 900, BanSecs: 900})
	if err != nil {
		t.Fatal(err)
	}
	g, err := redisgate.New(redisgate.Config{Client: c, Name: ns, Lim: lim.NewConfig(3, 1, 60, 1<<12), Sets: math.MaxInt64, Ways: 1,
		TickNanos: int64(time.Second), LeaseTTL: time.Minute, Timeout: timeout, Seed: &redisTestSeed})
	if err != nil {
		t.Fatal(err)
	}
	guard, err := httplimit.NewLoginGuard(thr, httplimit.LoginConfig{Now: func() uint64 { return *now },
		Accounts: &redisgate.HTTPGate{G: g, FailOpen: failOpen, OnError: onError}})
	if err != nil {
		t.Fatal(err)
	}
	return guard
}

// tryLogin begins an attempt and fails it when it proceeds; it returns the
// verdict and Retry-After.
func tryLogin(t *testing.T, guard *httplimit.LoginGuard, ip, user string) string {
	t.Helper()
	a := guard.Begin(ip, user)
	defer a.Close()
	if a.Verdict == httplimit.LoginProceed {
		if _, err := a.Failed(); err != nil {
			t.Fatalf("Failed() = %v", err)
		}
	}
	return fmt.Sprintf("%s/%d", a.Verdict, a.RetryAfter)
}

// TestLoginGuardLimitsAccountsOverTheRedisGate checks that a LoginGuard
// takes redisgate's HTTPGate as its accounts gate (LoginConfig.Accounts),
// with its throttle on redisstore, against a real server: ten guesses at
// alice from ten addresses get three verifications, then limited with the
// true wait (60 s, then 30 s later 30 s), and alice logs in once a token
// has refilled; the account is never banned.
func TestLoginGuardLimitsAccountsOverTheRedisGate(t *testing.T) {
	_, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	now := uint64(1000)
	guard := loginOverRedis(t, c, r.Namespace(), 0, false, func(err error) { t.Errorf("OnError(%v) on a healthy server", err) }, &now)
	var got []string
	for i := range 10 {
		got = append(got, tryLogin(t, guard, fmt.Sprintf("198.51.100.%d", i+1), "alice"))
	}
	if want := "[proceed/0 proceed/0 proceed/0 limited/60 limited/60 limited/60 limited/60 limited/60 limited/60 limited/60]"; fmt.Sprint(got) != want {
		t.Errorf("10 guesses from 10 addresses: %v, want %s", got, want)
	}
	now += 30
	if got := tryLogin(t, guard, "192.0.2.50", "alice"); got != "limited/30" {
		t.Errorf("alice 30 s later: %s, want limited/30 (the step ends at 60 s)", got)
	}
	now += 30
	a := guard.Begin("192.0.2.50", "alice")
	defer a.Close()
	if a.Verdict != httplimit.LoginProceed {
		t.Fatalf("alice once a token refilled: %s, want proceed", a.Verdict)
	}
	if err := a.Succeeded(); err != nil {
		t.Fatal(err)
	}
	if d := guard.Throttle().Check("acct:alice", now); d.Verdict != throttle.Allow || d.Remaining != 5 {
		t.Errorf("the account's throttle key: %+v, want Allow 5: no account is banned", d)
	}
}

// TestLoginGuardOverADownRedisGateFailsAsConfigured checks DIST-5 through
// the login guard: with the accounts gate's server unreachable (a refusing
// proxy), an attempt is refused as limited with Retry-After 1 (fail closed)
// or, with FailOpen, goes ahead; either way OnError is told an error
// wrapping redisgate.ErrUnavailable or ErrIndeterminate, and the ip key's
// check (the throttle, behind the same proxy) raises AlarmUnavailable
// rather than deciding.
func TestLoginGuardOverADownRedisGateFailsAsConfigured(t *testing.T) {
	srv, r := sharedRedis(t)
	p := redistest.NewProxy(t, srv.Addr())
	c, err := subject.NewClient(p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tt := range []struct {
		failOpen bool
		want     string
	}{{false, "limited/1"}, {true, "proceed/0"}} {
		var errs []error
		now := uint64(1000)
		if err := p.SetMode(redistest.Pass); err != nil { // New reads the server's maxmemory-policy
			t.Fatal(err)
		}
		guard := loginOverRedis(t, c, r.Namespace(), redisCallTimeout, tt.failOpen, func(err error) { errs = append(errs, err) }, &now)
		if err := p.SetMode(redistest.Refuse); err != nil {
			t.Fatal(err)
		}
		a := guard.Begin("198.51.100.1", "alice")
		got := fmt.Sprintf("%s/%d", a.Verdict, a.RetryAfter)
		a.Close()
		if got != tt.want {
			t.Errorf("FailOpen %v: Begin over a down server = %s, want %s", tt.failOpen, got, tt.want)
		}
		if len(errs) == 0 || !(errors.Is(errs[0], redisgate.ErrUnavailable) || errors.Is(errs[0], redisgate.ErrIndeterminate)) {
			t.Errorf("FailOpen %v: OnError was told %v, want an ErrUnavailable or ErrIndeterminate", tt.failOpen, errs)
		}
		if st := guard.Stats(); st.Unavailable == 0 {
			t.Errorf("FailOpen %v: stats %+v, want the ip key's check unavailable", tt.failOpen, st)
		}
	}
}
