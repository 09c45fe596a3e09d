package httplimit_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/throttle"
)

// guessRig is the example's login handler behind a Limiter on a loopback
// server, with a password check that counts its calls and blocks until
// release is closed, so that concurrent guesses overlap in it.
type guessRig struct {
	url     string
	client  *http.Client
	guard   *httplimit.LoginGuard
	now     atomic.Uint64
	checks  atomic.Int64 // password checks started
	done    atomic.Int64 // responses received
	release chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	codes   map[int]int
}

// newGuessRig builds a rig whose throttle has threshold 5 (window and ban
// 900 s); trustXFF makes the Limiter read X-Forwarded-For from 127.0.0.1.
func newGuessRig(t *testing.T, trustXFF bool) *guessRig {
	rig := &guessRig{release: make(chan struct{}), codes: map[int]int{}}
	rig.now.Store(1_000_000)
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 5})
	if err != nil {
		t.Fatal(err)
	}
	rig.guard = mustGuard(t, mem, throttle.Config{Threshold: 5, WindowSecs: 900, BanSecs: 900},
		httplimit.LoginConfig{Now: rig.now.Load})
	opts := []httplimit.Option{}
	if trustXFF {
		opts = append(opts, httplimit.WithTrustedProxies(httplimit.XForwardedFor, prefixes("127.0.0.1/32")...))
	}
	l := newLimiter(t, newGate(t, 1<<40, 1<<40, 1, 1<<12, 1), opts...)
	verify := func(user, password string) bool {
		rig.checks.Add(1)
		<-rig.release
		return checkPassword(user, password)
	}
	rig.url = loopback(t, l.Wrap(loginHandler(l, rig.guard, verify)))
	rig.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 2 * time.Minute}
	t.Cleanup(rig.client.CloseIdleConnections)
	return rig
}

// send posts one login from client (an X-Forwarded-For value, "" for none)
// in a goroutine and tallies its status.
func (r *guessRig) send(t *testing.T, client, user, password string) {
	r.wg.Go(func() {
		code, err := r.post(client, user, password)
		if err != nil {
			t.Errorf("login %s/%s: %v", client, user, err)
		}
		r.mu.Lock()
		r.codes[code]++
		r.mu.Unlock()
		r.done.Add(1)
	})
}

// post sends one login and returns its status.
func (r *guessRig) post(client, user, password string) (int, error) {
	form := url.Values{"user": {user}, "password": {password}}
	req, err := http.NewRequest(http.MethodPost, r.url+"/login", strings.NewReader(form.Encode()))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if client != "" {
		req.Header.Set("X-Forwarded-For", client)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// reached waits until n requests are inside the password check or answered
// (before release, no request is both).
func (r *guessRig) reached(t *testing.T, n int64) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d logins in the check or answered", n), func() bool {
		return r.checks.Load()+r.done.Load() >= n
	})
}

// finish lets the blocked checks return, waits for every response and
// returns the statuses.
func (r *guessRig) finish() map[int]int {
	close(r.release)
	r.wg.Wait()
	return r.codes
}

// TestConcurrentGuessesFromOneAddress sends 100 wrong guesses for one
// account from one address at once: with threshold 5, at most 5 passwords
// may be checked before the ban, whatever the concurrency (the bound of the
// package documentation). The seed's flow (check, verify, record) checked
// all 100.
func TestConcurrentGuessesFromOneAddress(t *testing.T) {
	rig := newGuessRig(t, false)
	for i := range 100 {
		rig.send(t, "", "alice", fmt.Sprintf("guess%d", i))
	}
	rig.reached(t, 100)
	codes := rig.finish()
	if got := rig.checks.Load(); got != 5 || codes[http.StatusOK] != 0 || codes[401]+codes[429] != 100 {
		t.Errorf("100 concurrent guesses: %d password checks, statuses %v; want 5 checks, only 401 and 429", got, codes)
	}
	if code, err := rig.post("", "alice", "s3cret"); code != http.StatusTooManyRequests || err != nil {
		t.Errorf("the right password after the burst: %d, %v; want 429 (banned)", code, err)
	}
}

