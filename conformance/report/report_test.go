package report

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
)

// results builds one CaseResult per verdict given: result i is of case
// "c<i>", of cases[i]'s component and clauses.
func results(vs ...judge.Verdict) []judge.CaseResult {
	out := make([]judge.CaseResult, len(vs))
	for i, v := range vs {
		c := cases[i%len(cases)]
		c.ID, c.Description = "c"+strconv.Itoa(i), "description "+strconv.Itoa(i)
		out[i] = judge.CaseResult{Case: c, Verdict: v, Why: "why " + strings.ToLower(string(v))}
	}
	return out
}

// TestReportVerdictsAndStatus checks how conformance verdicts and the
// -expect-fail list become report verdicts, counts and the exit status
// (PROTO-10): a listed failure is fine, a listed pass is not, and a broken
// port outranks failures.
func TestReportVerdictsAndStatus(t *testing.T) {
	P, F, S, B, N := judge.Pass, judge.Fail, judge.Skip, judge.Broken, judge.NotRun
	tests := []struct {
		vs       []judge.Verdict
		listed   []string // IDs of cases -expect-fail lists
		broken   string
		verdicts []string
		closing  string
		status   int
		reason   string
	}{
		{[]judge.Verdict{P, P, S}, nil, "", []string{vPass, vPass, vSkip}, "2 passed, 0 failed, 1 skipped", ExitOK, "skips do not fail a run"},
		{[]judge.Verdict{P, F}, nil, "", []string{vPass, vFail}, "1 passed, 1 failed, 0 skipped", ExitFailed, "a failure fails"},
		{[]judge.Verdict{P, F}, []string{"c1"}, "", []string{vPass, vXFail}, "1 passed, 0 failed, 0 skipped, 1 expected failure", ExitOK, "a listed failure is expected"},
		{[]judge.Verdict{P, F}, []string{"c0", "c1"}, "", []string{vXPass, vXFail}, "0 passed, 0 failed, 0 skipped, 1 expected failure, 1 unexpected pass", ExitFailed, "a listed case that passes fails the run"},
		{[]judge.Verdict{F, B, N, N}, nil, "no reply", []string{vFail, vBroken, vNotRun, vNotRun}, "0 passed, 1 failed, 0 skipped, 1 broken, 2 not run", ExitBroken, "a broken port outranks a failure"},
		{[]judge.Verdict{P}, nil, "exited with exit status 3 after its last reply", []string{vPass}, "1 passed, 0 failed, 0 skipped", ExitBroken, "a port that breaks at the end breaks the run though every case passed"},
		{[]judge.Verdict{S, S}, nil, "", []string{vSkip, vSkip}, "0 passed, 0 failed, 2 skipped", ExitIncomplete, "a run that executes no case checks nothing: incomplete, not a pass"},
		{[]judge.Verdict{S, F}, []string{"c1"}, "", []string{vSkip, vXFail}, "0 passed, 0 failed, 1 skipped, 1 expected failure", ExitOK, "an expected failure was executed: something was checked"},
	}
	for _, tt := range tests {
		listed := map[string]bool{}
		for _, id := range tt.listed {
			listed[id] = true
		}
		rep := New(protocol.Hello{Name: "p"}, results(tt.vs...), listed, 0)
		rep.Broken = tt.broken
		var got []string
		for _, c := range rep.Cases {
			got = append(got, c.Verdict)
		}
		if !slices.Equal(got, tt.verdicts) || rep.Closing() != tt.closing || rep.ExitStatus() != tt.status {
			t.Errorf("%v listed %v: verdicts %q, closing %q, status %d; want %q, %q, %d (%s)",
				tt.vs, tt.listed, got, rep.Closing(), rep.ExitStatus(), tt.verdicts, tt.closing, tt.status, tt.reason)
		}
	}
}

