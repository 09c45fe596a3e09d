package protocol

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/conformance/judge"
)

// TestDeadlineIsNotABreak: PortOptions.Deadline is the caller's budget;
// when it passes, judge.RunCases stops with a *judge.DeadlineError, which is not a
// *judge.BrokenError, and every case not finished is judge.NotRun, the one in flight
// too.
func TestDeadlineIsNotABreak(t *testing.T) {
	p, err := fakePort(t, PortOptions{Deadline: time.Now().Add(300 * time.Millisecond)}, echoModel(func(n int, _ string, rep []byte) (string, bool) {
		if n > 4 { // healthy, merely slow: the rest would come after the deadline
			return "", false
		}
		return string(rep) + "\n", false
	}))
	if err != nil {
		t.Fatal(err)
	}
	cases := limCases(t, 4)
	results, err := judge.RunCases(p, cases)
	var late *judge.DeadlineError
	if !errors.As(err, &late) || !errors.Is(err, judge.ErrDeadline) || errors.Is(err, judge.ErrBroken) || late.During != "the conversation" {
		t.Fatalf("judge.RunCases = %v, want a *judge.DeadlineError during the conversation, not a break", err)
	}
	for _, r := range results { // the first may pass, if the deadline came after its replies
		if r.Verdict != judge.Pass && (r.Verdict != judge.NotRun || !strings.Contains(r.Why, "deadline")) {
			t.Errorf("%s: %s (%s), want passed or not run for the deadline", r.Case.ID, r.Verdict, r.Why)
		}
	}
	if results[1].Verdict != judge.NotRun {
		t.Errorf("the case in flight is %s, want not run", results[1].Verdict)
	}
	if err := p.Close(); !errors.As(err, &late) {
		t.Errorf("Close = %v, want the same *judge.DeadlineError", err)
	}
}

// TestDeadlineBoundsTheHandshakeAndTheExitWait: the deadline cuts the
// wait for the hello and for the port's exit short, whatever
// HandshakeTimeout and ExitTimeout say, and says which.
func TestDeadlineBoundsTheHandshakeAndTheExitWait(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	start := time.Now()
	_, err := fakePort(t, PortOptions{HandshakeTimeout: time.Hour, Deadline: time.Now().Add(200 * time.Millisecond)}, func(*bufio.Scanner, io.Writer, io.Writer) {
		<-release // no hello
	})
	var late *judge.DeadlineError
	if !errors.As(err, &late) || late.During != "the handshake" {
		t.Errorf("a silent port: %v, want a *judge.DeadlineError during the handshake", err)
	}
	p, err := fakePort(t, PortOptions{ExitTimeout: time.Hour}, func(in *bufio.Scanner, out, errw io.Writer) {
		echoModel(func(_ int, _ string, rep []byte) (string, bool) { return string(rep) + "\n", false })(in, out, errw)
		<-release // stdin ended: but no exit
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := judge.RunCases(p, limCases(t, 1)); err != nil {
		t.Fatal(err)
	}
	p.opt.Deadline = time.Now().Add(200 * time.Millisecond) // it passes while Close waits, however slow the machine
	if err := p.Close(); !errors.As(err, &late) || late.During != "the port's exit" {
		t.Errorf("a port that does not exit: Close = %v, want a *judge.DeadlineError during the port's exit", err)
	}
	if d := time.Since(start); d > hangBound {
		t.Errorf("took %v: the deadline did not bound the waits", d)
	}
}
