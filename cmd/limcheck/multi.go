package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
)

// runsFormat is the value of "format" of run --json over several ports:
// the report of each port, as limcheck-report/1 gives it, side by side.
const runsFormat = "limcheck-runs/1"

// runs is the report of one run over several ports: a case per row, a
// port per column. Its JSON form is report.schema.json's "runs".
type runs struct {
	Format      string        `json:"format"` // runsFormat
	Command     string        `json:"command"`
	Status      int           `json:"status"` // the worst of the ports' statuses
	SpecVersion string        `json:"spec_version"`
	Ports       []*report     `json:"ports"`
	Elapsed     time.Duration `json:"-"`
}

// checkMany runs selected on every port of pf.commands, one after the
// other, and reports them side by side. --timeout is the whole run's:
// every port shares one deadline, and a port it passes before is not
// started.
func (c cli) checkMany(j checkJob, all []conformance.Case) int {
	pf, rf, selected := j.pf, j.rf, j.selected
	expected, err := readExpectFail(rf.expectFail, all)
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck run: %v\n", err)
		return exitUsage
	}
	rs := &runs{Format: runsFormat, Command: "run", SpecVersion: specVersion(), Ports: make([]*report, len(pf.commands))}
	start := time.Now()
	pf.deadline = start.Add(pf.timeout)
	for i, command := range pf.commands {
		one := *pf
		one.command, one.commands = command, nil
		if time.Now().After(pf.deadline) {
			rs.Ports[i] = timedOutBefore(pf, command, selected, expected)
			continue
		}
		onStop := func(rep *report) { // a signal: this port's partial report, the later ports not run
			rs.Ports[i] = rep
			for j := i + 1; j < len(rs.Ports); j++ {
				rs.Ports[j] = notStarted(pf.commands[j], selected, expected, rep.stoppedBy)
				rs.Ports[j].signal = rep.signal
			}
			rs.Elapsed = time.Since(start)
			c.emitMany(rf, rs)
		}
		rep, _ := c.checkPort(checkJob{cmd: "run", pf: &one, rf: rf, expected: expected, selected: selected, alone: j.alone, onStop: onStop})
		if rep == nil { // the command cannot run: every case not run, status 2
			rep = notStarted(command, selected, expected, "the port's command could not run")
			rep.Incomplete, rep.cannotRun = "the port's command could not run", true
		}
		rep.Command = "run"
		rs.Ports[i] = rep
	}
	rs.Elapsed = time.Since(start)
	return c.emitMany(rf, rs)
}

// timedOutBefore is the report of a port the run's --timeout passed
// before: not started, every case not run.
func timedOutBefore(pf *portFlags, command string, selected []conformance.Case, expected map[string]bool) *report {
	rep := notStarted(command, selected, expected, "the run's --timeout passed")
	rep.Incomplete = fmt.Sprintf("the run's --timeout (%v) passed before this port started", pf.timeout)
	rep.Command, rep.timedOut = "run", true
	return rep
}

// notStarted is the report of a port that never ran: every case NOT RUN,
// stopped by why.
func notStarted(command string, selected []conformance.Case, expected map[string]bool, why string) *report {
	results := make([]judge.CaseResult, len(selected))
	for i, cs := range selected {
		results[i] = judge.CaseResult{Case: cs, Verdict: judge.NotRun}
	}
	rep := newReport(protocol.Hello{Name: command}, results, expected, 0)
	rep.stoppedBy, rep.Incomplete = why, why
	return rep
}

// status is the exit status of the run: a port that broke the protocol
// (3), else one that failed (1), else one whose command cannot run (2),
// else one that checked nothing (4); a signal's status wins.
func (rs *runs) status() int {
	st := exitOK
	rank := func(s int) int {
		return slices.Index([]int{exitOK, exitIncomplete, exitUsage, exitFailed, exitBroken}, s)
	}
	for _, rep := range rs.Ports {
		s := rep.status()
		if s >= 128 {
			return s
		}
		if rank(s) > rank(st) {
			st = s
		}
	}
	return st
}

