package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain runs main itself when the test binary is started as the
// example (APISERVER_MAIN=1): TestServerAnswersAsDocumented runs it as a
// process of its own, as a user would.
func TestMain(m *testing.M) {
	if os.Getenv("APISERVER_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// server is the example running as a process.
type server struct {
	base string        // its URL
	cmd  *exec.Cmd     // the process
	done chan struct{} // closed when it has exited, err then set
	err  error         // what Wait returned
}

// start runs the example on a random loopback port; it is killed by its
// PID, if it still runs, when the test ends. The test fails when it
// cannot start.
func start(t *testing.T) *server {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "APISERVER_MAIN=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, done: make(chan struct{})}
	go func() { s.err = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-s.done })
	line, err := bufio.NewReader(out).ReadString('\n')
	m := regexp.MustCompile(`^apiserver: listening on (http://127\.0\.0\.1:\d+)\n$`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("first line %q (%v), want apiserver: listening on http://127.0.0.1:PORT", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	s.base = m[1]
	return s
}

// fetch sends a request of method to u with the header lines h (and the
// form, for a POST) and returns its status, its header and its body.
func fetch(t *testing.T, method, u string, h http.Header, form url.Values) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(body)
}

// TestServerAnswersAsDocumented runs the example as a process on a
// loopback port and checks what its documentation says: a wrong password
// is a 401 with the failures left and the login policy's RateLimit-Policy,
// the right one a 200; an API route without a key is a 401, with one it
// answers (with the RateLimit field) until the key's bucket of 5 is spent,
// then 429 with Retry-After, while another key still passes; and
// /metrics, which is not limited, counts each limit's decisions (the
// address's, the api policy's, the login policy's), with nothing left in
// flight. Then SIGTERM stops it cleanly.
func TestServerAnswersAsDocumented(t *testing.T) {
	s := start(t)
	base := s.base
	code, h, _ := fetch(t, http.MethodPost, base+"/login", nil, url.Values{"user": {"alice"}, "password": {"wrong"}})
	if policies := strings.Join(h.Values("RateLimit-Policy"), ", "); code != 401 || h.Get("X-RateLimit-Remaining") != "4" || !strings.Contains(policies, `"login"`) {
		t.Errorf("a wrong password: %d, X-RateLimit-Remaining %q, RateLimit-Policy %q; want 401, 4, the login policy's",
			code, h.Get("X-RateLimit-Remaining"), policies)
	}
	if code, _, body := fetch(t, http.MethodPost, base+"/login", nil, url.Values{"user": {"Alice"}, "password": {"s3cret"}}); code != 200 || body != "welcome\n" {
		t.Errorf("the right password: %d %q, want 200 welcome", code, body)
	}
	if code, h, _ := fetch(t, http.MethodGet, base+"/api/hello", nil, nil); code != 401 || h.Get("WWW-Authenticate") == "" {
		t.Errorf("GET /api/hello without a key: %d, WWW-Authenticate %q; want 401 with a challenge", code, h.Get("WWW-Authenticate"))
	}
	k1, k2 := http.Header{"X-Api-Key": {"k1"}}, http.Header{"X-Api-Key": {"k2"}}
	code, h, body := fetch(t, http.MethodGet, base+"/api/items/42", k1, nil)
	if code != 200 || body != "item 42\n" || h.Get("RateLimit") == "" {
		t.Errorf("GET /api/items/42: %d %q, RateLimit %q; want 200 item 42 and the field", code, body, h.Get("RateLimit"))
	}
	passes := 1
	for ; passes < 1000; passes++ { // a token a second: far fewer than 1000 reach the 429
		code, h, _ = fetch(t, http.MethodGet, base+"/api/hello", k1, nil)
		if code != 200 {
			break
		}
	}
	if code != 429 || h.Get("Retry-After") == "" || passes < 5 {
		t.Fatalf("after %d passes of one key: %d, Retry-After %q; want at least 5 passes (the burst), then 429 with Retry-After", passes, code, h.Get("Retry-After"))
	}
	if code, _, _ := fetch(t, http.MethodGet, base+"/api/hello", k2, nil); code != 200 {
		t.Errorf("another key after the first is limited: %d, want 200", code)
	}
	sent := 2 + 1 + passes + 1 + 1 // logins, no key, k1's passes and its 429, k2
	_, _, metrics := fetch(t, http.MethodGet, base+"/metrics", nil, nil)
	for _, want := range []string{
		series("address", "passed", sent), series("address", "limited", 0),
		series("api", "passed", passes+1), series("api", "limited", 1), series("api", "invalid", 1),
		series("login", "passed", 2),
		"httplimit_requests_in_flight 0\n",
		`httplimit_login_alarms_total{kind="pending_full"} 0` + "\n",
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, metrics)
		}
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
		if s.err != nil {
			t.Errorf("after SIGTERM: %v, want exit 0", s.err)
		}
	case <-time.After(time.Minute): // only spent when shutdown hangs
		t.Errorf("still running a minute after SIGTERM")
	}
}

// series is the exposition line of httplimit_requests_total for a policy
// (not a shadow) and result at n.
func series(policy, result string, n int) string {
	return fmt.Sprintf("httplimit_requests_total{policy=%q,result=%q,shadow=\"false\"} %d\n", policy, result, n)
}
