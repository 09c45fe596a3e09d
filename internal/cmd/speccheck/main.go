package main

import (
	"fmt"
	"io"
	"os"

	"github.com/limcheck/limcheck/internal/speccheck"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run checks the repository named by args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 1 || len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprintln(stderr, "usage: speccheck [root]")
		return 2
	}
	root := "."
	if len(args) == 1 {
		root = args[0]
	}
	spec, refs, err := speccheck.Load(os.DirFS(root))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	fmt.Fprint(stdout, speccheck.Report(spec, refs))
	return report(speccheck.Check(spec, refs), stderr)
}

// report prints problems and returns 1 when there are any.
func report(problems []speccheck.Problem, stderr io.Writer) int {
	for _, p := range problems {
		fmt.Fprintln(stderr, p)
	}
	if len(problems) == 0 {
		return 0
	}
	fmt.Fprintf(stderr, "speccheck: %d problems\n", len(problems))
	return 1
}
