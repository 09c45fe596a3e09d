package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/limcheck/limcheck/conformance/report"
)

// listCmd prints the cases run's filters select, one a line: ID, level,
// component and clauses. No port runs.
func (c cli) listCmd(args []string) int {
	fs := c.flags("list", "[flags]", "Prints the cases that run would run with the same filters: ID, level, component\nand clauses, one case a line. No port is started.", "0 done, 2 usage or input error (a filter that matches nothing), or output that cannot\nbe written")
	var sel selection
	sel.register(fs)
	if _, st := c.parse(fs, args, 0, 0); st != proceed {
		return st
	}
	_, selected, err := sel.load(fs)
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck list: %v\n", err)
		return report.ExitUsage
	}
	out := bufio.NewWriter(c.stdout)
	for _, cs := range selected {
		fmt.Fprintf(out, "%-28s %-6s %-15s %s\n", report.Clean(cs.ID), report.Clean(string(cs.Level)), report.Clean(string(cs.Component)), strings.Join(report.CleanAll(cs.Clauses), " "))
	}
	return c.written("list", out, report.ExitOK)
}
