package main

import (
	"bufio"
	"fmt"

	"github.com/limcheck/limcheck"
	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/report"
	"github.com/limcheck/limcheck/internal/speccheck"
)

// coverageCmd prints spec.md's IDs by the vectors that list them.
func (c cli) coverageCmd(args []string) int {
	fs := c.flags("coverage", "[-vectors DIR]", "Prints every clause, finding and decision of spec.md with the vectors that check it,\nthen the domain extremes the vectors pass, then any gap.", "0 every clause covered, 1 a gap, 2 usage or input error, or output that cannot be\nwritten")
	vectors := fs.String("vectors", "", "read the vectors from `DIR` instead of the built-in set")
	if _, st := c.parse(fs, args, 0, 0); st != proceed {
		return st
	}
	cases, err := loadVectors(*vectors)
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck coverage: %v\n", err)
		return report.ExitUsage
	}
	spec, err := speccheck.ReadSpec(limcheck.Files)
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck coverage: %v\n", err)
		return report.ExitUsage
	}
	ids := make([]conformance.SpecID, len(spec.Defs))
	for i, d := range spec.Defs {
		ids[i] = conformance.SpecID{ID: d.ID, Retired: d.Retired, NoVector: d.NoVector}
	}
	rep := conformance.Coverage(ids, cases)
	out := bufio.NewWriter(c.stdout)
	fmt.Fprintf(out, "coverage of spec %s by %d vectors\n%s", report.SpecVersion(), len(cases), rep)
	gaps := rep.Gaps()
	for _, g := range gaps {
		fmt.Fprintf(out, "gap: %s\n", g)
	}
	if len(gaps) > 0 {
		return c.written("coverage", out, report.ExitFailed)
	}
	return c.written("coverage", out, report.ExitOK)
}
