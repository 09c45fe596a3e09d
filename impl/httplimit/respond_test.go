package httplimit_test

import (
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/lim"
)

// want503 is the header of a 503 with Retry-After ra, as a recorder sees it:
// spec LIM-17's three headers, and Cache-Control: no-store, the HTTP framing
// the middleware adds around them (lim_resp_503's bytes do not carry it:
// TestAppendResponseIsSpecBytes).
func want503(ra string) http.Header {
	return http.Header{
		"Retry-After":    {ra},
		"Content-Type":   {"text/plain; charset=utf-8"},
		"Content-Length": {"12"},
		"Cache-Control":  {"no-store"},
	}
}

// check503 checks rec against spec LIM-17's response with Retry-After ra.
func check503(t *testing.T, rec *httptest.ResponseRecorder, ra string) {
	t.Helper()
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503", rec.Code)
	}
	if diff := cmp.Diff(want503(ra), rec.Header()); diff != "" {
		t.Errorf("503 header mismatch (-want +got):\n%s", diff)
	}
	if got := rec.Body.String(); got != lim.Body503 || len(got) != 12 {
		t.Errorf("body %q (%d bytes), want %q (12 bytes)", got, len(got), lim.Body503)
	}
}

// TestLimited503Exact checks a Limited response byte for byte, and that its
// Retry-After is the gate decision's: lim_cfg(1, 1, 35, 10) at a fixed tick
// of 0.1 s rejects the second request with retry 35 ticks = 3.5 s -> 4.
func TestLimited503Exact(t *testing.T) {
	var got []gate.Decision
	hook := httplimit.WithOnReject(func(_ *http.Request, d gate.Decision) { got = append(got, d) })
	h := newLimiter(t, newGate(t, 1, 1, 35, 10, tick100ms), fixedClock(7), hook).Wrap(ok)
	if rec := serve(h, get("192.0.2.1:1", nil)); rec.Code != http.StatusOK {
		t.Fatalf("first request: status %d, want 200", rec.Code)
	}
	check503(t, serve(h, get("192.0.2.1:2", nil)), "4")
	if len(got) != 1 || got[0].Verdict != gate.Limited || got[0].Retry != 35 || got[0].RetryAfter != 4 {
		t.Errorf("OnReject decisions %+v, want one Limited with Retry 35, RetryAfter 4", got)
	}
}

// TestRetryAfterIsDecisions checks Retry-After against the hook's decision
// for waits from 1 tick to beyond 100 s (the 3-digit path), on both sides
// of a page of the Retry-After cache (255 s, 256 s) and of its end
// (131071 s, 131072 s), and far past it.
func TestRetryAfterIsDecisions(t *testing.T) {
	for _, ivl := range []int64{1, 9, 10, 11, 99, 1000, 1001, 2550, 2551, 123456, 1310710, 1310711, math.MaxInt64} {
		var d gate.Decision
		hook := httplimit.WithOnReject(func(_ *http.Request, got gate.Decision) { d = got })
		h := newLimiter(t, newGate(t, 1, 1, ivl, 10, tick100ms), fixedClock(0), hook).Wrap(ok)
		serve(h, get("192.0.2.1:1", nil))
		rec := serve(h, get("192.0.2.1:1", nil))
		want := string(lim.AppendRetryAfter(nil, d.RetryAfter))
		if want != strconv.FormatInt(gate.RetryAfterSeconds(ivl, tick100ms), 10) {
			t.Fatalf("ivl %d: decision RetryAfter %d disagrees with RetryAfterSeconds", ivl, d.RetryAfter)
		}
		check503(t, rec, want)
	}
}

// TestShed503 checks a shed: Retry-After 1 (GATE-9), the same body, and the
// Shed verdict given to the hook.
func TestShed503(t *testing.T) {
	var d gate.Decision
	hook := httplimit.WithOnReject(func(_ *http.Request, got gate.Decision) { d = got })
	g := newGate(t, 100, 1, 1000, 1, tick100ms)
	l := newLimiter(t, g, fixedClock(0), hook)
	var inner *httptest.ResponseRecorder
	h := l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner = serve(l.Wrap(ok), get("192.0.2.2:1", nil)) // a second client while one is in flight
		w.WriteHeader(http.StatusOK)
	}))
	serve(h, get("192.0.2.1:1", nil))
	check503(t, inner, "1")
	if d.Verdict != gate.Shed || d.RetryAfter != 1 || d.Retry != 0 {
		t.Errorf("hook decision %+v, want Shed with RetryAfter 1, Retry 0", d)
	}
}

