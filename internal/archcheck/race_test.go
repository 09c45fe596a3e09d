package archcheck_test

import (
	"os"
	"path/filepath"
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

// makePackages returns the module's packages that the Makefile's "NAME :=
// ..." line lists (patterns as go list takes them).
func makePackages(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := archcheck.ListPackages("../..", makeList(t, string(data), name)...)
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestEveryConcurrentTestRunsUnderTheRaceDetector: make gotest runs the
// packages of RACEPKGS with -race and those of PLAINPKGS without it. Every
// package of the module is in exactly one of them, and every package whose
// test binary runs the module's code on more than one goroutine (a go
// statement, or os/exec, os/signal or httptest, in its own or its test
// files or in a module package it reaches) is in RACEPKGS: a new
// concurrent package cannot slip out of the race detector's sight.
func TestEveryConcurrentTestRunsUnderTheRaceDetector(t *testing.T) {
	race, plain := makePackages(t, "RACEPKGS"), makePackages(t, "PLAINPKGS")
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

// TestEveryRaceFreeTestIsFoundByTheMakefile: make gotest runs the tests of
// the RACEPKGS files built only without the race detector (a line
// //go:build ... !race) in the plain build, by names that sed reads from
// lines of the form "func TestX(t *testing.T)" (RACEFREETESTS): a test
// declared otherwise (another parameter name, split over lines) would be
// built by neither go test, a check make test skips in silence. Every test
// of such a file outside cmd/limcheck (make cli runs that package's plain
// build whole) must be declared in that form.
func TestEveryRaceFreeTestIsFoundByTheMakefile(t *testing.T) {
	race := makePackages(t, "RACEPKGS")
	raceFree := regexp.MustCompile(`(?m)^//go:build .*!race`)
	anyTest := regexp.MustCompile(`(?m)^func (Test\w*)\(.*$`)
	sedForm := regexp.MustCompile(`^func Test[A-Za-z0-9_]*\(t \*testing\.T\)`)
	found := 0
	for _, p := range race {
		rel := strings.TrimPrefix(p, archcheck.Module+"/")
		if rel == "cmd/limcheck" {
			continue
		}
		files, err := filepath.Glob(filepath.Join("../..", rel, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !raceFree.Match(src) {
				continue
			}
			for _, m := range anyTest.FindAllStringSubmatch(string(src), -1) {
				found++
				if !sedForm.MatchString(m[0]) {
					t.Errorf("%s: %q is built only without the race detector, and the Makefile's RACEFREETESTS reads only \"func TestX(t *testing.T)\": declare it so, or make test never runs it", f, m[0])
				}
			}
		}
	}
	if found == 0 {
		t.Errorf("found no test built only without the race detector outside cmd/limcheck; the check would be vacuous")
	}
}
