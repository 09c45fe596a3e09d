package main

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

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/oracle"
)

// Unit tests of the pieces the scripts (testdata/script) reach only in
// part: the flag types, the case filters, the -expect-fail file, the
// report's verdicts, counts and forms, and shell quoting.

// TestListFlag checks that a list flag takes repeated and comma-separated
// values, trims them and drops empty ones, so that "--case a, b" and
// "--case a --case b" mean the same.
func TestListFlag(t *testing.T) {
	var l listFlag
	for _, v := range []string{"a, b,,c ", "", "d"} {
		if err := l.Set(v); err != nil {
			t.Fatalf("Set(%q) = %v", v, err)
		}
	}
	if want := []string{"a", "b", "c", "d"}; !slices.Equal(l, want) {
		t.Errorf("after Set: %q, want %q", l, want)
	}
	if got := l.String(); got != "a,b,c,d" {
		t.Errorf("String() = %q, want %q", got, "a,b,c,d")
	}
}

// cases is a small vector set for the filter tests.
var cases = []conformance.Case{
	{ID: "lim-take-001", Component: oracle.Lim, Level: conformance.Strict, Clauses: []string{"LIM-7"}},
	{ID: "lim-take-013", Component: oracle.Lim, Level: conformance.Core, Clauses: []string{"LIM-12", "PROP-4"}},
	{ID: "lim-key-001", Component: oracle.Lim, Level: conformance.Core, Clauses: []string{"LIM-16"}},
	{ID: "gate-admit-001", Component: oracle.Gate, Level: conformance.Core, Clauses: []string{"GATE-5", "LIM-12"}},
	{ID: "throttle-any-001", Component: oracle.Throttle, Level: conformance.Core, Clauses: []string{"THR-9"}},
}

func ids(cs []conformance.Case) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// TestSelectCases checks the filters: values of one filter are
// alternatives, filters of different kinds must all hold, strict cases
// need -strict, and the order of the vector set is kept.
func TestSelectCases(t *testing.T) {
	both := []string{"core", "strict"}
	tests := []struct {
		ids, clauses, comps []string
		levels              []string
		want                []string
		reason              string
	}{
		{nil, nil, nil, nil, []string{"lim-take-013", "lim-key-001", "gate-admit-001", "throttle-any-001"}, "no filter: every core case"},
		{nil, nil, nil, both, ids(cases), "-strict adds the strict cases, in place"},
		{[]string{"lim-*"}, nil, nil, nil, []string{"lim-take-013", "lim-key-001"}, "a glob"},
		{[]string{"lim-key-*", "gate-admit-00?"}, nil, nil, nil, []string{"lim-key-001", "gate-admit-001"}, "patterns are alternatives"},
		{nil, []string{"LIM-12"}, nil, nil, []string{"lim-take-013", "gate-admit-001"}, "a clause listed anywhere in a case"},
		{nil, []string{"LIM-16", "THR-9"}, nil, nil, []string{"lim-key-001", "throttle-any-001"}, "clauses are alternatives"},
		{nil, []string{"LIM-12"}, []string{"gate"}, nil, []string{"gate-admit-001"}, "filters of different kinds all hold"},
		{[]string{"lim-*"}, []string{"LIM-7"}, nil, both, []string{"lim-take-001"}, "a strict case with -strict"},
		{nil, []string{"LIM-1"}, nil, both, nil, "a clause is matched whole, not as a prefix"},
		{nil, []string{"LIM-1*"}, nil, nil, []string{"lim-take-013", "lim-key-001", "gate-admit-001"}, "a clause glob"},
		{nil, []string{"GATE-*", "THR-?"}, nil, nil, []string{"gate-admit-001", "throttle-any-001"}, "clause globs are alternatives"},
		{nil, nil, nil, []string{"strict"}, []string{"lim-take-001"}, "-level strict: only the strict cases"},
	}
	for _, tt := range tests {
		got, err := selectCases(cases, filters{ids: tt.ids, clauses: tt.clauses, comps: tt.comps, levels: tt.levels})
		if tt.want == nil {
			if err == nil {
				t.Errorf("selectCases(%q, %q, %q, %v) = %q, want an error (%s)", tt.ids, tt.clauses, tt.comps, tt.levels, ids(got), tt.reason)
			}
			continue
		}
		if err != nil || !slices.Equal(ids(got), tt.want) {
			t.Errorf("selectCases(%q, %q, %q, %v) = %q, %v; want %q (%s)", tt.ids, tt.clauses, tt.comps, tt.levels, ids(got), err, tt.want, tt.reason)
		}
	}
}