// emitMany writes rs in the forms rf asks for and returns its exit status.
func (c cli) emitMany(rf *reportFlags, rs *runs) int {
	for _, rep := range rs.Ports {
		rep.allowEmpty = rf.allowEmpty
		rep.Status = rep.status()
	}
	rs.Status = rs.status()
	status := rs.Status
	out := bufio.NewWriter(c.stdout)
	if rf.json {
		writeJSON(out, rs) //nolint:errcheck // Flush returns the first write error
	} else {
		writeMatrix(out, rs, rf.quiet)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(c.stderr, "limcheck run: write the report: %v\n", err)
		status = worse(status, exitUsage)
	}
	if rf.junit != "" {
		if err := writeJUnit(rf.junit, rs.Ports...); err != nil {
			fmt.Fprintf(c.stderr, "limcheck run: %v\n", err)
			status = worse(status, exitUsage)
		}
	}
	if rf.html != "" {
		if err := writeHTML(rf.html, rs.Ports...); err != nil {
			fmt.Fprintf(c.stderr, "limcheck run: %v\n", err)
			status = worse(status, exitUsage)
		}
	}
	if err := rf.ci.write(runSummary("run", rs.Status, rs.Ports), runBadge(rs.Status, rs.Ports)); err != nil {
		fmt.Fprintf(c.stderr, "limcheck run: %v\n", err)
		status = worse(status, exitUsage)
	}
	for _, rep := range rs.Ports {
		if rep.Incomplete != "" {
			fmt.Fprintf(c.stderr, "limcheck run: port %s: %s\n", rep.label(), rep.Incomplete)
		}
	}
	return status
}

// title names the report's port: its hello's name and version, as the
// HTML page shows them (a text report shows its label).
func (rep *report) title() string { return strings.TrimSpace(rep.Port.Name + " " + rep.Port.Version) }

// cell is a case's verdict as a cell of the table.
func cell(v string) string {
	if v == vNotRun {
		return "-"
	}
	return v
}

// writeMatrix writes the human report of several ports: a case per row, a
// port per column; a summary per port and per clause area; then, per
// port, the cases that need attention in full, as a one-port report
// shows them.
func writeMatrix(w io.Writer, rs *runs, quiet bool) {
	n := len(rs.Ports[0].Cases)
	fmt.Fprintf(w, "limcheck: %d ports (%s), spec %s, %s\n", len(rs.Ports), protocol.Protocol, rs.SpecVersion, plural(n, "case"))
	for i, rep := range rs.Ports {
		fmt.Fprintf(w, "  [%d] %s\n", i+1, rep.label())
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
		fmt.Fprintf(w, "  [%d] %s: %s\n", i+1, rep.label(), rep.closing())
	}
	for i, rep := range rs.Ports {
		var b strings.Builder
		for _, c := range rep.Cases {
			writeCase(&b, c, true)
		}
		if b.Len() > 0 || rep.Broken != "" || rep.Incomplete != "" {
			fmt.Fprintf(w, "\n[%d] %s:\n%s", i+1, rep.label(), b.String())
			rep.streamed, rep.headShown = len(rep.Cases), true
			writeTail(w, rep)
		}
	}
	total := &report{}
	for _, rep := range rs.Ports {
		s, t := rep.Summary, &total.Summary
		t.Passed, t.Failed, t.Skipped, t.Broken, t.NotRun = t.Passed+s.Passed, t.Failed+s.Failed, t.Skipped+s.Skipped, t.Broken+s.Broken, t.NotRun+s.NotRun
		t.ExpectedFailures, t.UnexpectedPasses = t.ExpectedFailures+s.ExpectedFailures, t.UnexpectedPasses+s.UnexpectedPasses
	}
	fmt.Fprintf(w, "\ntotal: %s\n", total.closing())
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
func writeAreas(w io.Writer, rs *runs) {
	for _, a := range areaCounts(rs.Ports) {
		fmt.Fprintf(w, "  %-6s", a.area)
		for _, pc := range a.ports {
			fmt.Fprintf(w, "  %9s", fmt.Sprintf("%d/%d", pc.passed, pc.ran))
		}
		fmt.Fprintln(w)
	}
}
