package main

import (
	"bufio"
	"fmt"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/conformance/report"
)

// versionCmd prints limcheck's version and the versions of what it
// speaks: spec.md, the port protocol, the vector and report formats.
func (c cli) versionCmd(args []string) int {
	fs := c.flags("version", "", "Prints limcheck's version, the spec version its vectors and model are of, the port\nprotocol and the vector and report formats.", toolStatuses)
	if _, st := c.parse(fs, args, 0, 0); st != proceed {
		return st
	}
	out := bufio.NewWriter(c.stdout)
	fmt.Fprintf(out, "limcheck %s\nspec %s\nprotocol %s\nvectors %s\nreport %s\n", report.ToolVersion(), report.SpecVersion(), protocol.Protocol, conformance.Format, report.Format)
	return c.written("version", out, report.ExitOK)
}
