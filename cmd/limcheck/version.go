package main

import (
	"bufio"
	"fmt"
	"runtime/debug"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/protocol"
)

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
