package main

import (
	"fmt"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/report"
)

// replayCmd is `limcheck replay FILE`: one vector file (a case, or a
// counterexample fuzz wrote) on a port, alone, reported as run reports.
func (c cli) replayCmd(args []string) int {
	fs := c.flags("replay", "[flags] FILE", "Runs one vector file: a case of a vector set, or a counterexample limcheck fuzz wrote.", checkStatuses)
	var pf portFlags
	var rf reportFlags
	pf.register(fs, time.Minute)
	rf.register(fs)
	pos, st := c.parse(fs, args, 1, 1)
	if st != proceed {
		return st
	}
	if !pf.check(c, fs) {
		return report.ExitUsage
	}
	data, err := readInput(pos[0])
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck replay: %v\n", err)
		return report.ExitUsage
	}
	cs, err := conformance.Parse(data)
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck replay: %s: %v\n", pos[0], err)
		return report.ExitUsage
	}
	// Its one case ran alone in a fresh port: the stderr is all its own.
	return c.check(checkJob{cmd: "replay", pf: &pf, rf: &rf, selected: []conformance.Case{cs}, stream: true}, []conformance.Case{cs})
}
