// The analyzer's test runs without the race detector, in make gotest's
// PLAINPKGS (and the !race tag keeps go test -race ./... from running it): it
// type-checks its testdata and their standard-library imports from source,
// which takes ten times as long race-instrumented (40 s against 4 s on two
// cores), and neither the analyzer nor go/analysis runs a goroutine of
// this module's.

//go:build !race

package purity_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/limcheck/limcheck/internal/purity"
)

func TestAnalyzer(t *testing.T) {
	tests := []struct {
		pkg    string
		reason string
	}{
		{"bad", "every construct the rule forbids is reported once where marked, and the _test.go file's state is not"},
		{"good", "consts, blank vars, time values, math/big, maps, slices and receiver mutation are pure"},
	}
	for _, tc := range tests {
		t.Run(tc.pkg, func(t *testing.T) {
			if tc.reason == "" {
				t.Fatalf("row %q has no reason", tc.pkg)
			}
			results := analysistest.Run(t, analysistest.TestData(), purity.Analyzer, tc.pkg)
			for _, r := range results {
				for _, err := range r.Action.Package.Errors {
					t.Errorf("analysistest.Run(%q): testdata does not compile: %v (%s)", tc.pkg, err, tc.reason)
				}
			}
		})
	}
}
