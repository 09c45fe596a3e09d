package protocol

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
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
	if err := <-done; errors.Is(err, ErrBroken) {
		fmt.Println("the port in its handshake: broken")
	} else {
		fmt.Printf("the port in its handshake: %v\n", err)
	}
	_, err := StartPort("exec sleep 3600", PortOptions{HandshakeTimeout: time.Hour})
	fmt.Printf("after KillAll: %v\n", err)
}
