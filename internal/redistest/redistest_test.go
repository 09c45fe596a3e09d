package redistest

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// do sends one command in RESP on a fresh connection to addr and returns
// the first line of the reply.
func do(addr string, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "$") && line != "$-1" {
		line, err = r.ReadString('\n')
		line = strings.TrimSpace(line)
	}
	return line, err
}

// TestServerKeepsAcknowledgedWritesAcrossKill9: a write acknowledged before
// kill -9 is there after the restart from the append-only file
// (appendfsync always).
func TestServerKeepsAcknowledgedWritesAcrossKill9(t *testing.T) {
	s := Start(t)
	if got, err := do(s.Addr(), "SET", "k", "v1"); err != nil || got != "+OK" {
		t.Fatalf("SET = %q, %v", got, err)
	}
	s.Kill()
	if _, err := do(s.Addr(), "GET", "k"); err == nil {
		t.Fatalf("GET after kill -9 answered")
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if got, err := do(s.Addr(), "GET", "k"); err != nil || got != "v1" {
		t.Fatalf("GET after restart = %q, %v, want v1", got, err)
	}
}

// TestProxyModesFailAsNamed: Pass forwards; Refuse refuses connects; Reset
// resets them; Blackhole never answers; DropReply lets the command run and
// loses its reply.
func TestProxyModesFailAsNamed(t *testing.T) {
	s := Start(t)
	p := NewProxy(t, s.Addr())
	if got, err := do(p.Addr(), "SET", "k", "0"); err != nil || got != "+OK" {
		t.Fatalf("Pass: SET = %q, %v", got, err)
	}
	for _, m := range []Mode{Refuse, Reset, Blackhole} {
		if err := p.SetMode(m); err != nil {
			t.Fatal(err)
		}
		if got, err := do(p.Addr(), "INCR", "k"); err == nil {
			t.Fatalf("mode %d: INCR = %q, want an error", m, got)
		}
	}
	if err := p.SetMode(DropReply); err != nil {
		t.Fatal(err)
	}
	if got, err := do(p.Addr(), "INCR", "k"); err == nil {
		t.Fatalf("DropReply: INCR = %q, want an error", got)
	}
	if p.Drops() != 1 {
		t.Fatalf("Drops() = %d, want 1", p.Drops())
	}
	// DropReply went back to Pass by itself.
	// Refuse, Reset and Blackhole ran nothing; DropReply ran its INCR.
	if got, err := do(p.Addr(), "GET", "k"); err != nil || got != "1" {
		t.Fatalf("GET = %q, %v, want 1", got, err)
	}
}
