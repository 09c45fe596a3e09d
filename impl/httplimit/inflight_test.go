package httplimit_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
)

// blocker is a handler whose first holds requests signal entered and wait
// for release; later requests answer 200 at once, so that a test of a broken
// limiter fails instead of hanging.
type blocker struct {
	holds   atomic.Int64
	entered chan struct{}
	release chan struct{}
}

func newBlocker(holds int64) *blocker {
	b := &blocker{entered: make(chan struct{}), release: make(chan struct{})}
	b.holds.Store(holds)
	return b
}

func (b *blocker) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	if b.holds.Add(-1) >= 0 {
		b.entered <- struct{}{}
		<-b.release
	}
	w.WriteHeader(http.StatusOK)
}

// hold starts n requests from distinct clients into h (whose handler is b)
// and returns once all n are inside it; wait waits for them to finish and
// returns their statuses.
func hold(h http.Handler, b *blocker, n int) (wait func() []int) {
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { codes[i] = serve(h, get(fmt.Sprintf("192.0.2.%d:1", i+1), nil)).Code })
	}
	for range n {
		<-b.entered
	}
	return func() []int { wg.Wait(); return codes }
}

// TestInFlightShedAndRelease holds maxif requests in a blocking handler:
// the next is shed, and in-flight returns to 0 when the handlers return.
func TestInFlightShedAndRelease(t *testing.T) {
	const maxif = 3
	g := newGate(t, 100, 1, 1000, maxif, tick100ms)
	b := newBlocker(maxif)
	h := newLimiter(t, g, fixedClock(0)).Wrap(b)
	wait := hold(h, b, maxif)
	if g.InFlight() != maxif {
		t.Fatalf("in flight %d with %d handlers blocked, want %d", g.InFlight(), maxif, maxif)
	}
	check503(t, serve(h, get("198.51.100.1:1", nil)), "1")
	close(b.release)
	for i, code := range wait() {
		if code != http.StatusOK {
			t.Errorf("held request %d: status %d, want 200", i, code)
		}
	}
	if g.InFlight() != 0 {
		t.Errorf("in flight %d after the handlers returned, want 0", g.InFlight())
	}
}

// TestRejectReleasesNothing checks that a rejected request gives back no
// place: with one request held, limited and shed requests leave in-flight
// at 1 (an extra Release would take it to 0).
func TestRejectReleasesNothing(t *testing.T) {
	g := newGate(t, 1, 1, 1000, 1, tick100ms)
	b := newBlocker(1)
	h := newLimiter(t, g, fixedClock(0)).Wrap(b)
	wait := hold(h, b, 1)
	for i := range 5 {
		check503(t, serve(h, get(fmt.Sprintf("198.51.100.%d:1", i), nil)), "1") // shed: maxif 1
	}
	if g.InFlight() != 1 {
		t.Fatalf("in flight %d after sheds, want 1", g.InFlight())
	}
	close(b.release)
	wait()
	h = newLimiter(t, g, fixedClock(0)).Wrap(ok)
	for range 5 {
		check503(t, serve(h, get("192.0.2.1:1", nil)), "100") // limited: its one token is spent
	}
	if g.InFlight() != 0 {
		t.Errorf("in flight %d after limited requests, want 0", g.InFlight())
	}
}

// TestPanicReleases checks that a panicking handler releases its place and
// that the panic reaches the caller unchanged.
func TestPanicReleases(t *testing.T) {
	g := newGate(t, 100, 1, 1000, 2, tick100ms)
	boom := errors.New("boom")
	h := newLimiter(t, g, fixedClock(0)).Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(boom) }))
	for i := range 5 { // more panics than maxif: a leaked place would shed
		got := func() (v any) {
			defer func() { v = recover() }()
			serve(h, get("192.0.2.1:1", nil))
			return nil
		}()
		if got != boom {
			t.Fatalf("panic %d: recovered %v, want %v", i, got, boom)
		}
		if g.InFlight() != 0 {
			t.Fatalf("panic %d: in flight %d, want 0", i, g.InFlight())
		}
	}
}

