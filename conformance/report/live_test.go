package report

import (
	"bytes"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/conformance/search"
)

// A run a signal stops keeps its cases so far, reports every other case
// NOT RUN, and carries the signal, its status 128 + sig.
func TestLiveInterruptReportsTheRestNotRun(t *testing.T) {
	rs := results(judge.Pass, judge.Pass, judge.Pass)
	cs := []conformance.Case{rs[0].Case, rs[1].Case, rs[2].Case}
	var text bytes.Buffer
	l := NewLive(Start(protocol.Hello{Name: "p"}, nil), cs, LiveOptions{Text: &text})
	l.Add(rs[0])
	l.Interrupt(syscall.SIGINT, time.Second)
	rep := l.Run
	if rep.Summary.Passed != 1 || rep.Summary.NotRun != 2 || rep.Signal != int(syscall.SIGINT) || rep.ExitStatus() != 128+int(syscall.SIGINT) {
		t.Errorf("interrupted after 1 of 3: summary %+v, signal %d, status %d; want 1 passed, 2 not run, SIGINT, 130", rep.Summary, rep.Signal, rep.ExitStatus())
	}
	if want := "limcheck was stopped (interrupt) after 1 of 3 cases"; rep.Incomplete != want {
		t.Errorf("Incomplete = %q, want %q", rep.Incomplete, want)
	}
	if !strings.Contains(text.String(), "PASS   c0 ") || rep.Streamed != 1 {
		t.Errorf("text = %q, streamed %d; want the one case run, streamed", text.String(), rep.Streamed)
	}
}

// PortProblem names what kept a port from starting and returns its
// status: 3 broken, 4 timed out, 2 a command that cannot run.
func TestPortProblemSaysWhyAndStatus(t *testing.T) {
	for _, tt := range []struct {
		err    error
		status int
		want   string
	}{
		{&judge.BrokenError{What: "no hello", Stderr: "oops\n"}, ExitBroken, `limcheck: port "./p" broke the protocol: no hello`},
		{&judge.DeadlineError{During: "handshake"}, ExitIncomplete, `limcheck: port "./p": the run's --timeout (1s) passed before its hello`},
		{errors.New("odd"), ExitUsage, "limcheck: odd"},
	} {
		var w bytes.Buffer
		if st := PortProblem(&w, "./p", time.Second, tt.err); st != tt.status || !strings.HasPrefix(w.String(), tt.want+"\n") {
			t.Errorf("PortProblem(%v) = %d, %q; want %d, %q", tt.err, st, w.String(), tt.status, tt.want)
		}
	}
}

// FuzzProgress draws the line on the first status, and not again within
// 100ms of the run's time.
func TestFuzzProgressDrawsAtMostEvery100ms(t *testing.T) {
	var w bytes.Buffer
	show := FuzzProgress(&w)
	show(search.FuzzStatus{Traces: 1, Ops: 10, Elapsed: 200 * time.Millisecond})
	show(search.FuzzStatus{Traces: 2, Ops: 20, Elapsed: 250 * time.Millisecond})
	if got := strings.Count(w.String(), "\rfuzz: "); got != 1 || !strings.Contains(w.String(), "1 traces, 10 ops run (50 ops/s)") {
		t.Errorf("progress = %q, want one line, of the first status", w.String())
	}
}
