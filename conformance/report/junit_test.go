package report

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/oracle"
)

// TestJUnitMatchesXSD checks that limcheck's JUnit XML is valid against
// testdata/junit/junit.xsd, the format as CI dashboards read it, for
// reports of every kind in one file (a testsuite per port): a run with
// divergences, every verdict with stderr and hostile text, and a break at
// the handshake. xmllint (Debian's libxml2-utils; .ci/run installs it)
// validates: without it the test fails, never skips.
func TestJUnitMatchesXSD(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Fatalf("xmllint is needed to validate the JUnit XML (apt-get install libxml2-utils): %v", err)
	}
	var lim []conformance.Case
	for _, c := range vectorCases(t) {
		if strings.HasPrefix(c.ID, "lim-find-") || strings.HasPrefix(c.ID, "lim-key-00") {
			lim = append(lim, c)
		}
	}
	rs, err := judge.RunCases(judge.SubjectRunner{S: lying{}}, lim)
	if err != nil {
		t.Fatal(err)
	}
	diverged := New(protocol.Hello{Name: "lying", Version: "1", Components: []oracle.Component{oracle.Lim}}, rs, nil, 0)

	mixed := results(judge.Pass, judge.Fail, judge.Skip, judge.Pass, judge.Broken, judge.NotRun, judge.Fail)
	mixed[1].Stderr, mixed[4].Stderr = "window <stderr> & \x1b[2J\n", "Traceback ]]> \"x\"\n"
	mixed[1].Case.Description = "a <hostile> ]]> description\x00"
	every := New(protocol.Hello{Name: "p <&>", Version: "\x07"}, mixed, map[string]bool{"c3": true, "c6": true}, 0)
	every.SetStderr(&every.Cases[6], StderrAlone, "its own\n", "PASS")
	every.Breaks(AtRun, "no reply", "")

	hs := New(protocol.Hello{Name: "sh no-hello"}, results(judge.NotRun, judge.NotRun), nil, 0)
	hs.Breaks(AtHandshake, "handshake: no hello within 1s", "boom\n")

	file := filepath.Join(t.TempDir(), "r.xml")
	if err := WriteJUnit(file, diverged, every, hs); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit/junit.xsd", file).CombinedOutput()
	if err != nil {
		data, _ := os.ReadFile(file)
		t.Fatalf("xmllint --schema junit.xsd: %v\n%s\n%s", err, out, data)
	}

	var doc junitSuites
	data, _ := os.ReadFile(file)
	if err := xml.Unmarshal(data, &doc); err != nil || len(doc.Suites) != 3 {
		t.Fatalf("the JUnit file: %d suites, %v; want 3", len(doc.Suites), err)
	}
	failed := false
	for _, c := range doc.Suites[0].Cases {
		if f := c.Failure; f != nil {
			failed = true
			if !strings.Contains(f.Message, ": expected {") || !strings.Contains(f.Message, ", got {") || !strings.Contains(f.Message, "; differing fields: ") {
				t.Errorf("failure message %q lacks the expected and actual results or the differing fields", f.Message)
			}
		}
	}
	if !failed {
		t.Errorf("the lying port's suite has no failure")
	}
	if got := doc.Suites[0].Properties; got == nil || !hasProp(got, "spec.version", SpecVersion()) || !hasProp(got, "port.name", "lying") || !hasProp(got, "port.version", "1") {
		t.Errorf("suite properties %+v lack the port's name and version and the spec version", got)
	}
	c1, c6 := doc.Suites[1].Cases[1], doc.Suites[1].Cases[6]
	if c1.Stderr != "" || !strings.Contains(c1.Failure.Body, "port stderr from the window around this case") {
		t.Errorf("a case's window stderr is not its own: want it labelled in the failure, not in system-err; got system-err %q, body %q", c1.Stderr, c1.Failure.Body)
	}
	if c6.Stderr != "its own" {
		t.Errorf("the stderr of a case run alone is its own: system-err %q, want %q", c6.Stderr, "its own")
	}
}

// hasProp reports whether p has the property name=value.
func hasProp(p *junitProps, name, value string) bool {
	for _, x := range p.Props {
		if x.Name == name && x.Value == value {
			return true
		}
	}
	return false
}
