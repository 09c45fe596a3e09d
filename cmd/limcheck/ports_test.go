// The reference ports' tests and the helpers the mutant matrix shares run
// in the plain build (make test's cli check): they check the ports and the
// suite's strength, not limcheck's concurrency.

//go:build !race

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
	"time"

	"github.com/limcheck/limcheck/conformance/report"
	"github.com/limcheck/limcheck/internal/slowdown"
)

// The reference ports (spec.md alone, ports/python and ports/js) run as
// real processes under the real CLI. .ci/run installs python3 and node.
var referencePorts = []struct{ name, bin, driver string }{
	{"python", "python3", "../../ports/python/driver.py"},
	{"js", "node", "../../ports/js/driver.js"},
}

// portCommand is the --port command of a reference port, with mutant
// planted when it is not empty.
func portCommand(t testing.TB, bin, driver, mutant string) string {
	t.Helper()
	abs, err := filepath.Abs(driver)
	if err != nil {
		t.Fatal(err)
	}
	cmd := report.ShellQuote(realInterpreter(t, bin)) + " " + report.ShellQuote(abs)
	if bin == "python3" {
		// -S: no site module. The port needs only the standard library,
		// and site's .pth files (a pyenv's certifi, say) cost half of
		// each of the matrix's hundreds of starts.
		cmd = report.ShellQuote(realInterpreter(t, bin)) + " -S " + report.ShellQuote(abs)
	}
	if mutant != "" {
		cmd = "LIMCHECK_MUTANT=" + mutant + " " + cmd
	}
	return cmd
}

// portWaits are the flags that bound a port's handshake and replies in
// these tests: generous (a minute, times LIMCHECK_TEST_SLOWDOWN), since a
// healthy port on a busy machine must never count as hung. The tests that
// check hang detection set their own.
func portWaits() []string {
	d := slowdown.Scale(time.Minute).String()
	return []string{"-handshake-timeout", d, "-request-timeout", d, "-timeout", slowdown.Scale(30 * time.Minute).String()}
}

// cliCheck runs `limcheck COMMAND portWaits... ARGS...` in process.
func cliCheck(command string, args ...string) (int, string, string) {
	return cliRun(append(append([]string{command}, portWaits()...), args...)...)
}

// mutant is one planted bug of ports/mutants.json.
type mutant struct {
	Name        string   `json:"name"`
	Clauses     []string `json:"clauses"`
	Description string   `json:"description"`
	// MinOps, when set, is the fewest ops any counterexample of the bug
	// has, more than maxShrunkOps by construction (a ring of 16 stamps
	// needs 17 failures): the matrix lets its shrunk counterexample keep
	// that many.
	MinOps int `json:"min_ops,omitempty"`
	// FuzzGap, when set, says why limcheck fuzz does not yet find (or
	// shrink) the bug within the matrix's budget: a width or a count its
	// generators do not reach (issue 29, item 2). The vectors must still
	// kill it; the matrix fails once fuzz finds and shrinks it, so that the
	// gap is dropped when the search closes it.
	FuzzGap string `json:"fuzz_gap,omitempty"`
}

func loadMutants(t testing.TB) []mutant {
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
			status, out, errOut := cliCheck("run", "-q", "-strict", "-port", cmd)
			if status != report.ExitOK || !strings.Contains(out, " 0 failed, 0 skipped\n") {
				t.Errorf("limcheck run --strict --port %s: status %d\n%s%s", cmd, status, out, errOut)
			}
			status, out, errOut = cliCheck("fuzz", "-seed", "1", "-ops", "5000", "-port", cmd)
			if status != report.ExitOK || !strings.Contains(out, "no divergence") {
				t.Errorf("limcheck fuzz --ops 5000 --port %s: status %d\n%s%s", cmd, status, out, errOut)
			}
		})
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
		out, err := exec.Command(realInterpreter(t, p.bin), p.driver, "--list-mutants").Output()
		if err != nil {
			t.Fatalf("%s %s --list-mutants: %v", p.bin, p.driver, err)
		}
		if got := strings.Fields(string(out)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s lists %v, ports/mutants.json %v", p.name, got, want)
		}
	}
}
