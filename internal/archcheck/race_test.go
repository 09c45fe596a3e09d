package archcheck_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/internal/archcheck"
)

// makeList returns the words of the Makefile's "NAME := ..." line.
func makeList(t *testing.T, makefile, name string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + `\s*:=(.*)$`).FindStringSubmatch(makefile)
	if m == nil {
		t.Fatalf("the Makefile has no %q line", name+" :=")
	}
	return strings.Fields(m[1])
}

// TestEveryConcurrentTestRunsUnderTheRaceDetector: make gotest runs the
// packages of RACEPKGS with -race and those of PLAINPKGS without it. Every
// package of the module is in exactly one of them, and every package whose
// test binary runs the module's code on more than one goroutine (a go
// statement, or os/exec, os/signal or httptest, in its own or its test
// files or in a module package it reaches) is in RACEPKGS: a new
// concurrent package cannot slip out of the race detector's sight.
func TestEveryConcurrentTestRunsUnderTheRaceDetector(t *testing.T) {
	data, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	race, err := archcheck.ListPackages("../..", makeList(t, string(data), "RACEPKGS")...)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := archcheck.ListPackages("../..", makeList(t, string(data), "PLAINPKGS")...)
	if err != nil {
		t.Fatal(err)
	}
	all, err := archcheck.ListPackages("../..", "./...")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		if in, out := slices.Contains(race, p), slices.Contains(plain, p); in == out {
			t.Errorf("package %s is in %s of the Makefile's RACEPKGS and PLAINPKGS, want exactly one", p, map[bool]string{true: "both", false: "neither"}[in])
		}
	}
	conc, err := archcheck.ConcurrentTests("../..", "./...")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"cmd/limcheck", "conformance/protocol"} {
		if !conc[archcheck.Module+"/"+p] {
			t.Errorf("ConcurrentTests says %s's tests are not concurrent; the check would be vacuous", p)
		}
	}
	if conc[archcheck.Module+"/model/lim"] {
		t.Errorf("ConcurrentTests says model/lim's tests are concurrent; it has no goroutine")
	}
	for p, c := range conc {
		if c && !slices.Contains(race, p) {
			t.Errorf("package %s's test binary runs the module's code on several goroutines, but the Makefile's RACEPKGS leaves it out: add it there (and take it out of PLAINPKGS)", p)
		}
	}
	var plainOnes []string
	for _, p := range plain {
		plainOnes = append(plainOnes, strings.TrimPrefix(p, archcheck.Module+"/"))
	}
	t.Logf("without the race detector: %v", plainOnes)
}
