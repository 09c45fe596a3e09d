package httplimit_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/lim"
)

// loadTally counts a load run's outcomes; safe for concurrent use.
type loadTally struct {
	mu       sync.Mutex
	passed   map[string]int64 // handler calls per client key
	statuses map[int]int64
	bad      []string // 503s whose bytes are wrong, transport errors
}

func (c *loadTally) pass(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.passed[key]++
}

func (c *loadTally) status(code int, problem string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.statuses[code]++
	if problem != "" && len(c.bad) < 10 {
		c.bad = append(c.bad, problem)
	}
}

// TestConcurrentLoad sends 8 x 500 requests through a real loopback server
// behind a trusted proxy (XFF names 8 clients) with a clock that ticks once
// per admission. Invariants: every response is 200 or an exact 503, the
// handler ran once per 200, each client passed at most cap + refil * (ticks /
// ivl) times, and nothing is in flight at the end.
func TestConcurrentLoad(t *testing.T) {
	const (
		workers, perWorker = 8, 500
		cap, refil, ivl    = 20, 1, 100
		maxif              = 2
	)
	var tick atomic.Int64
	var rejects [3]atomic.Int64 // by verdict
	hook := httplimit.WithOnReject(func(_ *http.Request, d gate.Decision) { rejects[d.Verdict].Add(1) })
	g := newGate(t, cap, refil, ivl, maxif, 1_000_000) // 1 ms ticks: every retry is 1 s
	l := newLimiter(t, g, hook, httplimit.WithClock(func() int64 { return tick.Add(1) }),
		httplimit.WithTrustedProxies(httplimit.XForwardedFor, prefixes("127.0.0.0/8", "::1/128")...))
	tally := &loadTally{passed: map[string]int64{}, statuses: map[int]int64{}}
	srv := httptest.NewServer(l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, _ := l.ClientKey(r)
		tally.pass(key)
		for range 10 {
			runtime.Gosched() // hold the place a little: some requests are shed
		}
	})))
	defer srv.Close()
	client := srv.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = workers
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range perWorker {
				tally.status(loadRequest(client, srv.URL, fmt.Sprintf("198.51.100.%d", w+1)))
			}
		})
	}
	wg.Wait()
	checkLoad(t, tally, tick.Load(), cap+refil*(tick.Load()/ivl), workers*perWorker)
	if n := g.InFlight(); n != 0 {
		t.Errorf("in flight %d after the load, want 0", n)
	}
	shed, limited := rejects[gate.Shed].Load(), rejects[gate.Limited].Load()
	if rejects[gate.Pass].Load() != 0 || shed+limited != tally.statuses[503] {
		t.Errorf("hook saw %d passes, %d sheds + %d limited for %d 503s", rejects[gate.Pass].Load(), shed, limited, tally.statuses[503])
	}
	t.Logf("sheds %d, limited %d", shed, limited)
}

// loadRequest sends one request for client and returns its status and a
// problem ("" when none).
func loadRequest(c *http.Client, url, client string) (int, string) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("X-Forwarded-For", client)
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return resp.StatusCode, err.Error()
	case resp.StatusCode == http.StatusServiceUnavailable && (string(body) != lim.Body503 || resp.Header.Get("Retry-After") != "1"):
		return resp.StatusCode, fmt.Sprintf("503 with body %q, Retry-After %q", body, resp.Header.Get("Retry-After"))
	}
	return resp.StatusCode, ""
}

// checkLoad checks the tally against the invariants of TestConcurrentLoad.
func checkLoad(t *testing.T, c *loadTally, ticks, bound int64, total int) {
	t.Helper()
	if len(c.bad) > 0 {
		t.Errorf("bad responses: %q", c.bad)
	}
	if got := c.statuses[200] + c.statuses[503]; got != int64(total) || len(c.statuses) > 2 {
		t.Errorf("statuses %v, want %d responses, all 200 or 503", c.statuses, total)
	}
	var passed int64
	for key, n := range c.passed {
		passed += n
		if n > bound {
			t.Errorf("client %s passed %d times, bound %d after %d ticks", key, n, bound, ticks)
		}
	}
	if passed != c.statuses[200] || passed == 0 {
		t.Errorf("handler ran %d times for %d 200s (want equal, > 0)", passed, c.statuses[200])
	}
	t.Logf("ticks %d, per-client bound %d, passes %v, statuses %v", ticks, bound, c.passed, c.statuses)
}
