package protocol

import (
	"strings"
	"testing"
)

// After Close, Stderr holds all the port wrote on stderr, even what it
// wrote after its stdin closed.
func TestStderrAfterCloseHoldsEverything(t *testing.T) {
	hello := `{"protocol":"limcheck-port/3","name":"sh","version":"1","components":["lim"]}`
	p, err := StartPort(`echo early >&2; echo '`+hello+`'; cat >/dev/null; echo late >&2`, waits(PortOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if got := p.Stderr(); got != "early\nlate\n" {
		t.Errorf("Stderr() after Close = %q, want %q", got, "early\nlate\n")
	}
}

// A port in process writes no stderr.
func TestStderrInProcessIsEmpty(t *testing.T) {
	p, err := ServePipe(huge{}, Hello{Name: "x", Version: "1"}, waits(PortOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	p.Close() //nolint:errcheck // only Stderr is checked
	if got := p.Stderr(); strings.TrimSpace(got) != "" {
		t.Errorf("Stderr() of a port in process = %q, want nothing", got)
	}
}
