package redistest

import (
	"strings"
	"testing"
)

// TestServerKeepsAcknowledgedWritesAcrossKill9: a write acknowledged before
// kill -9 is there after the restart from the append-only file
// (appendfsync always).
func TestServerKeepsAcknowledgedWritesAcrossKill9(t *testing.T) {
	s := Start(t)
	if got, err := command(s.Addr(), "SET", "k", "v1"); err != nil || got != "+OK" {
		t.Fatalf("SET = %q, %v", got, err)
	}
	s.Kill()
	if _, err := command(s.Addr(), "GET", "k"); err == nil {
		t.Fatalf("GET after kill -9 answered")
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if got, err := command(s.Addr(), "GET", "k"); err != nil || got != "v1" {
		t.Fatalf("GET after restart = %q, %v, want v1", got, err)
	}
}

// TestNoFsyncServerRunsWithoutFsyncAndRefusesARestart: Start's server
// fsyncs before every reply (appendfsync always, DIST-7), NoFsync's never;
// and Restart refuses the latter, naming why, so that no durability test
// runs on a server that does not fsync.
func TestNoFsyncServerRunsWithoutFsyncAndRefusesARestart(t *testing.T) {
	for _, tc := range []struct {
		srv  *Server
		want string
	}{{Start(t), "always"}, {StartWith(t, NoFsync()...), "no"}} {
		got, err := Do(tc.srv.Addr(), "CONFIG", "GET", "appendfsync")
		if arr, ok := got.([]any); err != nil || !ok || len(arr) != 2 || arr[1] != tc.want {
			t.Errorf("CONFIG GET appendfsync = %v, %v; want [appendfsync %s]", got, err, tc.want)
		}
	}
	s := StartWith(t, NoFsync()...)
	s.Kill()
	if err := s.Restart(); err == nil || !strings.Contains(err.Error(), "appendfsync no") {
		t.Fatalf("Restart() of a NoFsync server = %v, want an error naming appendfsync no", err)
	}
}

// TestProxyModesFailAsNamed: Pass forwards; Refuse refuses connects; Reset
// resets them; Blackhole never answers; DropReply lets the command run and
// loses its reply.
func TestProxyModesFailAsNamed(t *testing.T) {
	s := Start(t)
	p := NewProxy(t, s.Addr())
	if got, err := command(p.Addr(), "SET", "k", "0"); err != nil || got != "+OK" {
		t.Fatalf("Pass: SET = %q, %v", got, err)
	}
	for _, m := range []Mode{Refuse, Reset, Blackhole} {
		if err := p.SetMode(m); err != nil {
			t.Fatal(err)
		}
		if got, err := command(p.Addr(), "INCR", "k"); err == nil {
			t.Fatalf("mode %d: INCR = %q, want an error", m, got)
		}
	}
	if err := p.SetMode(DropReply); err != nil {
		t.Fatal(err)
	}
	if got, err := command(p.Addr(), "INCR", "k"); err == nil {
		t.Fatalf("DropReply: INCR = %q, want an error", got)
	}
	if p.Drops() != 1 {
		t.Fatalf("Drops() = %d, want 1", p.Drops())
	}
	// DropReply went back to Pass by itself.
	// Refuse, Reset and Blackhole ran nothing; DropReply ran its INCR.
	if got, err := command(p.Addr(), "GET", "k"); err != nil || got != "1" {
		t.Fatalf("GET = %q, %v, want 1", got, err)
	}
}

// TestSwapRunsTheReplacementOfASwappedScriptOnly: through a Swap, EVALSHA
// and EVALSHA_RO of a swapped script's SHA-1 run its replacement; any
// other command, an EVALSHA of another SHA included, reaches the server as
// sent.
func TestSwapRunsTheReplacementOfASwappedScriptOnly(t *testing.T) {
	s := Start(t)
	const orig = "#!lua flags=no-writes\nreturn 1"
	sw := NewSwap(t, s.Addr(), map[string]string{orig: "#!lua flags=no-writes\nreturn 2"})
	sha, err := command(s.Addr(), "SCRIPT", "LOAD", orig)
	if err != nil {
		t.Fatal(err)
	}
	for _, eval := range []string{"EVALSHA", "evalsha_ro"} {
		if got, err := command(sw.Addr(), eval, sha, "0"); err != nil || got != ":2" {
			t.Errorf("%s(orig) through the swap = %q, %v; want :2 (the replacement)", eval, got, err)
		}
	}
	if got, err := command(s.Addr(), "EVALSHA", sha, "0"); err != nil || got != ":1" {
		t.Errorf("EVALSHA(orig) direct = %q, %v; want :1", got, err)
	}
	other, err := command(s.Addr(), "SCRIPT", "LOAD", "return 3")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := command(sw.Addr(), "EVALSHA", other, "0"); err != nil || got != ":3" {
		t.Errorf("EVALSHA(another script) through the swap = %q, %v; want :3", got, err)
	}
	if got, err := command(sw.Addr(), "SET", "k", "v"); err != nil || got != "+OK" {
		t.Errorf("SET through the swap = %q, %v", got, err)
	}
	if sw.Swaps() != 2 || sw.Err() != nil {
		t.Errorf("Swaps() = %d, Err() = %v; want 2, nil", sw.Swaps(), sw.Err())
	}
}
