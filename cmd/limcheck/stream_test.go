package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/conformance/report"
)

// TestLiveStreamsPlainAndShowsProgressOnATerminal checks the live report:
// each case is printed as it is added (the text never waits for the end
// unless a case waits for its re-run alone), the report's lines carry no
// terminal control (the progress line goes to stderr, and only on a
// terminal), and the progress line is cleared before the report writes.
func TestLiveStreamsPlainAndShowsProgressOnATerminal(t *testing.T) {
	var stdout, stderr bytes.Buffer
	rs := results(judge.Pass, judge.Fail, judge.Pass)
	var cs []conformance.Case
	for _, r := range rs {
		cs = append(cs, r.Case)
	}
	rf := &reportFlags{}
	c := cli{stdout: &stdout, stderr: &stderr, tty: true}
	lv := c.newLive(checkJob{cmd: "run", rf: rf, selected: cs, stream: true}, report.Start(protocol.Hello{Name: "p", Version: "1"}, nil), time.Now())
	defer lv.end()
	if !strings.HasPrefix(stdout.String(), "limcheck: port p 1 ") {
		t.Fatalf("after the hello, stdout = %q, want the report's head", stdout.String())
	}
	lv.Add(rs[0])
	if !strings.Contains(stdout.String(), "PASS   c0 ") {
		t.Errorf("after the first case, stdout = %q, want its line", stdout.String())
	}
	if !strings.Contains(stderr.String(), "\r\033[Krun: 1 of 3 cases, last c0 ") {
		t.Errorf("stderr = %q, want the progress line", stderr.String())
	}
	lv.Add(rs[1])
	lv.Add(rs[2])
	if strings.ContainsAny(stdout.String(), "\r\033") {
		t.Errorf("stdout holds terminal control: %q", stdout.String())
	}
	if !strings.Contains(stdout.String(), "FAIL   c1 ") {
		t.Errorf("stdout = %q, want every case", stdout.String())
	}
	lv.end()
	if draws, clears := strings.Count(stderr.String(), "run: "), strings.Count(stderr.String(), "\r\033[K"); clears < 2*draws {
		t.Errorf("stderr = %q: %d progress lines drawn, %d erasures; want each erased before the report writes", stderr.String(), draws, clears)
	}

	stdout.Reset()
	stderr.Reset()
	piped := cli{stdout: &stdout, stderr: &stderr} // not a terminal: no progress line
	lv2 := piped.newLive(checkJob{cmd: "run", rf: rf, selected: cs, stream: true}, report.Start(protocol.Hello{Name: "p"}, nil), time.Now())
	defer lv2.end()
	lv2.Add(rs[0])
	if stderr.Len() != 0 {
		t.Errorf("piped, stderr = %q, want nothing", stderr.String())
	}
}

// TestLiveHoldsACaseForItsRunAlone checks that a failing case whose
// stderr will be re-run alone is not printed before that re-run: the
// text waits from it on, in order.
func TestLiveHoldsACaseForItsRunAlone(t *testing.T) {
	var stdout bytes.Buffer
	rs := results(judge.Fail, judge.Pass)
	rs[0].Stderr = "noise\n"
	cs := []conformance.Case{rs[0].Case, rs[1].Case}
	lv := cli{stdout: &stdout, stderr: &bytes.Buffer{}}.newLive(checkJob{cmd: "run", rf: &reportFlags{}, selected: cs, alone: 1, stream: true}, report.Start(protocol.Hello{Name: "p"}, nil), time.Now())
	defer lv.end()
	lv.Add(rs[0])
	lv.Add(rs[1])
	if strings.Contains(stdout.String(), "c0") || strings.Contains(stdout.String(), "c1") {
		t.Errorf("stdout = %q: a case was printed before the failing case's run alone", stdout.String())
	}
	if !lv.Held {
		t.Error("the live report does not hold the failing case")
	}
}
