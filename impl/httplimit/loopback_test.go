package httplimit_test

import (
	"errors"
	"net"
	"net/http"
	"testing"
	"time"
)

// loopback serves h on a real http.Server listening on 127.0.0.1:0 (a
// loopback address only) and returns its base URL; the server is closed
// when the test ends.
func loopback(t testing.TB, h http.Handler) string {
	t.Helper()
	return loopbackServer(t, &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second})
}

// loopbackServer is loopback with the server srv (its handler and
// timeouts).
func loopbackServer(t testing.TB, srv *http.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("loopback server: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// waitFor polls cond until it holds, failing t after a minute: long enough
// for a loaded machine, and only spent when the code under test is broken.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
