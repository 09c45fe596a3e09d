package httplimit_test

import (
	"fmt"
	"testing"

	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/throttle"
)

// storeDown is a fault rule for each of the seven store operations on
// every key: the store is unreachable.
func storeDown() []throttle.Fault {
	var fs []throttle.Fault
	for _, op := range []throttle.Op{throttle.OpBanUntil, throttle.OpCount, throttle.OpAddFailure,
		throttle.OpBan, throttle.OpClearFailures, throttle.OpClear, throttle.OpPurge} {
		fs = append(fs, throttle.Fault{Op: op})
	}
	return fs
}

// outageStep is one login after an outage and the status it must get.
type outageStep struct {
	now          uint64
	remote, user string
	password     string
	code         int
	reason       string
}

// TestOutageFloodDoesNotLockLoginForGood is issue 24's lockout: while the
// store is down, failed logins from six IPv6 /64s fill the guard's table
// (MaxPending 60: 6 clients x 5 failures x 2 keys), which then fails closed
// with 503. The store heals; once the kept failures have left the window a
// login from a fresh address succeeds, and so does one from a flooding
// address a month later. Before the full table swept its expired entries,
// an entry left only when its own key came back, and every new login got
// 503 for good.
func TestOutageFloodDoesNotLockLoginForGood(t *testing.T) {
	var now uint64 = 1000
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 5})
	if err != nil {
		t.Fatal(err)
	}
	fs := throttle.NewFaultStore(mem)
	guard := mustGuard(t, fs, throttle.Config{Threshold: 5, WindowSecs: 900, BanSecs: 900},
		httplimit.LoginConfig{Now: func() uint64 { return now }, MaxPending: 60})
	l := newLimiter(t, newGate(t, 1<<40, 1<<40, 1, 1<<12, 1))
	h := l.Wrap(loginHandler(l, guard, checkPassword))

	fs.SetFaults(storeDown()...)
	codes := map[int]int{}
	for c := range 6 {
		for i := range 6 {
			remote := fmt.Sprintf("[2001:db8:%x::%x]:1", c+1, i+1) // one /64, rotating addresses
			codes[serve(h, loginRequest(remote, fmt.Sprintf("user%d", c), "guess")).Code]++
		}
	}
	if want := map[int]int{401: 30, 429: 6}; fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("the flood while the store is down: statuses %v, want %v (5 kept failures a client, then busy)", codes, want)
	}
	fs.SetFaults() // the store heals
	month := uint64(30 * 24 * 3600)
	for _, st := range []outageStep{
		{1000, "192.0.2.50:1", "bob", "hunter2", 503, "the table is full of failures that count: fail closed"},
		{1899, "192.0.2.50:1", "bob", "hunter2", 503, "a second before the window ends they still count"},
		{1900, "192.0.2.50:1", "bob", "hunter2", 200, "at the window's end the full table sweeps them: room again"},
		{1900 + month, "[2001:db8:1::7]:1", "bob", "hunter2", 200, "a month later, from a flooding /64"},
		{1900 + month, "192.0.2.51:1", "alice", "s3cret", 200, "a month later, anyone"},
	} {
		now = st.now
		if got := serve(h, loginRequest(st.remote, st.user, st.password)).Code; got != st.code {
			t.Errorf("login %s from %s at %d: %d, want %d (%s)", st.user, st.remote, st.now, got, st.code, st.reason)
		}
	}
	if st := guard.Stats(); st.PendingFull != 2 || st.Kept != 60 {
		t.Errorf("Stats() = %+v, want 2 pending_full (the two 503s), 60 kept", st)
	}
}

// TestFullPendingTableFreesOnlyExpiredEntries fills a table of 2 with
// leaked attempts (never settled): a full table refuses while its entries
// count, and its sweep frees exactly those out of the window at now (spec
// THR-4: t + window > now counts).
func TestFullPendingTableFreesOnlyExpiredEntries(t *testing.T) {
	var now uint64 = 100
	g2 := mustGuardMax(t, &now, 2)
	begin(t, g2, "192.0.2.1", "") // leaked: counts until 1000
	now = 101
	begin(t, g2, "192.0.2.2", "") // leaked: counts until 1001
	for _, st := range []struct {
		now    uint64
		ip     string
		want   httplimit.LoginVerdict
		reason string
	}{
		{101, "192.0.2.3", httplimit.LoginFull, "both entries count"},
		{999, "192.0.2.3", httplimit.LoginFull, "a sweep at 999 frees nothing"},
		{1000, "192.0.2.3", httplimit.LoginProceed, "the entry of 100 left the window at 1000: swept"},
		{1000, "192.0.2.4", httplimit.LoginFull, "the new attempt and the entry of 101 count"},
		{1001, "192.0.2.4", httplimit.LoginProceed, "the entry of 101 left at 1001"},
	} {
		now = st.now
		if a := g2.Begin(st.ip, ""); a.Verdict != st.want {
			t.Errorf("Begin(%s) at %d = %s, want %s (%s)", st.ip, st.now, a.Verdict, st.want, st.reason)
		}
	}
}

// mustGuardMax is a guard over a MemStore with threshold 3, window 900 and
// at most max pending entries, its clock read from *now.
func mustGuardMax(t *testing.T, now *uint64, max int64) *httplimit.LoginGuard {
	t.Helper()
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 3})
	if err != nil {
		t.Fatal(err)
	}
	return mustGuard(t, throttle.NewFaultStore(mem), throttle.Config{Threshold: 3, WindowSecs: 900, BanSecs: 900},
		httplimit.LoginConfig{Now: func() uint64 { return *now }, MaxPending: max})
}
