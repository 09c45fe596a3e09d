package httplimit_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/throttle"
)

// fullRig is the example's login handler over a guard whose MemStore holds
// at most 4 keys (threshold 5, window and ban 900 s), already tracking 4
// ip keys with one failure each at t = 1000.
type fullRig struct {
	h      http.Handler
	mem    *throttle.MemStore
	guard  *httplimit.LoginGuard
	now    uint64
	alarms atomic.Int64
}

func newFullRig(t *testing.T) *fullRig {
	rig := &fullRig{now: 1000}
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 5, MaxKeys: 4})
	if err != nil {
		t.Fatal(err)
	}
	rig.mem = mem
	rig.guard = mustGuard(t, mem, throttle.Config{Threshold: 5, WindowSecs: 900, BanSecs: 900}, httplimit.LoginConfig{
		Now: func() uint64 { return rig.now },
		OnAlarm: func(a httplimit.Alarm) {
			if a.Kind == httplimit.AlarmKept && errors.Is(a.Err, throttle.ErrFull) {
				rig.alarms.Add(1)
			}
		},
	})
	for i := range 4 {
		if _, err := rig.guard.Throttle().RecordFailure(fmt.Sprintf("ip:198.51.100.%d", i+1), rig.now); err != nil {
			t.Fatal(err)
		}
	}
	l := newLimiter(t, newGate(t, 1<<40, 1<<40, 1, 1<<12, 1))
	rig.h = l.Wrap(loginHandler(l, rig.guard, checkPassword))
	return rig
}

// guesses sends n wrong guesses for alice from a fresh address, then the
// right password, and returns the statuses in order.
func (r *fullRig) guesses(n int) []int {
	codes := make([]int, 0, n+1)
	for i := range n + 1 {
		password := fmt.Sprintf("guess%d", i)
		if i == n {
			password = "s3cret"
		}
		codes = append(codes, serve(r.h, loginRequest("203.0.113.9:1", "alice", password)).Code)
	}
	return codes
}

// wantCodes is 401 n times, then 429 until len codes.
func wantCodes(n401, total int) []int {
	codes := make([]int, total)
	for i := range codes {
		codes[i] = http.StatusTooManyRequests
		if i < n401 {
			codes[i] = http.StatusUnauthorized
		}
	}
	return codes
}

// TestLoginGuardReclaimsAFullStore fills the store, lets its keys expire,
// and guesses from a fresh address: the store reclaims the expired keys
// (they change no later decision), so the fifth failure bans and the right
// password is refused. Before, every failure got ErrFull and was dropped:
// 30 guesses were never banned and the right password got 200.
func TestLoginGuardReclaimsAFullStore(t *testing.T) {
	rig := newFullRig(t)
	rig.now += 900 // every filler key's failure has left the window
	got := rig.guesses(30)
	if want := wantCodes(4, 31); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("30 guesses and the password on a full store of expired keys: %v, want %v", got, want)
	}
	if rig.mem.Reclaimed() != 4 || rig.alarms.Load() != 0 {
		t.Errorf("Reclaimed() = %d, ErrFull alarms %d; want 4, 0", rig.mem.Reclaimed(), rig.alarms.Load())
	}
}

// TestLoginGuardStoreFullOfLiveKeys guesses from a fresh address while the
// store is full of live keys: the store refuses the failures, the guard
// keeps them (an ErrFull alarm each, both keys), and the address gets 5
// checks, then 429 until the window ends: fail closed, never unlimited.
func TestLoginGuardStoreFullOfLiveKeys(t *testing.T) {
	rig := newFullRig(t)
	got := rig.guesses(30)
	if want := wantCodes(5, 31); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("30 guesses and the password on a store full of live keys: %v, want %v", got, want)
	}
	if n := rig.alarms.Load(); n != 10 || rig.guard.Stats().Kept != 10 {
		t.Errorf("ErrFull alarms %d, stats %+v; want 10 (5 failures x 2 keys)", n, rig.guard.Stats())
	}
	rig.now += 900 // the fillers and the kept failures leave the window
	if code := serve(rig.h, loginRequest("203.0.113.9:1", "alice", "s3cret")).Code; code != http.StatusOK {
		t.Errorf("the password a window later: %d, want 200", code)
	}
}

// TestLoginGuardPendingFull fills a guard's table of pending entries
// (MaxPending 2): the next attempt is refused with a 503 and an alarm,
// until an attempt is settled.
func TestLoginGuardPendingFull(t *testing.T) {
	var alarms []httplimit.Alarm
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 3})
	if err != nil {
		t.Fatal(err)
	}
	guard := mustGuard(t, mem, throttle.Config{Threshold: 3, WindowSecs: 900, BanSecs: 900}, httplimit.LoginConfig{
		Now: func() uint64 { return 50 }, MaxPending: 2,
		OnAlarm: func(a httplimit.Alarm) { alarms = append(alarms, a) },
	})
	first, _ := begin(t, guard, "192.0.2.1", ""), begin(t, guard, "192.0.2.2", "")
	a := guard.Begin("192.0.2.3", "")
	rec := httptest.NewRecorder()
	a.WriteRefusal(rec)
	if a.Verdict != httplimit.LoginFull || rec.Code != http.StatusServiceUnavailable ||
		rec.Header().Get("Retry-After") != "1" || rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("a third attempt with 2 pending: %+v, %d %v; want full, 503, Retry-After 1, no-store", a, rec.Code, rec.Header())
	}
	if len(alarms) != 1 || alarms[0].Kind != httplimit.AlarmPendingFull || alarms[0].Key != "ip:192.0.2.3" || guard.Stats().PendingFull != 1 {
		t.Errorf("alarms %+v, stats %+v; want one pending_full for ip:192.0.2.3", alarms, guard.Stats())
	}
	if err := first.Succeeded(); err != nil {
		t.Fatal(err)
	}
	begin(t, guard, "192.0.2.3", "")
}