// TestAbortHandlerOverServer checks http.ErrAbortHandler through a real
// server: net/http aborts the response and the place is released.
func TestAbortHandlerOverServer(t *testing.T) {
	g := newGate(t, 100, 1, 1000, 1, tick100ms)
	var calls atomic.Int64
	h := newLimiter(t, g, fixedClock(0)).Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		calls.Add(1)
		panic(http.ErrAbortHandler)
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	for range 3 {
		resp, err := srv.Client().Get(srv.URL)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("an aborted handler gave status %d, want a transport error", resp.StatusCode)
		}
	}
	if g.InFlight() != 0 || calls.Load() != 3 {
		t.Errorf("in flight %d after 3 aborts (handler calls %d), want 0 (3)", g.InFlight(), calls.Load())
	}
}

// TestWrapNilPanics checks that Wrap refuses a nil handler at once.
func TestWrapNilPanics(t *testing.T) {
	defer func() {
		if r := recover(); r != "httplimit: nil handler" {
			t.Errorf("Wrap(nil) panicked with %v, want httplimit: nil handler", r)
		}
	}()
	newLimiter(t, newGate(t, 1, 1, 1, 1, 1)).Wrap(nil)
}

// TestMaxInFlightPerKey holds the requests of one slow client (X-Forwarded-
// For 198.51.100.1 through a trusted proxy, a real loopback server) in the
// handler: with WithMaxInFlightPerKey(4) under a gate of 32 places, 4 of its
// 10 concurrent requests get in and 6 get the shed 503 (Slot -1 for the
// hook), exactly; another client still gets in; and the places come back.
// Without the cap the slow client's 10 requests all held places (and 32
// held all of them).
func TestMaxInFlightPerKey(t *testing.T) {
	var perKey atomic.Int64
	hook := httplimit.WithOnReject(func(_ *http.Request, d gate.Decision) {
		if d.Verdict == gate.Shed && d.Slot == gate.NoWay {
			perKey.Add(1)
		}
	})
	g := newGate(t, 1<<40, 1<<40, 1, 32, 1)
	l := newLimiter(t, g, hook, httplimit.WithMaxInFlightPerKey(4),
		httplimit.WithTrustedProxies(httplimit.XForwardedFor, prefixes("127.0.0.1/32")...))
	entered, release := make(chan struct{}, 10), make(chan struct{})
	url := loopback(t, l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Forwarded-For") == "198.51.100.1" {
			entered <- struct{}{}
			<-release // a slow upload
		}
	})))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}, Timeout: time.Minute}
	defer client.CloseIdleConnections()
	for round := range 2 {
		codes := make(chan int, 10)
		for range 10 {
			go func() { codes <- fetch(t, client, url, "198.51.100.1") }()
		}
		shed := 0
		for range 6 {
			if code := <-codes; code == http.StatusServiceUnavailable {
				shed++
			}
		}
		for range 4 {
			<-entered
		}
		if shed != 6 || g.InFlight() != 4 || perKey.Load() != int64(6*(round+1)) {
			t.Errorf("round %d: %d sheds, %d in flight, hook saw %d per-key sheds; want 6, 4, %d", round, shed, g.InFlight(), perKey.Load(), 6*(round+1))
		}
		if code := fetch(t, client, url, "198.51.100.2"); code != http.StatusOK {
			t.Errorf("round %d: another client: %d, want 200", round, code)
		}
		for range 4 {
			release <- struct{}{}
		}
		for range 4 {
			if code := <-codes; code != http.StatusOK {
				t.Errorf("round %d: a held request: %d, want 200", round, code)
			}
		}
		waitFor(t, "the places back", func() bool { return g.InFlight() == 0 })
	}
}

// fetch GETs url as client (an X-Forwarded-For value) and returns the
// status, 0 on a transport error (reported to t).
func fetch(t *testing.T, c *http.Client, url, client string) int {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Error(err)
		return 0
	}
	req.Header.Set("X-Forwarded-For", client)
	resp, err := c.Do(req)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}
