package report

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"os"
	"strings"

	"github.com/limcheck/limcheck/conformance/protocol"
)

// The JUnit XML form, as CI dashboards read it (testdata/junit/junit.xsd):
// one testsuite per port, one testcase per case, named by its ID, with
// its time, its clauses, component and level as properties, a failure
// whose message holds the expected and actual results and the fields that
// differ, and as system-err only the stderr that is the case's own.
type junitSuites struct {
	XMLName xml.Name   `xml:"testsuites"`
	Suites  []junitSet `xml:"testsuite"`
}

type junitSet struct {
	Name       string      `xml:"name,attr"`
	Tests      int         `xml:"tests,attr"`
	Failures   int         `xml:"failures,attr"`
	Errors     int         `xml:"errors,attr"`
	Skipped    int         `xml:"skipped,attr"`
	Time       string      `xml:"time,attr"`
	Properties *junitProps `xml:"properties,omitempty"`
	Cases      []junitCase `xml:"testcase"`
}

type junitProps struct {
	Props []junitProp `xml:"property"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Class      string      `xml:"classname,attr"`
	Name       string      `xml:"name,attr"`
	Time       string      `xml:"time,attr"`
	Properties *junitProps `xml:"properties,omitempty"`
	Skipped    *junitText  `xml:"skipped,omitempty"`
	Error      *junitText  `xml:"error,omitempty"`
	Failure    *junitText  `xml:"failure,omitempty"`
	Stderr     string      `xml:"system-err,omitempty"`
}

type junitText struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// props is the properties of name-value pairs kv.
func props(kv ...string) *junitProps {
	p := &junitProps{}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Props = append(p.Props, junitProp{Name: kv[i], Value: kv[i+1]})
	}
	return p
}

// seconds is s seconds as JUnit writes a time: to the microsecond, since
// a pipelined case often takes less than a millisecond.
func seconds(s float64) string { return fmt.Sprintf("%.6f", max(s, 0)) }

// junitBreak is the error testcase of a break that no case shows as
// BROKEN (at the handshake, at shutdown): without it a CI dashboard shows
// such a run as all skipped or all passed.
func (rep *Run) junitBreak() (junitCase, bool) {
	if rep.Broken == "" || rep.Summary.Broken > 0 {
		return junitCase{}, false
	}
	at := cmp.Or(rep.BrokenAt, AtRun)
	return junitCase{Class: "limcheck", Name: "limcheck: " + at, Time: seconds(0), Error: &junitText{Message: rep.Broken, Type: "protocol", Body: strings.Join(rep.BrokenStderr, "\n")}}, true
}

// junitSuite is the testsuite of one port's report.
func (rep *Run) junitSuite() junitSet {
	set := junitSet{Name: "limcheck " + cutLabel(strings.Join(strings.Fields(rep.Port.Name), " ")), Tests: len(rep.Cases), Time: seconds(rep.Elapsed.Seconds()),
		Properties: props("port.name", rep.Port.Name, "port.version", rep.Port.Version, "port.components", strings.Join(rep.Port.Components, " "),
			"spec.version", rep.SpecVersion, "protocol", protocol.Protocol, "report.format", Format)}
	brk, broke := rep.junitBreak()
	if broke {
		set.Tests++
		set.Errors++
	}
	if broke && rep.BrokenAt == AtHandshake {
		set.Cases = append(set.Cases, brk)
	}
	for _, c := range rep.Cases {
		jc := rep.junitCase(c)
		switch {
		case jc.Failure != nil:
			set.Failures++
		case jc.Error != nil:
			set.Errors++
		case jc.Skipped != nil:
			set.Skipped++
		}
		set.Cases = append(set.Cases, jc)
	}
	if broke && rep.BrokenAt != AtHandshake {
		set.Cases = append(set.Cases, brk)
	}
	return set
}

// junitCase is the testcase of the case c.
func (rep *Run) junitCase(c Case) junitCase {
	kv := []string{"component", c.Component, "level", c.Level}
	for _, id := range c.Clauses {
		kv = append(kv, "clause", id)
	}
	jc := junitCase{Class: "limcheck." + c.Component, Name: c.ID, Time: seconds(c.Seconds), Properties: props(kv...)}
	body := c.Description + "\n"
	if c.Context != "" {
		body += c.difference().Text("expected", "got")
	}
	if s := c.Stderr; s != nil && s.From == StderrAlone {
		jc.Stderr = strings.Join(s.Lines, "\n")
		if s.Alone != "" {
			body += fmt.Sprintf("alone, in a fresh port, this case was %s\n", s.Alone)
		}
	} else if s != nil {
		body += s.text() + "\n" // not the case's own: beside the failure, labelled
	}
	switch c.Verdict {
	case vFail, vXPass:
		jc.Failure = &junitText{Message: c.failureMessage(), Type: strings.ToLower(c.Verdict), Body: body}
	case vBroken:
		jc.Error = &junitText{Message: c.Why, Type: "protocol", Body: body}
	case vNotRun:
		jc.Skipped = &junitText{Message: "not run: " + rep.stopper() + " before this case"}
	case vSkip, vXFail:
		jc.Skipped = &junitText{Message: strings.ToLower(c.Verdict) + ": " + c.Why}
	}
	return jc
}

// failureMessage is a failing case's one-line summary, as dashboards list
// it: why, and at a divergence the expected and actual results and the
// fields that differ.
func (c Case) failureMessage() string {
	msg := c.Why
	if c.Context == "" {
		return msg
	}
	msg += fmt.Sprintf(": expected %s, got %s", resultText(c.Expected), resultText(c.Got))
	if len(c.Differences) > 0 {
		fields := make([]string, len(c.Differences))
		for i, d := range c.Differences {
			fields[i] = d.Field
		}
		msg += "; differing fields: " + strings.Join(fields, ", ")
	}
	return msg
}

// WriteJUnit writes the reports, one testsuite each, as JUnit XML to file.
// Each testsuite's name is "limcheck " and its port's name, white space
// collapsed, cut as a text report's label is, and made unique among them
// (uniqueNames); its properties keep the name as the port gave it.
func WriteJUnit(file string, reps ...*Run) error {
	doc := junitSuites{}
	names := make([]string, len(reps))
	for i, rep := range reps {
		doc.Suites = append(doc.Suites, rep.junitSuite())
		names[i] = doc.Suites[i].Name
	}
	for i, name := range uniqueNames(names) {
		doc.Suites[i].Name = name
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("-junit: %w", err)
	}
	if err := os.WriteFile(file, append([]byte(xml.Header), append(out, '\n')...), 0o644); err != nil {
		return fmt.Errorf("-junit: %w", err)
	}
	return nil
}