// TestSelectCasesErrors checks that a filter that cannot match says why,
// so that a typo is a usage error and never a vacuous pass.
func TestSelectCasesErrors(t *testing.T) {
	tests := []struct {
		ids, clauses, comps []string
		want                string
		reason              string
	}{
		{[]string{"["}, nil, nil, `-case "[": bad pattern`, "a malformed glob is reported even though it could match nothing"},
		{nil, nil, []string{"gates"}, `-component "gates": not a component`, "a misspelt component is named"},
		{[]string{"nope-*"}, nil, nil, "no case matches the filters", "nothing matches"},
		{nil, []string{"LIM-7"}, nil, "strict cases run only with -strict", "only strict cases match: the hint names -strict"},
		{nil, []string{"GATE-["}, nil, `-clause "GATE-[": bad pattern`, "a malformed clause glob is reported"},
	}
	for _, tt := range tests {
		_, err := selectCases(cases, filters{ids: tt.ids, clauses: tt.clauses, comps: tt.comps})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("selectCases(%q, %q, %q) error = %v, want one containing %q (%s)", tt.ids, tt.clauses, tt.comps, err, tt.want, tt.reason)
		}
	}
}

// TestReadExpectFail checks the -expect-fail file: one ID a line, '#'
// comments anywhere, blank lines ignored, and an ID naming no case is an
// error with its line number (a stale list must not hide a rename).
func TestReadExpectFail(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	got, err := readExpectFail("", cases)
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf(`readExpectFail("") = %v, %v; want an empty map: no file lists nothing`, got, err)
	}

	good := write("good.txt", "# known failures\n\n  lim-key-001   # trailing comment\ngate-admit-001 extra words\n#lim-take-013\n")
	got, err = readExpectFail(good, cases)
	if err != nil {
		t.Fatalf("readExpectFail(good) error: %v", err)
	}
	if want := map[string]bool{"lim-key-001": true, "gate-admit-001": true}; len(got) != len(want) || !got["lim-key-001"] || !got["gate-admit-001"] {
		t.Errorf("readExpectFail(good) = %v, want %v (comments and blank lines skipped, first field taken)", got, want)
	}

	bad := write("bad.txt", "lim-key-001\n\nlim-key-999\n")
	if _, err := readExpectFail(bad, cases); err == nil || !strings.Contains(err.Error(), "bad.txt:3") || !strings.Contains(err.Error(), `"lim-key-999" names no case`) {
		t.Errorf("readExpectFail(bad) error = %v, want one naming bad.txt:3 and the unknown ID", err)
	}

	if _, err := readExpectFail(filepath.Join(dir, "missing.txt"), cases); err == nil || !strings.Contains(err.Error(), "-expect-fail") {
		t.Errorf("readExpectFail(missing) error = %v, want one naming -expect-fail", err)
	}
}

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
		{[]judge.Verdict{P, P, S}, nil, "", []string{vPass, vPass, vSkip}, "2 passed, 0 failed, 1 skipped", exitOK, "skips do not fail a run"},
		{[]judge.Verdict{P, F}, nil, "", []string{vPass, vFail}, "1 passed, 1 failed, 0 skipped", exitFailed, "a failure fails"},
		{[]judge.Verdict{P, F}, []string{"c1"}, "", []string{vPass, vXFail}, "1 passed, 0 failed, 0 skipped, 1 expected failure", exitOK, "a listed failure is expected"},
		{[]judge.Verdict{P, F}, []string{"c0", "c1"}, "", []string{vXPass, vXFail}, "0 passed, 0 failed, 0 skipped, 1 expected failure, 1 unexpected pass", exitFailed, "a listed case that passes fails the run"},
		{[]judge.Verdict{F, B, N, N}, nil, "no reply", []string{vFail, vBroken, vNotRun, vNotRun}, "0 passed, 1 failed, 0 skipped, 1 broken, 2 not run", exitBroken, "a broken port outranks a failure"},
		{[]judge.Verdict{P}, nil, "exited with exit status 3 after its last reply", []string{vPass}, "1 passed, 0 failed, 0 skipped", exitBroken, "a port that breaks at the end breaks the run though every case passed"},
		{[]judge.Verdict{S, S}, nil, "", []string{vSkip, vSkip}, "0 passed, 0 failed, 2 skipped", exitIncomplete, "a run that executes no case checks nothing: incomplete, not a pass"},
		{[]judge.Verdict{S, F}, []string{"c1"}, "", []string{vSkip, vXFail}, "0 passed, 0 failed, 1 skipped, 1 expected failure", exitOK, "an expected failure was executed: something was checked"},
	}
	for _, tt := range tests {
		listed := map[string]bool{}
		for _, id := range tt.listed {
			listed[id] = true
		}
		rep := newReport(protocol.Hello{Name: "p"}, results(tt.vs...), listed, 0)
		rep.Broken = tt.broken
		var got []string
		for _, c := range rep.Cases {
			got = append(got, c.Verdict)
		}
		if !slices.Equal(got, tt.verdicts) || rep.closing() != tt.closing || rep.status() != tt.status {
			t.Errorf("%v listed %v: verdicts %q, closing %q, status %d; want %q, %q, %d (%s)",
				tt.vs, tt.listed, got, rep.closing(), rep.status(), tt.verdicts, tt.closing, tt.status, tt.reason)
		}
	}
}

