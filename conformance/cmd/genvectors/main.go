package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/internal/build"
	"github.com/limcheck/limcheck/conformance/internal/gen"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run parses args, generates, prints the counts and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("genvectors", flag.ContinueOnError)
	fl.SetOutput(stderr)
	specPath := fl.String("spec", "spec.md", "the spec whose version the cases carry")
	dir := fl.String("dir", "conformance/vectors", "the vectors folder to write")
	if err := fl.Parse(args); err != nil || fl.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: genvectors [-spec spec.md] [-dir conformance/vectors]")
		return 2
	}
	spec, err := os.ReadFile(*specPath)
	if err != nil {
		fmt.Fprintln(stderr, "genvectors:", err)
		return 1
	}
	version, err := conformance.SpecVersion(spec)
	if err != nil {
		fmt.Fprintln(stderr, "genvectors:", err)
		return 1
	}
	cases, err := gen.Generate(*dir, version, build.All())
	if err != nil {
		fmt.Fprintln(stderr, "genvectors:", err)
		return 1
	}
	fmt.Fprintf(stdout, "genvectors: %d cases in %s: %s\n", len(cases), *dir, counts(cases))
	return 0
}

// counts renders the number of cases per component and level.
func counts(cases []conformance.Case) string {
	var parts []string
	for _, row := range conformance.Count(cases) {
		parts = append(parts, fmt.Sprintf("%s %d core %d strict", row.Component, row.Core, row.Strict))
	}
	return strings.Join(parts, ", ")
}
