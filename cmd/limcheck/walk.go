package main

import (
	"bufio"

	"github.com/limcheck/limcheck/conformance/report"
	"github.com/limcheck/limcheck/internal/walkthrough"
)

// walkCmd walks spec.md's worked example and findings through the model.
func (c cli) walkCmd(args []string) int {
	fs := c.flags("walk", "[-q]", "Walks spec.md's worked example and the counterexample of every finding through the\nmodel, each step against the value spec.md states.", "0 every step matches spec.md, 1 some step does not, 2 usage error, or output that\ncannot be written")
	quiet := fs.Bool("q", false, "print only failed steps and the closing line")
	if _, st := c.parse(fs, args, 0, 0); st != proceed {
		return st
	}
	out := bufio.NewWriter(c.stdout)
	if walkthrough.WriteText(out, walkthrough.All(), *quiet) > 0 {
		return c.written("walk", out, report.ExitFailed)
	}
	return c.written("walk", out, report.ExitOK)
}
