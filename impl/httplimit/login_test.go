package httplimit_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/throttle"
)

// newGuard returns a guard over a MemStore (wrapped in a FaultStore) with
// config {3, 900, 900} and a clock read from *now.
func newGuard(t *testing.T, now *uint64) (*httplimit.LoginGuard, *throttle.FaultStore) {
	t.Helper()
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 3})
	if err != nil {
		t.Fatal(err)
	}
	fs := throttle.NewFaultStore(mem)
	return mustGuard(t, fs, throttle.Config{Threshold: 3, WindowSecs: 900, BanSecs: 900},
		httplimit.LoginConfig{Now: func() uint64 { return *now }}), fs
}

// mustGuard returns a guard over a throttle of cfg over store, failing t on
// error.
func mustGuard(t testing.TB, store throttle.Store, cfg throttle.Config, lc httplimit.LoginConfig) *httplimit.LoginGuard {
	t.Helper()
	thr, err := throttle.New(store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := httplimit.NewLoginGuard(thr, lc)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func allowed(n uint64) throttle.Decision {
	return throttle.Decision{Verdict: throttle.Allow, Remaining: n}
}

func bannedUntil(u uint64) throttle.Decision {
	return throttle.Decision{Verdict: throttle.Banned, Until: u}
}

// attempt is one login over HTTP and what the response must carry.
type attempt struct {
	remote, user, password string
	now                    uint64
	code                   int
	remaining, retryAfter  string
	reason                 string
}

// TestLoginGuardOverHTTP drives the example's login handler behind a
// Limiter: the ban after the threshold, X-RateLimit-Remaining, Retry-After
// counting down, both dimensions, and expiry.
func TestLoginGuardOverHTTP(t *testing.T) {
	var now uint64
	guard, _ := newGuard(t, &now)
	l := newLimiter(t, newGate(t, 1000, 1, 1, 1000, 1), fixedClock(0))
	h := l.Wrap(loginHandler(l, guard, checkPassword))
	steps := []attempt{
		{"192.0.2.7:1", "alice", "x", 100, 401, "2", "", "first failure"},
		{"192.0.2.7:1", " ALICE ", "x", 101, 401, "1", "", "the same account after normalising"},
		{"192.0.2.7:1", "alice", "x", 102, 429, "", "900", "the threshold-th failure bans"},
		{"192.0.2.7:1", "alice", "s3cret", 500, 429, "", "502", "banned: Retry-After counts down to 1002"},
		{"[::ffff:192.0.2.7]:9", "bob", "hunter2", 600, 429, "", "402", "the ip ban covers a mapped spelling and any account"},
		{"198.51.100.1:1", "Alice", "s3cret", 1001, 429, "", "1", "one second left"},
		{"198.51.100.1:1", "bob", "hunter2", 1001, 200, "3", "", "another address and account: fine"},
		{"198.51.100.1:1", "alice", "s3cret", 1002, 200, "3", "", "ban and failures expire at 1002"},
	}
	for _, st := range steps {
		if st.reason == "" {
			t.Fatalf("step %+v has no reason", st)
		}
		now = st.now
		rec := serve(h, loginRequest(st.remote, st.user, st.password))
		got := []string{rec.Header().Get("X-RateLimit-Remaining"), rec.Header().Get("Retry-After")}
		if rec.Code != st.code || !cmp.Equal(got, []string{st.remaining, st.retryAfter}) {
			t.Errorf("%s at %d: %d remaining %q retry-after %q; want %d %q %q (%s)",
				st.user, st.now, rec.Code, got[0], got[1], st.code, st.remaining, st.retryAfter, st.reason)
		}
	}
}

// loginRequest is a form POST to /login.
func loginRequest(remote, user, password string) *http.Request {
	form := url.Values{"user": {user}, "password": {password}}
	r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.RemoteAddr = remote
	return r
}

// begin begins an attempt that must proceed.
func begin(t *testing.T, g *httplimit.LoginGuard, ip, user string) *httplimit.Attempt {
	t.Helper()
	a := g.Begin(ip, user)
	if a.Verdict != httplimit.LoginProceed {
		t.Fatalf("Begin(%q, %q) = %+v, want proceed", ip, user, a)
	}
	return a
}

// mustFail begins an attempt and settles it as a failure, failing t on a
// refusal or a store error.
func mustFail(t *testing.T, g *httplimit.LoginGuard, ip, user string) throttle.Decision {
	t.Helper()
	d, err := begin(t, g, ip, user).Failed()
	if err != nil {
		t.Fatalf("Failed(%q, %q): %v", ip, user, err)
	}
	return d
}

// mustSucceed begins an attempt and settles it as a success.
func mustSucceed(t *testing.T, g *httplimit.LoginGuard, ip, user string) {
	t.Helper()
	if err := begin(t, g, ip, user).Succeeded(); err != nil {
		t.Fatalf("Succeeded(%q, %q): %v", ip, user, err)
	}
}

// TestSucceededClearsAccountOnly checks that a success clears the account's
// count but not the shared ip count, and lifts no ban.
func TestSucceededClearsAccountOnly(t *testing.T) {
	now := uint64(10)
	guard, _ := newGuard(t, &now)
	for range 2 {
		mustFail(t, guard, "192.0.2.1", "mallory")
	}
	mustSucceed(t, guard, "192.0.2.1", "mallory")
	if got := guard.Check("", "mallory"); got != allowed(3) {
		t.Errorf("account after success: %+v, want Allow 3", got)
	}
	if got := guard.Check("192.0.2.1", ""); got != allowed(1) {
		t.Errorf("ip after success: %+v, want Allow 1 (not washed)", got)
	}
	mustFail(t, guard, "192.0.2.1", "victim") // the third ip failure bans the ip
	if got := guard.Begin("192.0.2.1", "mallory"); got.Verdict != httplimit.LoginBanned || got.Until != 910 {
		t.Errorf("a success's attempt on a banned ip: %+v, want banned until 910", got)
	}
	mustSucceed(t, guard, "198.51.100.1", "mallory") // from elsewhere: clears the account only
	if got := guard.Check("192.0.2.1", "mallory"); got != bannedUntil(910) {
		t.Errorf("after a success on a banned ip: %+v, want Banned 910", got)
	}
}

// TestLoginGuardKeys checks which keys an attempt uses: none for an empty ip
// or a name that does not normalise, so never "" nor raw text.
func TestLoginGuardKeys(t *testing.T) {
	now := uint64(0)
	guard, _ := newGuard(t, &now)
	if got := guard.Check("", ""); got != allowed(0) {
		t.Errorf("no keys: Check = %+v, want Allow 0 (THR-9)", got)
	}
	if got, err := begin(t, guard, "", "\x00").Failed(); got != allowed(0) || err != nil {
		t.Errorf("no keys: Failed = %+v, %v; want Allow 0, nil", got, err)
	}
	for range 3 {
		mustFail(t, guard, "", "Eve")
	}
	if got := guard.Check("", "eve"); got != bannedUntil(900) {
		t.Errorf("acct:eve = %+v, want Banned 900", got)
	}
	if got := guard.Throttle().Check("acct:eve", 0); got != bannedUntil(900) {
		t.Errorf("the throttle's key acct:eve = %+v, want Banned 900", got)
	}
}

// TestLoginGuardStoreFaults checks errors, Unavailable and kept failures
// with faults: a failure the store refuses is kept by the guard and still
// counts, so a key whose store writes fail is not unlimited.
func TestLoginGuardStoreFaults(t *testing.T) {
	now := uint64(5)
	guard, fs := newGuard(t, &now)
	fs.SetFaults(throttle.Fault{Op: throttle.OpAddFailure, Keys: []string{"ip:192.0.2.1"}})
	d, err := begin(t, guard, "192.0.2.1", "alice").Failed()
	if d != allowed(2) || !errors.Is(err, throttle.ErrFault) || !strings.HasPrefix(err.Error(), "httplimit: ") {
		t.Errorf("one key failing: %+v, %v; want Allow 2 and an httplimit: error wrapping ErrFault", d, err)
	}
	fs.SetFaults(throttle.Fault{Op: throttle.OpAddFailure})
	if d, err = begin(t, guard, "192.0.2.1", "bob").Failed(); d.Verdict != throttle.Unavailable || err == nil {
		t.Errorf("both keys failing: %+v, %v; want Unavailable and an error", d, err)
	}
	if a := guard.Begin("192.0.2.1", "carol"); a.Verdict != httplimit.LoginProceed {
		t.Errorf("two kept failures of threshold 3: %+v, want proceed", a)
	} else if _, err := a.Failed(); err == nil {
		t.Errorf("a third failure with add_failure failing: no error")
	}
	if a := guard.Begin("192.0.2.1", "dave"); a.Verdict != httplimit.LoginBusy {
		t.Errorf("three failures the store refused on the ip key: %+v, want busy (the guard keeps them)", a)
	}
	if got := guard.Stats(); got.Kept != 5 {
		t.Errorf("Stats = %+v, want Kept 5 (the ip thrice, bob's and carol's accounts)", got)
	}
	fs.SetFaults(throttle.Fault{Op: throttle.OpClearFailures})
	if err = begin(t, guard, "198.51.100.1", "erin").Succeeded(); !errors.Is(err, throttle.ErrFault) {
		t.Errorf("Succeeded with a fault: %v, want ErrFault", err)
	}
	fs.SetFaults(throttle.Fault{Op: throttle.OpBanUntil})
	if d = guard.Check("192.0.2.1", "alice"); d.Verdict != throttle.Unavailable {
		t.Errorf("Check with a fault: %+v, want Unavailable", d)
	}
	if a := guard.Begin("198.51.100.2", "frank"); a.Verdict != httplimit.LoginProceed || guard.Stats().Unavailable != 2 {
		t.Errorf("Begin with the store unreadable: %+v, stats %+v; want proceed (allow and alert), Unavailable 2", a, guard.Stats())
	}
}

// TestWriteHeaders checks the headers of each verdict.
func TestWriteHeaders(t *testing.T) {
	now := uint64(100)
	guard, _ := newGuard(t, &now)
	tests := []struct {
		d      throttle.Decision
		want   http.Header
		reason string
	}{
		{allowed(4), http.Header{"X-Ratelimit-Remaining": {"4"}}, "Allow: the remaining quota"},
		{allowed(0), http.Header{"X-Ratelimit-Remaining": {"0"}}, "Allow 0 is written too"},
		{bannedUntil(130), http.Header{"Retry-After": {"30"}}, "Banned: until - now"},
		{bannedUntil(101), http.Header{"Retry-After": {"1"}}, "one second left"},
		{bannedUntil(100), http.Header{"Retry-After": {"1"}}, "until = now: at least 1"},
		{bannedUntil(50), http.Header{"Retry-After": {"1"}}, "until in the past: at least 1"},
		{bannedUntil(1<<64 - 1), http.Header{"Retry-After": {"18446744073709551515"}}, "a saturated ban"},
		{throttle.Decision{Verdict: throttle.Unavailable}, http.Header{}, "Unavailable: nothing"},
	}
	for _, tt := range tests {
		if tt.reason == "" {
			t.Fatalf("row %+v has no reason", tt.d)
		}
		rec := httptest.NewRecorder()
		guard.WriteHeaders(rec, tt.d)
		if diff := cmp.Diff(tt.want, rec.Header()); diff != "" {
			t.Errorf("WriteHeaders(%+v) (-want +got):\n%s (%s)", tt.d, diff, tt.reason)
		}
	}
}

// TestWriteHeadersShowsTheStrictestLimit checks WriteHeaders after a
// Limiter's X-RateLimit trio: the guard's failures left replace the
// trio's remaining only when fewer, and then the trio's limit and reset,
// which described the other limit, go.
func TestWriteHeadersShowsTheStrictestLimit(t *testing.T) {
	now := uint64(100)
	guard, _ := newGuard(t, &now)
	trio := func(remaining string) http.Header {
		return http.Header{"X-Ratelimit-Limit": {"20"}, "X-Ratelimit-Remaining": {remaining}, "X-Ratelimit-Reset": {"7"}}
	}
	tests := []struct {
		before http.Header
		d      throttle.Decision
		want   http.Header
		reason string
	}{
		{trio("3"), allowed(4), trio("3"), "the Limiter's bucket is stricter: its trio stays"},
		{trio("4"), allowed(4), trio("4"), "equal: the trio stays whole"},
		{trio("19"), allowed(4), http.Header{"X-Ratelimit-Remaining": {"4"}}, "the guard is stricter: its count, and no limit or reset of another limit"},
		{trio("19"), bannedUntil(130), http.Header{"X-Ratelimit-Limit": {"20"}, "X-Ratelimit-Remaining": {"19"}, "X-Ratelimit-Reset": {"7"}, "Retry-After": {"30"}}, "Banned: Retry-After only"},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		for k, v := range tt.before {
			rec.Header()[k] = v
		}
		guard.WriteHeaders(rec, tt.d)
		if diff := cmp.Diff(tt.want, rec.Header()); diff != "" {
			t.Errorf("WriteHeaders(%+v) after %v (-want +got):\n%s (%s)", tt.d, tt.before, diff, tt.reason)
		}
	}
}

// TestNormalizeAccount checks the documented rule.
func TestNormalizeAccount(t *testing.T) {
	long := strings.Repeat("a", 100)
	tests := []struct {
		in, want string
		ok       bool
		reason   string
	}{
		{"alice", "alice", true, "already normal"},
		{"Alice", "alice", true, "lowercased"},
		{"  bob\t\n", "bob", true, "surrounding white space trimmed"},
		{"ÄÖÜ", "äöü", true, "Unicode letters lowercased"},
		{"\u212a", "k", true, "the Kelvin sign folds to k"},
		{"a b", "a b", true, "inner space kept"},
		{long, long[:64], true, "cut to MaxAccountLen bytes"},
		{strings.Repeat("a", 63) + "é", strings.Repeat("a", 63), true, "cut at a rune boundary"},
		{"", "", false, "empty"},
		{"   ", "", false, "only white space"},
		{"\xff", "", false, "invalid UTF-8"},
		{"a\x00b", "", false, "a NUL"},
		{"a\x7fb", "", false, "DEL is a control character"},
		{"a\u0085b", "", false, "a C1 control character"},
	}
	for _, tt := range tests {
		if tt.reason == "" {
			t.Fatalf("row %q has no reason", tt.in)
		}
		got, ok := httplimit.NormalizeAccount(tt.in)
		if got != tt.want || ok != tt.ok || len(got) > httplimit.MaxAccountLen {
			t.Errorf("NormalizeAccount(%q) = %q, %v; want %q, %v (%s)", tt.in, got, ok, tt.want, tt.ok, tt.reason)
		}
	}
}
