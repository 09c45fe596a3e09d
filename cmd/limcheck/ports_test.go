package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The reference ports (spec.md alone, ports/python and ports/js) run as
// real processes under the real CLI. .ci/run installs python3 and node.
var referencePorts = []struct{ name, bin, driver string }{
	{"python", "python3", "../../ports/python/driver.py"},
	{"js", "node", "../../ports/js/driver.js"},
}

// portCommand is the --port command of a reference port, with mutant
// planted when it is not empty.
func portCommand(t *testing.T, bin, driver, mutant string) string {
	t.Helper()
	if _, err := exec.LookPath(bin); err != nil {
		t.Fatalf("%s is not installed: the reference port tests need it (.ci/run installs it)", bin)
	}
	abs, err := filepath.Abs(driver)
	if err != nil {
		t.Fatal(err)
	}
	cmd := bin + " " + shellQuote(abs)
	if mutant != "" {
		cmd = "LIMCHECK_MUTANT=" + mutant + " " + cmd
	}
	return cmd
}

// mutant is one planted bug of ports/mutants.json.
type mutant struct {
	Name        string   `json:"name"`
	Clauses     []string `json:"clauses"`
	Description string   `json:"description"`
}

func loadMutants(t *testing.T) []mutant {
	t.Helper()
	data, err := os.ReadFile("../../ports/mutants.json")
	if err != nil {
		t.Fatal(err)
	}
	var ms []mutant
	if err := json.Unmarshal(data, &ms); err != nil {
		t.Fatalf("ports/mutants.json: %v", err)
	}
	if len(ms) < 10 {
		t.Fatalf("ports/mutants.json lists %d mutants, want at least 10", len(ms))
	}
	return ms
}

// cliRun runs the CLI in process and returns its status and stdout.
func cliRun(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	status := run(args, &out, &errOut)
	return status, out.String(), errOut.String()
}

// TestReferencePortsPassEveryVectorAndFuzzCleanly: each unmutated
// reference port passes every vector, strict ones included, and a bounded
// differential fuzz finds no divergence.
func TestReferencePortsPassEveryVectorAndFuzzCleanly(t *testing.T) {
	for _, p := range referencePorts {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			cmd := portCommand(t, p.bin, p.driver, "")
			status, out, errOut := cliRun("run", "-q", "-strict", "-port", cmd)
			if status != exitOK || !strings.Contains(out, " 0 failed, 0 skipped\n") {
				t.Errorf("limcheck run --strict --port %s: status %d\n%s%s", cmd, status, out, errOut)
			}
			status, out, errOut = cliRun("fuzz", "-seed", "1", "-ops", "5000", "-port", cmd)
			if status != exitOK || !strings.Contains(out, "no divergence") {
				t.Errorf("limcheck fuzz --ops 5000 --port %s: status %d\n%s%s", cmd, status, out, errOut)
			}
		})
	}
}

// fuzzResult is the part of `limcheck fuzz -json` the mutant test reads.
type fuzzResult struct {
	Traces    int   `json:"traces"`
	Ops       int   `json:"ops"`
	ElapsedMS int64 `json:"elapsed_ms"`
	Found     *struct {
		Original   int    `json:"original_ops"`
		ShrinkRuns int    `json:"shrink_runs"`
		FoundMS    int64  `json:"found_after_ms"`
		ShrinkMS   int64  `json:"shrink_ms"`
		File       string `json:"file"`
		Case       struct {
			ID  string            `json:"id"`
			Ops []json.RawMessage `json:"ops"`
		} `json:"case"`
	} `json:"found"`
}

// maxShrunkOps is "a handful of operations": the most a mutant's shrunk
// counterexample may keep.
const maxShrunkOps = 6

// TestEveryMutantIsCaughtByRunAndFoundByFuzz plants each bug of
// ports/mutants.json in each reference port in turn and checks that
// `limcheck run` fails, that `limcheck fuzz` (seed 1, a 10 s budget) finds
// a divergence and shrinks it to at most maxShrunkOps ops, and that the
// vector it writes fails on the mutant and passes on the clean port. The
// time to find and the sizes are logged (go test -v) for the record.
func TestEveryMutantIsCaughtByRunAndFoundByFuzz(t *testing.T) {
	mutants := loadMutants(t)
	for _, p := range referencePorts {
		for _, m := range mutants {
			t.Run(p.name+"/"+m.Name, func(t *testing.T) {
				t.Parallel()
				cmd := portCommand(t, p.bin, p.driver, m.Name)
				status, out, errOut := cliRun("run", "-q", "-strict", "-port", cmd)
				if status != exitFailed {
					t.Fatalf("limcheck run: status %d, want %d (a failure): the vectors miss %s\n%s%s", status, exitFailed, m.Name, out, errOut)
				}
				failed := strings.Count(out, "\nFAIL ")
				file := filepath.Join(t.TempDir(), "cx.json")
				status, out, errOut = cliRun("fuzz", "-json", "-seed", "1", "-duration", "10s", "-out", file, "-port", cmd)
				var res fuzzResult
				if err := json.Unmarshal([]byte(out), &res); err != nil {
					t.Fatalf("limcheck fuzz -json: status %d, output does not decode: %v\n%s%s", status, err, out, errOut)
				}
				if status != exitFailed || res.Found == nil {
					t.Fatalf("limcheck fuzz: status %d, no divergence in %d traces, %d ops (%d ms)\n%s", status, res.Traces, res.Ops, res.ElapsedMS, errOut)
				}
				if n := len(res.Found.Case.Ops); n > maxShrunkOps {
					t.Errorf("shrunk counterexample has %d ops, want at most %d:\n%s", n, maxShrunkOps, out)
				}
				t.Logf("%-6s %-26s run: %2d cases fail; fuzz: found after %5d ops, %4d ms; shrunk %2d -> %d ops in %3d runs, %4d ms",
					p.name, m.Name, failed, res.Ops, res.Found.FoundMS, res.Found.Original, len(res.Found.Case.Ops), res.Found.ShrinkRuns, res.Found.ShrinkMS)
				if status, out, _ := cliRun("replay", "-port", cmd, file); status != exitFailed {
					t.Errorf("replay of the counterexample on the mutant: status %d, want %d\n%s", status, exitFailed, out)
				}
				clean := portCommand(t, p.bin, p.driver, "")
				if status, out, _ := cliRun("replay", "-port", clean, file); status != exitOK {
					t.Errorf("replay of the counterexample on the clean port: status %d, want %d\n%s", status, exitOK, out)
				}
			})
		}
	}
}

// TestMutantListsAgree: each reference port lists exactly the mutants of
// ports/mutants.json.
func TestMutantListsAgree(t *testing.T) {
	var want []string
	for _, m := range loadMutants(t) {
		want = append(want, m.Name)
	}
	for _, p := range referencePorts {
		portCommand(t, p.bin, p.driver, "") // fails clearly when the runtime is missing
		out, err := exec.Command(p.bin, p.driver, "--list-mutants").Output()
		if err != nil {
			t.Fatalf("%s %s --list-mutants: %v", p.bin, p.driver, err)
		}
		if got := strings.Fields(string(out)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s lists %v, ports/mutants.json %v", p.name, got, want)
		}
	}
}
