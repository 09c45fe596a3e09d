package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
)

// RunsFormat is the value of "format" of run --json over several ports:
// the report of each port, as limcheck-report/1 gives it, side by side.
const RunsFormat = "limcheck-runs/1"

// Runs is the report of one run over several ports: a case per row, a
// port per column. Its JSON form is report.schema.json's "runs".
type Runs struct {
	Format      string        `json:"format"` // RunsFormat
	Command     string        `json:"command"`
	Status      int           `json:"status"` // the worst of the ports' statuses
	SpecVersion string        `json:"spec_version"`
	Ports       []*Run        `json:"ports"`
	Elapsed     time.Duration `json:"-"`
}

// NotStarted is the report of a port that never ran: every case NOT RUN,
// stopped by why.
func NotStarted(command string, selected []conformance.Case, expected map[string]bool, why string) *Run {
	results := make([]judge.CaseResult, len(selected))
	for i, cs := range selected {
		results[i] = judge.CaseResult{Case: cs, Verdict: judge.NotRun}
	}
	rep := New(protocol.Hello{Name: command}, results, expected, 0)
	rep.StoppedBy, rep.Incomplete = why, why
	return rep
}

// ExitStatus is the exit status of the run: a port that broke the protocol
// (3), else one that failed (1), else one whose command cannot run (2),
// else one that checked nothing (4); a signal's status wins.
func (rs *Runs) ExitStatus() int {
	st := ExitOK
	rank := func(s int) int {
		return slices.Index([]int{ExitOK, ExitIncomplete, ExitUsage, ExitFailed, ExitBroken}, s)
	}
	for _, rep := range rs.Ports {
		s := rep.ExitStatus()
		if s >= 128 {
			return s
		}
		if rank(s) > rank(st) {
			st = s
		}
	}
	return st
}

// title names the report's port: its hello's name and version, as the
// HTML page shows them (a text report shows its label).
func (rep *Run) title() string { return strings.TrimSpace(rep.Port.Name + " " + rep.Port.Version) }

// cell is a case's verdict as a cell of the table.
func cell(v string) string {
	if v == vNotRun {
		return "-"
	}
	return v
}

// WriteMatrix writes the human report of several ports: a case per row, a
// port per column; a summary per port and per clause area; then, per
// port, the cases that need attention in full, as a one-port report
// shows them.
func WriteMatrix(w io.Writer, rs *Runs, quiet bool) {
	n := len(rs.Ports[0].Cases)
	fmt.Fprintf(w, "limcheck: %d ports (%s), spec %s, %s\n", len(rs.Ports), protocol.Protocol, rs.SpecVersion, Plural(n, "case"))
	for i, rep := range rs.Ports {
		fmt.Fprintf(w, "  [%d] %s\n", i+1, rep.Label())
	}
	idWidth := 4
	for _, c := range rs.Ports[0].Cases {
		idWidth = max(idWidth, len(c.ID))
	}
	fmt.Fprintf(w, "\n%-*s", idWidth, "case")
	for i := range rs.Ports {
		fmt.Fprintf(w, "  %-6s", fmt.Sprintf("[%d]", i+1))
	}
	fmt.Fprintln(w, "  clauses")
	for k := 0; k < n; k++ {
		same := true
		for _, rep := range rs.Ports {
			same = same && (rep.Cases[k].Verdict == vPass || rep.Cases[k].Verdict == vSkip)
		}
		if quiet && same {
			continue
		}
		c := rs.Ports[0].Cases[k]
		fmt.Fprintf(w, "%-*s", idWidth, c.ID)
		for _, rep := range rs.Ports {
			fmt.Fprintf(w, "  %-6s", cell(rep.Cases[k].Verdict))
		}
		fmt.Fprintf(w, "  %s\n", strings.Join(c.Clauses, " "))
	}
	fmt.Fprintf(w, "\nby clause area (cases passed of those run):\n  %-6s", "area")
	for i := range rs.Ports {
		fmt.Fprintf(w, "  %9s", fmt.Sprintf("[%d]", i+1))
	}
	fmt.Fprintln(w)
	writeAreas(w, rs)
	fmt.Fprintln(w, "\nby port:")
	for i, rep := range rs.Ports {
		fmt.Fprintf(w, "  [%d] %s: %s\n", i+1, rep.Label(), rep.Closing())
	}
	for i, rep := range rs.Ports {
		var b strings.Builder
		for _, c := range rep.Cases {
			WriteCase(&b, c, true)
		}
		if b.Len() > 0 || rep.Broken != "" || rep.Incomplete != "" {
			fmt.Fprintf(w, "\n[%d] %s:\n%s", i+1, rep.Label(), b.String())
			rep.Streamed, rep.HeadShown = len(rep.Cases), true
			writeTail(w, rep)
		}
	}
	total := &Run{}
	for _, rep := range rs.Ports {
		s, t := rep.Summary, &total.Summary
		t.Passed, t.Failed, t.Skipped, t.Broken, t.NotRun = t.Passed+s.Passed, t.Failed+s.Failed, t.Skipped+s.Skipped, t.Broken+s.Broken, t.NotRun+s.NotRun
		t.ExpectedFailures, t.UnexpectedPasses = t.ExpectedFailures+s.ExpectedFailures, t.UnexpectedPasses+s.UnexpectedPasses
	}
	fmt.Fprintf(w, "\ntotal: %s\n", total.Closing())
}

// area is the clause area of a clause ID: the part before its number
// (LIM-7: LIM).
func area(id string) string {
	if i := strings.LastIndexByte(id, '-'); i > 0 {
		return id[:i]
	}
	return id
}

// writeAreas writes, for every clause area the cases list, how many of
// its cases each port passed of those it ran (areaCounts).
func writeAreas(w io.Writer, rs *Runs) {
	for _, a := range areaCounts(rs.Ports) {
		fmt.Fprintf(w, "  %-6s", a.area)
		for _, pc := range a.ports {
			fmt.Fprintf(w, "  %9s", fmt.Sprintf("%d/%d", pc.passed, pc.ran))
		}
		fmt.Fprintln(w)
	}
}
