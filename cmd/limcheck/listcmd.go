package main

import (
	"bufio"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/protocol"
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
		return exitUsage
	}
	out := bufio.NewWriter(c.stdout)
	for _, cs := range selected {
		fmt.Fprintf(out, "%-28s %-6s %-15s %s\n", clean(cs.ID), clean(string(cs.Level)), clean(string(cs.Component)), strings.Join(cleanAll(cs.Clauses), " "))
	}
	return c.written("list", out, exitOK)
}

// versionCmd prints limcheck's version and the versions of what it
// speaks: spec.md, the port protocol, the vector and report formats.
func (c cli) versionCmd(args []string) int {
	fs := c.flags("version", "", "Prints limcheck's version, the spec version its vectors and model are of, the port\nprotocol and the vector and report formats.", toolStatuses)
	if _, st := c.parse(fs, args, 0, 0); st != proceed {
		return st
	}
	out := bufio.NewWriter(c.stdout)
	fmt.Fprintf(out, "limcheck %s\nspec %s\nprotocol %s\nvectors %s\nreport %s\n", toolVersion(), specVersion(), protocol.Protocol, conformance.Format, reportFormat)
	return c.written("version", out, exitOK)
}

// toolVersion is limcheck's module version, with the commit it was built
// from when the build recorded one: "(devel)" for a build in the module.
func toolVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
		if s.Key == "vcs.modified" && s.Value == "true" {
			v += "+dirty"
		}
	}
	return v
}
