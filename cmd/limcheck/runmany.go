package main

import (
	"bufio"
	"fmt"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/report"
)

// checkMany runs selected on every port of pf.commands, one after the
// other, and reports them side by side. --timeout is the whole run's:
// every port shares one deadline, and a port it passes before is not
// started.
func (c cli) checkMany(j checkJob, all []conformance.Case) int {
	pf, rf, selected := j.pf, j.rf, j.selected
	expected, err := readExpectFail(rf.expectFail, all)
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck run: %v\n", err)
		return report.ExitUsage
	}
	rs := &report.Runs{Format: report.RunsFormat, Command: "run", SpecVersion: report.SpecVersion(), Ports: make([]*report.Run, len(pf.commands))}
	start := time.Now()
	pf.deadline = start.Add(pf.timeout)
	for i, command := range pf.commands {
		one := *pf
		one.command, one.commands = command, nil
		if time.Now().After(pf.deadline) {
			rs.Ports[i] = timedOutBefore(pf, command, selected, expected)
			continue
		}
		onStop := func(rep *report.Run) { // a signal: this port's partial report, the later ports not run
			rs.Ports[i] = rep
			for j := i + 1; j < len(rs.Ports); j++ {
				rs.Ports[j] = report.NotStarted(pf.commands[j], selected, expected, rep.StoppedBy)
				rs.Ports[j].Signal = rep.Signal
			}
			rs.Elapsed = time.Since(start)
			c.emitMany(rf, rs)
		}
		rep, _ := c.checkPort(checkJob{cmd: "run", pf: &one, rf: rf, expected: expected, selected: selected, alone: j.alone, onStop: onStop})
		if rep == nil { // the command cannot run: every case not run, status 2
			rep = report.NotStarted(command, selected, expected, "the port's command could not run")
			rep.Incomplete, rep.CannotRun = "the port's command could not run", true
		}
		rep.Command = "run"
		rs.Ports[i] = rep
	}
	rs.Elapsed = time.Since(start)
	return c.emitMany(rf, rs)
}

// timedOutBefore is the report of a port the run's --timeout passed
// before: not started, every case not run.
func timedOutBefore(pf *portFlags, command string, selected []conformance.Case, expected map[string]bool) *report.Run {
	rep := report.NotStarted(command, selected, expected, "the run's --timeout passed")
	rep.Incomplete = fmt.Sprintf("the run's --timeout (%v) passed before this port started", pf.timeout)
	rep.Command, rep.TimedOut = "run", true
	return rep
}

// emitMany writes rs in the forms rf asks for and returns its exit status.
func (c cli) emitMany(rf *reportFlags, rs *report.Runs) int {
	for _, rep := range rs.Ports {
		rep.AllowEmpty = rf.allowEmpty
		rep.Status = rep.ExitStatus()
	}
	rs.Status = rs.ExitStatus()
	status := rs.Status
	out := bufio.NewWriter(c.stdout)
	if rf.json {
		report.WriteJSON(out, rs) //nolint:errcheck // Flush returns the first write error
	} else {
		report.WriteMatrix(out, rs, rf.quiet)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(c.stderr, "limcheck run: write the report: %v\n", err)
		status = report.Worse(status, report.ExitUsage)
	}
	if rf.junit != "" {
		if err := report.WriteJUnit(rf.junit, rs.Ports...); err != nil {
			fmt.Fprintf(c.stderr, "limcheck run: %v\n", err)
			status = report.Worse(status, report.ExitUsage)
		}
	}
	if rf.html != "" {
		if err := report.WriteHTML(rf.html, rs.Ports...); err != nil {
			fmt.Fprintf(c.stderr, "limcheck run: %v\n", err)
			status = report.Worse(status, report.ExitUsage)
		}
	}
	if err := rf.ci.write(report.RunSummary("run", rs.Status, rs.Ports), report.RunBadge(rs.Status, rs.Ports)); err != nil {
		fmt.Fprintf(c.stderr, "limcheck run: %v\n", err)
		status = report.Worse(status, report.ExitUsage)
	}
	for _, rep := range rs.Ports {
		if rep.Incomplete != "" {
			fmt.Fprintf(c.stderr, "limcheck run: port %s: %s\n", rep.Label(), rep.Incomplete)
		}
	}
	return status
}
