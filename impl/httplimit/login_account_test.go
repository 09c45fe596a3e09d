package httplimit_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/throttle"
)

// accountRig is the example's login handler over a guard with threshold 5
// (window and ban 900 s); accounts, when not nil, limits accounts instead
// of banning them.
type accountRig struct {
	h     http.Handler
	guard *httplimit.LoginGuard
	now   uint64
}

func newAccountRig(t *testing.T, accounts *gate.Gate) *accountRig {
	rig := &accountRig{now: 1000}
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 5})
	if err != nil {
		t.Fatal(err)
	}
	rig.guard = mustGuard(t, mem, throttle.Config{Threshold: 5, WindowSecs: 900, BanSecs: 900},
		httplimit.LoginConfig{Now: func() uint64 { return rig.now }, Accounts: accounts})
	l := newLimiter(t, newGate(t, 1<<40, 1<<40, 1, 1<<12, 1))
	rig.h = l.Wrap(loginHandler(l, rig.guard, checkPassword))
	return rig
}

// login sends one login and returns its status and Retry-After.
func (r *accountRig) login(remote, user, password string) (int, string) {
	rec := serve(r.h, loginRequest(remote, user, password))
	return rec.Code, rec.Header().Get("Retry-After")
}

// accountsGate is a gate of per-account buckets: 3 attempts, then one a
// minute (ticks of 1 s).
func accountsGate(t *testing.T) *gate.Gate {
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(3, 1, 60, 1<<12), Sets: 256, Ways: 4, TickNanos: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestAccountLockout shows the seed's account key: five guesses from five
// addresses ban alice's account from everywhere for 900 s, her own login
// included: anyone can lock anyone out.
func TestAccountLockout(t *testing.T) {
	rig := newAccountRig(t, nil)
	for i := range 5 {
		rig.login(fmt.Sprintf("198.51.100.%d:1", i+1), "alice", "guess")
	}
	rig.now += 60
	if code, ra := rig.login("192.0.2.50:1", "alice", "s3cret"); code != http.StatusTooManyRequests || ra != "840" {
		t.Errorf("alice from her own address a minute later: %d Retry-After %q, want 429 840 (locked out)", code, ra)
	}
}

// TestAccountsGateThrottlesWithoutBanning is the alternative: with
// LoginConfig.Accounts, the account dimension is a bucket of 3 attempts and
// one more a minute, for all addresses together: guesses from many
// addresses are slowed to that rate (429 with the true wait), the account is
// never banned, and its owner logs in once the bucket refills. The
// addresses still ban as before.
func TestAccountsGateThrottlesWithoutBanning(t *testing.T) {
	rig := newAccountRig(t, accountsGate(t))
	var codes []string
	for i := range 10 {
		code, ra := rig.login(fmt.Sprintf("198.51.100.%d:1", i+1), "alice", "guess")
		codes = append(codes, fmt.Sprintf("%d/%s", code, ra))
	}
	if want := "[401/ 401/ 401/ 429/60 429/60 429/60 429/60 429/60 429/60 429/60]"; fmt.Sprint(codes) != want {
		t.Errorf("10 guesses from 10 addresses: %v, want %s", codes, want)
	}
	if d := rig.guard.Throttle().Check("acct:alice", rig.now); d != allowed(5) {
		t.Errorf("the account's throttle key: %+v, want untouched (Allow 5): no account is banned", d)
	}
	rig.now += 30
	if code, ra := rig.login("192.0.2.50:1", "alice", "s3cret"); code != http.StatusTooManyRequests || ra != "30" {
		t.Errorf("alice 30 s later: %d Retry-After %q, want 429 30 (the step ends at 60 s)", code, ra)
	}
	rig.now += 30
	if code, _ := rig.login("192.0.2.50:1", "alice", "s3cret"); code != http.StatusOK {
		t.Errorf("alice once a token refilled: %d, want 200", code)
	}
	for i := range 5 { // one address guessing five accounts is still banned
		rig.login("203.0.113.1:1", fmt.Sprintf("user%d", i), "guess")
	}
	if code, ra := rig.login("203.0.113.1:1", "bob", "hunter2"); code != http.StatusTooManyRequests || ra != "900" {
		t.Errorf("an address after 5 failures: %d Retry-After %q, want 429 900 (banned)", code, ra)
	}
}

// TestNewLoginGuardRejectsBadConfig checks NewLoginGuard's errors.
func TestNewLoginGuardRejectsBadConfig(t *testing.T) {
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 5})
	if err != nil {
		t.Fatal(err)
	}
	thr, err := throttle.New(mem, throttle.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	tenth, err := gate.New(gate.Config{Lim: lim.NewConfig(3, 1, 60, 8), Sets: 2, Ways: 4, TickNanos: 1e8})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		thr    *throttle.Throttle
		cfg    httplimit.LoginConfig
		reason string
	}{
		{nil, httplimit.LoginConfig{}, "no throttle"},
		{thr, httplimit.LoginConfig{MaxPending: -1}, "a negative MaxPending"},
		{thr, httplimit.LoginConfig{Accounts: tenth}, "an accounts gate whose tick is not a second"},
	}
	for _, tt := range tests {
		if _, err := httplimit.NewLoginGuard(tt.thr, tt.cfg); !errors.Is(err, httplimit.ErrConfig) {
			t.Errorf("NewLoginGuard (%s) = %v, want ErrConfig", tt.reason, err)
		}
	}
}
