package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/limcheck/limcheck/internal/walkthrough"
)

// Exit statuses, documented in doc.go and the README.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is main without the process: it parses args, writes the report to
// stdout and diagnostics to stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("limcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quiet := fs.Bool("q", false, "print only failed steps and the closing line")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: limcheck [-q]\n\nWalks spec.md's worked example and findings through the model.\nExit status: 0 all matched, 1 some step differs from spec.md, 2 usage error.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "limcheck: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	if report(walkthrough.All(), *quiet, stdout) > 0 {
		return exitFailed
	}
	return exitOK
}

// report prints the examples and the closing line, and returns the number of
// failed steps.
func report(examples []walkthrough.Example, quiet bool, w io.Writer) int {
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
