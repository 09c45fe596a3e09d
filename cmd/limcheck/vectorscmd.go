package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/limcheck/limcheck/conformance/report"
)

// vectorsCmd is `limcheck vectors export DIR`.
func (c cli) vectorsCmd(args []string) int {
	fs := c.flags("vectors", "export [-force] DIR", "Writes the conformance vectors (one file per case, schema.json, ids.txt), the port\nprotocol's schema (protocol.schema.json) and the --json report's (report.schema.json) to DIR.", toolStatuses)
	force := fs.Bool("force", false, "write into DIR even when it is not empty (never through a symbolic link in it: one where a file or folder goes is refused)")
	switch {
	case len(args) == 0:
		fmt.Fprintln(c.stderr, "limcheck vectors: missing subcommand (want export DIR)")
		fs.Usage()
		return report.ExitUsage
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help":
		fs.Usage()
		return report.ExitOK
	case args[0] != "export":
		fmt.Fprintf(c.stderr, "limcheck vectors: unknown subcommand %q (want export)\n", args[0])
		fs.Usage()
		return report.ExitUsage
	}
	pos, st := c.parse(fs, args[1:], 1, 1)
	if st != proceed {
		return st
	}
	dir := pos[0]
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 && !*force {
		fmt.Fprintf(c.stderr, "limcheck vectors export: %s is not empty (use -force to write into it)\n", dir)
		return report.ExitUsage
	}
	n, err := report.Export(dir)
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck vectors export: %v\n", err)
		return report.ExitUsage
	}
	out := bufio.NewWriter(c.stdout)
	fmt.Fprintf(out, "wrote %d cases, schema.json, ids.txt, protocol.schema.json and %s to %s (spec %s)\n", n, report.SchemaFile, dir, report.SpecVersion())
	return c.written("vectors export", out, report.ExitOK)
}