// TestWriteTextQuiet checks that -q keeps what needs attention (failures,
// unexpected passes, the break) and drops passes, skips and expected
// failures, and that not-run cases are summed up in one line, not listed.
func TestWriteTextQuiet(t *testing.T) {
	rs := results(judge.Pass, judge.Skip, judge.Fail, judge.Pass, judge.Broken, judge.NotRun, judge.NotRun)
	rs[4].Stderr = "Traceback (most recent call last):\nBoom\n"
	rep := New(protocol.Hello{Name: "p", Version: "1"}, rs, map[string]bool{"c2": true, "c3": true}, 0)
	rep.Broken = "no reply"
	var b bytes.Buffer
	WriteText(&b, rep, true)
	out := b.String()
	for _, want := range []string{
		"XPASS  c3 [GATE-5 LIM-12]\n       description 3\n       passed, but -expect-fail lists it",
		"BROKEN c4 [THR-9]\n       description 4\n       why broken\n",
		"       | Boom\n",
		"NOT RUN 2 cases: the port broke the protocol before them\n",
		"the port broke the protocol: no reply\n",
		"1 passed, 0 failed, 1 skipped, 1 expected failure, 1 unexpected pass, 1 broken, 2 not run\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("quiet report lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"PASS   c0", "SKIP   c1", "XFAIL  c2", "c5", "c6"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("quiet report has %q:\n%s", unwanted, out)
		}
	}
}

// TestWriteJUnit checks the JUnit counts CI tools read: failures are FAIL
// and XPASS, errors BROKEN, skipped SKIP, XFAIL and NOT RUN.
func TestWriteJUnit(t *testing.T) {
	rs := results(judge.Pass, judge.Fail, judge.Skip, judge.Pass, judge.Broken, judge.NotRun, judge.Fail)
	rep := New(protocol.Hello{Name: "p"}, rs, map[string]bool{"c3": true, "c6": true}, 0)
	file := filepath.Join(t.TempDir(), "r.xml")
	if err := WriteJUnit(file, rep); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the JUnit file does not parse: %v\n%s", err, data)
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d test suites, want 1", len(doc.Suites))
	}
	s := doc.Suites[0]
	// cases c0..c6: PASS, FAIL, SKIP, XPASS, BROKEN, NOT RUN, XFAIL
	if s.Tests != 7 || s.Failures != 2 || s.Errors != 1 || s.Skipped != 3 || len(s.Cases) != 7 {
		t.Errorf("suite tests=%d failures=%d errors=%d skipped=%d cases=%d; want 7, 2, 1, 3, 7", s.Tests, s.Failures, s.Errors, s.Skipped, len(s.Cases))
	}
	if c := s.Cases[1]; c.Failure == nil || c.Failure.Message != "why fail" || c.Name != "c1" || c.Class != "limcheck.lim" {
		t.Errorf("the failed case is %+v, want a failure with the why, named by its ID", c)
	}
	if c := s.Cases[1]; c.Properties == nil || !slices.Contains(c.Properties.Props, junitProp{"clause", "PROP-4"}) {
		t.Errorf("the failed case's properties are %+v, want its clauses among them", c.Properties)
	}
}

// TestDifferingFields checks the "differs" line of a failure: the keys
// TestShellQuote checks that the reproduce lines' quoting survives sh:
// the quoted string comes back unchanged, whatever it holds.
func TestShellQuote(t *testing.T) {
	for _, s := range []string{"", "fakeport lying", "it's", "''", `a"b\c$HOME` + "`x`", "two\nlines", "*; rm -rf /"} {
		out, err := exec.Command("/bin/sh", "-c", "printf %s "+ShellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh -c 'printf %%s %s' printed %q, %v; want %q", ShellQuote(s), out, err, s)
		}
	}
}

// TestLastLines checks the stderr excerpt: at most n lines, the earlier
// ones counted, not silently dropped.
func TestLastLines(t *testing.T) {
	if got := lastLines("a\nb\nc\n", 5); got != "a\nb\nc" {
		t.Errorf("lastLines(3 lines, 5) = %q, want all three", got)
	}
	if got := lastLines("a\nb\nc\nd\n", 2); got != "[2 earlier lines]\nc\nd" {
		t.Errorf("lastLines(4 lines, 2) = %q, want the count of dropped lines then the last two", got)
	}
	if got := indent("x\ny\n", "> "); got != "> x\n> y\n" {
		t.Errorf("indent = %q, want every line prefixed and one final newline", got)
	}
}
