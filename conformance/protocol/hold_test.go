package protocol

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/internal/slowdown"
	"github.com/limcheck/limcheck/oracle"
)

// stalling is the model whose instances' ops wait for release: a subject
// whose store lost its server and waits out its timeout on every op (a
// Redis store, limcheck serve -redis).
type stalling struct {
	oracle.Model
	release chan struct{}
}

func (s stalling) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	inst, class, err := s.Model.Open(c, cfg)
	return stallingInst{inst, s.release}, class, err
}

type stallingInst struct {
	oracle.Instance
	release chan struct{}
}

func (i stallingInst) Do(op oracle.Op) (oracle.Result, error) {
	<-i.release
	return i.Instance.Do(op)
}

// Serve writes a reply while a later op stalls, though more requests are
// buffered: else a port whose ops each take their store's timeout says
// nothing until the whole window is answered, and limcheck calls it hung
// (issue 27, item 9).
func TestServeWritesAReplyWhileALaterOpStalls(t *testing.T) {
	release := make(chan struct{})
	reqR, reqW := io.Pipe()
	repR, repW := io.Pipe()
	t.Cleanup(func() { // a failed test leaves no goroutine stalled
		select {
		case <-release:
		default:
			close(release)
		}
		reqW.Close()
		repR.Close()
	})
	done := make(chan error, 1)
	go func() {
		done <- Serve(reqR, repW, stalling{release: release}, Hello{Name: "stalling", Version: "1"})
		repW.Close()
	}()
	lines := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(repR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	within := slowdown.Scale(10 * time.Second)
	next := func(what string) string {
		t.Helper()
		select {
		case l := <-lines:
			return l
		case <-time.After(within):
			t.Fatalf("no %s within %v", what, within)
		}
		return ""
	}
	next("hello")
	// Both requests in one write: Serve has the second buffered when it
	// answers the first, and the second stalls.
	go reqW.Write([]byte(`{"seq":1,"inst":1,"component":"throttle","config":{"throttle":{"threshold":"3","window_secs":"100","ban_secs":"10"}},"op":"open"}` + "\n" + //nolint:errcheck // the replies tell
		`{"seq":2,"inst":1,"op":"check_any","now":"0","keys":[]}` + "\n"))
	if got, want := next("reply to the open while the next op stalls"), `{"seq":1,"result":{}}`; got != want {
		t.Fatalf("reply = %s, want %s", got, want)
	}
	close(release)
	if got := next("reply to the op once it is released"); !strings.HasPrefix(got, `{"seq":2,"result":`) {
		t.Fatalf("reply = %s, want seq 2's result", got)
	}
	reqW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