// TestWriteTextQuiet checks that -q keeps what needs attention (failures,
// unexpected passes, the break) and drops passes, skips and expected
// failures, and that not-run cases are summed up in one line, not listed.
func TestWriteTextQuiet(t *testing.T) {
	rs := results(judge.Pass, judge.Skip, judge.Fail, judge.Pass, judge.Broken, judge.NotRun, judge.NotRun)
	rs[4].Stderr = "Traceback (most recent call last):\nBoom\n"
	rep := newReport(protocol.Hello{Name: "p", Version: "1"}, rs, map[string]bool{"c2": true, "c3": true}, 0)
	rep.Broken = "no reply"
	var b bytes.Buffer
	writeText(&b, rep, true)
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
	rep := newReport(protocol.Hello{Name: "p"}, rs, map[string]bool{"c3": true, "c6": true}, 0)
	file := filepath.Join(t.TempDir(), "r.xml")
	if err := writeJUnit(file, rep); err != nil {
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
		out, err := exec.Command("/bin/sh", "-c", "printf %s "+shellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh -c 'printf %%s %s' printed %q, %v; want %q", shellQuote(s), out, err, s)
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

// TestLoadVectorsErrors checks that -vectors explains what is wrong with
// the folder instead of running nothing.
func TestLoadVectorsErrors(t *testing.T) {
	if all, err := loadVectors(""); err != nil || len(all) == 0 {
		t.Errorf(`loadVectors("") = %d cases, %v; want the built-in set`, len(all), err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "case.json")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ dir, want, reason string }{
		{file, "not a directory (replay runs one file)", "a file: point at replay"},
		{filepath.Join(dir, "missing"), "no such file", "a missing folder"},
		{t.TempDir(), "no case files", "an empty folder would pass vacuously"},
	} {
		if _, err := loadVectors(tt.dir); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("loadVectors(%s) error = %v, want one containing %q (%s)", tt.dir, err, tt.want, tt.reason)
		}
	}
}

// TestRunInProcess checks run, main without the process: without --port
// the bundled implementation is served in process, and the statuses are
// those of the real command.
func TestRunInProcess(t *testing.T) {
	var out, errOut bytes.Buffer
	// Branch gate2: a throttle case, not gate-admit-001, which the bundled port declines
	// until gatefast's impl/gate 2.0 (gatefast restores it).
	if got := run([]string{"run", "--case", "lim-key-*,throttle-any-001", "-q"}, &out, &errOut); got != exitOK {
		t.Fatalf("run(run --case ...) = %d, want %d\nstdout:\n%s\nstderr:\n%s", got, exitOK, out.String(), errOut.String())
	}
	if !strings.HasPrefix(out.String(), "limcheck: port limcheck-go ") || !strings.HasSuffix(out.String(), " passed, 0 failed, 0 skipped\n") {
		t.Errorf("run(run --case ...) printed %q, want the bundled port's header and a clean closing line", out.String())
	}
	out.Reset()
	errOut.Reset()
	if got := run([]string{"run", "--component", "nope"}, &out, &errOut); got != exitUsage || out.Len() != 0 || !strings.Contains(errOut.String(), `"nope": not a component`) {
		t.Errorf("run(run --component nope) = %d, stdout %q, stderr %q; want %d, nothing, the reason", got, out.String(), errOut.String(), exitUsage)
	}
}
