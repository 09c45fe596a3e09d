package httplimit_test

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/httplimit"
)

// TestTrueRetryAfterWithCurl runs curl --retry against a loopback server
// whose client has spent its bucket: lim_cfg(6, 6, 30, 64) with ticks of
// 0.1 s, so one step of 3 s brings 6 tokens. The spec's Retry-After (LIM-12)
// is ceil(1 * 30 / 6) = 5 ticks, sent as 1 s: curl comes back every second
// and is refused until the step ends (spec FIND-1), 4 requests for one
// success. With WithTrueRetryAfter the 503 says 3 s, the end of the step,
// and curl's one retry passes: 2 requests. The control (the spec's value) is
// logged, not asserted: it depends on the machine's timing; the option's
// count does not (a late retry still passes).
func TestTrueRetryAfterWithCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Fatalf("curl is needed for this test: %v", err)
	}
	spec := curlRequests(t, curl)
	t.Logf("the spec's Retry-After: curl sent %d requests for one 200", spec)
	got := curlRequests(t, curl, httplimit.WithTrueRetryAfter())
	t.Logf("WithTrueRetryAfter: curl sent %d requests for one 200", got)
	if got > 2 {
		t.Errorf("WithTrueRetryAfter: curl sent %d requests for one 200, want at most 2", got)
	}
}

// curlRequests spends the loopback client's bucket, runs curl --retry 10
// against the server and returns how many requests curl made, failing t
// unless curl ends with a 200.
func curlRequests(t *testing.T, curl string, opts ...httplimit.Option) int64 {
	t.Helper()
	g := newGate(t, 6, 6, 30, 64, tick100ms) // the gate's real clock
	var fromCurl atomic.Int64
	l := newLimiter(t, g, opts...)
	inner := l.Wrap(ok)
	url := loopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.UserAgent(), "curl/") {
			fromCurl.Add(1)
		}
		inner.ServeHTTP(w, r)
	}))
	client := &http.Client{Timeout: time.Minute}
	defer client.CloseIdleConnections()
	for i := range 6 {
		resp, err := client.Get(url)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("spending token %d: %v %v", i, resp, err)
		}
		resp.Body.Close()
	}
	body := filepath.Join(t.TempDir(), "body") // not /dev/null: curl truncates the file before a retry
	out, err := exec.Command(curl, "-q", "--noproxy", "*", "-s", "-o", body, "-w", "%{http_code}",
		"--retry", "10", "--max-time", "60", url).CombinedOutput()
	if err != nil || string(out) != "200" {
		t.Fatalf("curl: %q, %v; want 200", out, err)
	}
	return fromCurl.Load()
}

// TestTrueRetryAfterRows checks WithTrueRetryAfter's value on the findings'
// counterexamples, ticks of 1 s and a clock set per request: takes at the
// given ticks, the last one limited, with the spec's Retry-After and the
// true one (the end of the bucket's step).
func TestTrueRetryAfterRows(t *testing.T) {
	tests := []struct {
		cap, refil, ivl int64
		ticks           []int64
		spec, true_     string
		reason          string
	}{
		{2, 2, 10, []int64{0, 0, 0}, "5", "10", "FIND-1 too early: a take at 5 still rejects"},
		{1, 1, 10, []int64{0, 9}, "10", "1", "FIND-1 too late: a take at 10 passes"},
		{1, 1, 10, []int64{100, 0}, "10", "110", "FIND-13: after a step back, the time left until last counts"},
		{3, 1, 60, []int64{0, 0, 0, 30}, "60", "30", "refil 1: the spec's value ignores the 30 s already waited"},
		{1, 1, 10, []int64{0, 10, 19}, "10", "1", "the step of the last refill, not of the first take"},
	}
	for _, tt := range tests {
		var tick atomic.Int64
		for _, opts := range [][]httplimit.Option{nil, {httplimit.WithTrueRetryAfter()}} {
			h := newLimiter(t, newGate(t, tt.cap, tt.refil, tt.ivl, 8, 1e9),
				append(opts, httplimit.WithClock(tick.Load))...).Wrap(ok)
			var rec *httptest.ResponseRecorder
			for _, at := range tt.ticks {
				tick.Store(at)
				rec = serve(h, get("192.0.2.1:1", nil))
			}
			want := map[bool]string{false: tt.spec, true: tt.true_}[opts != nil]
			if got := rec.Header().Get("Retry-After"); rec.Code != 503 || got != want {
				t.Errorf("%s (true wait %v): %d Retry-After %q, want 503 %q", tt.reason, opts != nil, rec.Code, got, want)
			}
		}
	}
}