// TestRejectInvalid400 checks WithRejectInvalid: a 400 of fixed bytes, no
// gate decision, no hook; and that without it the request is keyed.
func TestRejectInvalid400(t *testing.T) {
	calls := 0
	hook := httplimit.WithOnReject(func(*http.Request, gate.Decision) { calls++ })
	g := newGate(t, 1, 1, 1000, 10, tick100ms)
	h := newLimiter(t, g, fixedClock(0), hook, httplimit.WithRejectInvalid()).Wrap(ok)
	for range 3 {
		rec := serve(h, get("not an address", nil))
		want := http.Header{"Content-Type": {"text/plain; charset=utf-8"}, "Content-Length": {strconv.Itoa(len(httplimit.Body400))}}
		if rec.Code != http.StatusBadRequest || !cmp.Equal(want, rec.Header()) || rec.Body.String() != httplimit.Body400 {
			t.Fatalf("got %d %v %q, want 400 %v %q", rec.Code, rec.Header(), rec.Body, want, httplimit.Body400)
		}
	}
	if _, _, touched := g.WayOf(httplimit.InvalidKey); touched || calls != 0 || g.InFlight() != 0 {
		t.Errorf("the gate saw a 400: bucket touched %v, hook calls %d, in flight %d", touched, calls, g.InFlight())
	}
	if rec := serve(h, get("192.0.2.1:1", nil)); rec.Code != http.StatusOK {
		t.Errorf("a valid address: status %d, want 200", rec.Code)
	}
}

// Test503OverRealServer checks the 503 on the wire through net/http: the
// five headers (Date added by net/http, Cache-Control: no-store by the
// middleware, so that no cache stores a rejection) and the exact body.
func Test503OverRealServer(t *testing.T) {
	h := newLimiter(t, newGate(t, 1, 1, 35, 10, tick100ms), fixedClock(0)).Wrap(ok)
	srv := httptest.NewServer(h)
	defer srv.Close()
	codes := []int{}
	var last *http.Response
	var body []byte
	for range 2 {
		resp, err := srv.Client().Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		codes, last = append(codes, resp.StatusCode), resp
	}
	if !slices.Equal(codes, []int{200, 503}) || last.Status != "503 Service Unavailable" {
		t.Fatalf("statuses %v, last %q; want [200 503], 503 Service Unavailable", codes, last.Status)
	}
	names := slices.Sorted(maps.Keys(last.Header))
	if !slices.Equal(names, []string{"Cache-Control", "Content-Length", "Content-Type", "Date", "Retry-After"}) {
		t.Errorf("header names %v, want Cache-Control Content-Length Content-Type Date Retry-After", names)
	}
	got := last.Header.Clone()
	delete(got, "Date")
	if diff := cmp.Diff(want503("4"), got); diff != "" || string(body) != lim.Body503 || last.ContentLength != 12 {
		t.Errorf("wire 503: header diff %s, body %q, ContentLength %d", diff, body, last.ContentLength)
	}
}

// TestAppendResponseIsSpecBytes documents the raw-socket form: the gate
// decision's AppendResponse is lim_resp_503 of the same Retry-After.
func TestAppendResponseIsSpecBytes(t *testing.T) {
	d := gate.Decision{Verdict: gate.Limited, Retry: 35, RetryAfter: 4}
	want := "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 4\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nlim rejected"
	if got := string(d.AppendResponse(nil)); got != want {
		t.Errorf("AppendResponse = %q, want %q", got, want)
	}
}

// TestSharedHeaderValuesSurviveHeaderMethods checks the contract of the
// shared header values (package doc): an outer middleware that edits the
// 503's or the 400's header with Header's methods after the response leaves
// every later response exact, because each shared value has capacity 1.
func TestSharedHeaderValuesSurviveHeaderMethods(t *testing.T) {
	l := newLimiter(t, newGate(t, 1, 1, 35, 10, tick100ms), fixedClock(0), httplimit.WithRejectInvalid())
	edit := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r)
			h := w.Header()
			for name, v := range h {
				if len(v) != 1 || cap(v) != 1 {
					t.Errorf("%s: len %d, cap %d; want 1, 1, so that Add copies", name, len(v), cap(v))
				}
			}
			h.Add("Retry-After", "7")
			h.Add("Cache-Control", "private")
			h.Add("Content-Type", "text/html")
			h.Add("Content-Length", "0")
			h.Set("Content-Type", "application/json")
			h.Del("Content-Length")
		})
	}
	h := edit(l.Wrap(ok))
	serve(h, get("192.0.2.1:1", nil)) // spend the one token
	want400 := http.Header{"Content-Type": {"text/plain; charset=utf-8"}, "Content-Length": {strconv.Itoa(len(httplimit.Body400))}}
	for i := range 3 {
		if diff := cmp.Diff(want503("4"), serve(h, get("192.0.2.1:1", nil)).Result().Header); diff != "" {
			t.Errorf("503 %d after edits: header mismatch (-want +got):\n%s", i, diff)
		}
		if diff := cmp.Diff(want400, serve(h, get("@", nil)).Result().Header); diff != "" {
			t.Errorf("400 %d after edits: header mismatch (-want +got):\n%s", i, diff)
		}
	}
}