// TestConcurrentGuessesFromTenAddresses sends 10 guesses from each of 10
// addresses (X-Forwarded-For from a trusted proxy) at one account at once:
// the account's key bounds the checks to 5.
func TestConcurrentGuessesFromTenAddresses(t *testing.T) {
	rig := newGuessRig(t, true)
	for i := range 100 {
		rig.send(t, fmt.Sprintf("198.51.100.%d", i%10+1), "alice", fmt.Sprintf("guess%d", i))
	}
	rig.reached(t, 100)
	codes := rig.finish()
	if got := rig.checks.Load(); got != 5 || codes[http.StatusOK] != 0 {
		t.Errorf("10 addresses x 10 guesses: %d password checks, statuses %v; want 5 checks, no 200", got, codes)
	}
}

// TestRightPasswordLateInABurst sends a burst of 20 logins from one address
// whose 15th carries the right password, three times: it must never be
// checked (the first five guesses hold the quota, then ban the address).
func TestRightPasswordLateInABurst(t *testing.T) {
	for run := range 3 {
		rig := newGuessRig(t, false)
		for i := range 20 {
			password := fmt.Sprintf("guess%d", i)
			if i == 14 {
				password = "s3cret"
			}
			rig.send(t, "", "alice", password)
			rig.reached(t, int64(i+1)) // in order: the 15th comes after 14 wrong ones
		}
		codes := rig.finish()
		if codes[http.StatusOK] != 0 || rig.checks.Load() != 5 {
			t.Errorf("run %d: statuses %v, %d checks; want no 200, 5 checks", run, codes, rig.checks.Load())
		}
	}
}

// TestUnsettledAttempts checks that an attempt never settled cannot lock a
// key for good: a handler that panics between Begin and the outcome counts
// as a failure (the deferred Close), and an attempt leaked without Close
// counts as one until the window ends, then is forgotten.
func TestUnsettledAttempts(t *testing.T) {
	var now uint64 = 1000
	guard, _ := newGuard(t, &now) // threshold 3, window 900
	boom := errors.New("boom")
	panicking := func(w http.ResponseWriter, r *http.Request) {
		a := guard.Begin("192.0.2.1", r.URL.Query().Get("user"))
		defer a.Close()
		if a.Verdict != httplimit.LoginProceed {
			a.WriteRefusal(w)
			return
		}
		panic(boom) // e.g. the password check failed to reach its database
	}
	for i := range 3 {
		if got := recoverServe(http.HandlerFunc(panicking), "/login?user=alice"); got != boom {
			t.Fatalf("panic %d: recovered %v", i, got)
		}
	}
	if a := guard.Begin("192.0.2.1", "bob"); a.Verdict != httplimit.LoginBanned || a.Until != 1900 {
		t.Errorf("after 3 panics: %+v, want banned until 1900 (each panic a failed guess)", a)
	}
	for range 3 {
		begin(t, guard, "192.0.2.2", "") // leaked: never settled, never closed
	}
	if a := guard.Begin("192.0.2.2", ""); a.Verdict != httplimit.LoginBusy || a.RetryAfter != 1 {
		t.Errorf("3 leaked reservations of threshold 3: %+v, want busy, Retry-After 1", a)
	}
	now += 899
	if a := guard.Begin("192.0.2.2", ""); a.Verdict != httplimit.LoginBusy {
		t.Errorf("a second before the window ends: %+v, want busy", a)
	}
	now++
	if a := guard.Begin("192.0.2.2", ""); a.Verdict != httplimit.LoginProceed {
		t.Errorf("at the window's end: %+v, want proceed (the leaked reservations expired)", a)
	}
	if d := guard.Check("192.0.2.2", ""); d != allowed(3) {
		t.Errorf("Check after the leak: %+v, want Allow 3 (expired reservations record nothing)", d)
	}
}

// recoverServe runs h on a GET of target and returns what it panicked with.
func recoverServe(h http.Handler, target string) (v any) {
	defer func() { v = recover() }()
	serve(h, httptest.NewRequest(http.MethodGet, target, nil))
	return nil
}
