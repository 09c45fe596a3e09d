package protocol

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/conformance/judge"
)

// TestKillAllReachesAPortFromItsStart: KillAll kills a port still in its
// handshake, counts it, and refuses new ports after. KillAll is for good,
// so the test binary runs it as a child (TestMain's killall mode).
func TestKillAllReachesAPortFromItsStart(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "LIMCHECK_TEST_PORT=killall")
	out, err := cmd.CombinedOutput()
	if want := "KillAll = 1\nthe port in its handshake: broken\nafter KillAll: protocol: start port: KillAll was called: this program is stopping\n"; err != nil || string(out) != want {
		t.Errorf("killall child: %v\n%s\nwant\n%s", err, out, want)
	}
}

// killAllChild is TestMain's killall mode: a port that never says its
// hello, KillAll while StartPort waits for it, then another StartPort.
func killAllChild() {
	done := make(chan error, 1)
	go func() {
		_, err := StartPort("exec sleep 3600", PortOptions{HandshakeTimeout: time.Hour})
		done <- err
	}()
	for {
		live.Lock()
		n := len(live.procs)
		live.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	fmt.Printf("KillAll = %d\n", KillAll())
	if err := <-done; errors.Is(err, judge.ErrBroken) {
		fmt.Println("the port in its handshake: broken")
	} else {
		fmt.Printf("the port in its handshake: %v\n", err)
	}
	_, err := StartPort("exec sleep 3600", PortOptions{HandshakeTimeout: time.Hour})
	fmt.Printf("after KillAll: %v\n", err)
}

// TestShellCommandExecsOneSimpleCommand: PROTO-1: a command that is one
// simple command naming a program on PATH runs as exec, so that no shell
// holds the port's pipes; anything else runs as given.
func TestShellCommandExecsOneSimpleCommand(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "port")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]string{
		"sh driver.sh":                    "exec sh driver.sh",
		script + " --flag 2>log":          "exec " + script + " --flag 2>log",
		"  sh   x":                        "exec   sh   x",
		"no-such-program-anywhere x":      "no-such-program-anywhere x",      // sh says not found
		"cd dir && sh driver.sh":          "cd dir && sh driver.sh",          // a list
		"sh a | sh b":                     "sh a | sh b",                     // a pipeline
		"MUTANT=x sh driver.sh":           "MUTANT=x exec sh driver.sh",      // assignments first: sh gives them to the program
		" A=1  B_2=x:y/z= C= sh x":        " A=1  B_2=x:y/z= C= exec sh x",   // several, spaced
		"A=1":                             "A=1",                             // assignments alone
		"A='a b' sh x":                    "A='a b' sh x",                    // a quoted value
		"A=$HOME sh x":                    "A=$HOME sh x",                    // an expansion
		"1A=1 sh x":                       "1A=1 sh x",                       // not a name: a program's name
		"A=1 while":                       "A=1 while",                       // a reserved word
		"'sh' x":                          "'sh' x",                          // quoted
		"if true; then sh x; fi":          "if true; then sh x; fi",          // a compound command
		"sh x\nsh y":                      "sh x\nsh y",                      // two lines
		"$(echo sh) x":                    "$(echo sh) x",                    // a substitution
		"while":                           "while",                           // a reserved word
		filepath.Join(dir, "nonexistent"): filepath.Join(dir, "nonexistent"), // sh says not found
	} {
		if got := shellCommand(cmd); got != want {
			t.Errorf("shellCommand(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// TestStartPortOfACommandThatCannotRun: sh's 127 (not found) and 126
// (cannot execute) before any output are a *StartError naming the
// shell's reason, not a break.
func TestStartPortOfACommandThatCannotRun(t *testing.T) {
	noexec := filepath.Join(t.TempDir(), "port.sh")
	if err := os.WriteFile(noexec, []byte("echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]string{
		"no-such-port-command-anywhere": "no-such-port-command-anywhere: not found",
		noexec:                          "Permission denied",
	} {
		_, err := StartPort(cmd, waits(PortOptions{}))
		var se *StartError
		if !errors.As(err, &se) || errors.Is(err, judge.ErrBroken) || se.Command != cmd || !strings.HasSuffix(se.Why, want) {
			t.Errorf("StartPort(%q) = %v, want a *StartError ending %q", cmd, err, want)
		}
	}
	_, err := StartPort("echo not a hello; exit 127", waits(PortOptions{}))
	if !errors.Is(err, judge.ErrBroken) {
		t.Errorf("a port that wrote something, then exited 127: %v, want a break", err)
	}
}
