package main

import (
	"bufio"
	"fmt"
	"io"

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
	if walkReport(walkthrough.All(), *quiet, out) > 0 {
		return c.written("walk", out, report.ExitFailed)
	}
	return c.written("walk", out, report.ExitOK)
}

// walkReport prints the examples and the closing line, and returns the number of
// failed steps.
func walkReport(examples []walkthrough.Example, quiet bool, w io.Writer) int {
	passed, failed := 0, 0
	for _, e := range examples {
		if !quiet {
			fmt.Fprintf(w, "%s: %s\n", e.ID, e.Title)
		}
		for _, s := range e.Steps {
			if s.OK() {
				passed++
			} else {
				failed++
			}
			printStep(w, e.ID, s, quiet)
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed)
	return failed
}

// printStep prints one step: every step normally, only failures when quiet.
func printStep(w io.Writer, id string, s walkthrough.Step, quiet bool) {
	switch {
	case !s.OK():
		fmt.Fprintf(w, "  FAIL %s %s\n       got  %s\n       want %s\n", id, s.Call, s.Got, s.Want)
	case !quiet:
		fmt.Fprintf(w, "  ok   %s = %s\n", s.Call, s.Got)
	}
}
