package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/limcheck/limcheck/internal/slowdown"
)

// The reference ports (spec.md alone, ports/python and ports/js) run as
// real processes under the real CLI. .ci/run installs python3 and node.
var referencePorts = []struct{ name, bin, driver string }{
	{"python", "python3", "../../ports/python/driver.py"},
	{"js", "node", "../../ports/js/driver.js"},
}

// interpreters caches realInterpreter's answers.
var interpreters sync.Map // bin -> string

// realInterpreter returns the interpreter that bin (python3 or node) runs,
// as an absolute path: version-manager shims (pyenv, nodenv, asdf) are
// shell scripts that cost up to seconds per start on a busy machine, and
// the matrix starts the ports hundreds of times. It fails t when bin is not
// installed.
func realInterpreter(t testing.TB, bin string) string {
	t.Helper()
	if p, ok := interpreters.Load(bin); ok {
		return p.(string)
	}
	if _, err := exec.LookPath(bin); err != nil {
		t.Fatalf("%s is not installed: the reference port tests need it (.ci/run installs it)", bin)
	}
	ask := map[string][]string{
		"python3": {"-c", "import sys; print(sys.executable)"},
		"node":    {"-e", "console.log(process.execPath)"},
	}[bin]
	out, err := exec.Command(bin, ask...).Output()
	path := strings.TrimSpace(string(out))
	if err != nil || !filepath.IsAbs(path) {
		t.Fatalf("%s %s: %q, %v: cannot find the interpreter it runs", bin, strings.Join(ask, " "), path, err)
	}
	interpreters.Store(bin, path)
	return path
}

// portCommand is the --port command of a reference port, with mutant
// planted when it is not empty.
func portCommand(t testing.TB, bin, driver, mutant string) string {
	t.Helper()
	abs, err := filepath.Abs(driver)
	if err != nil {
		t.Fatal(err)
	}
	cmd := shellQuote(realInterpreter(t, bin)) + " " + shellQuote(abs)
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
			if status != exitOK || !strings.Contains(out, " 0 failed, 0 skipped\n") {
				t.Errorf("limcheck run --strict --port %s: status %d\n%s%s", cmd, status, out, errOut)
			}
			status, out, errOut = cliCheck("fuzz", "-seed", "1", "-ops", "5000", "-port", cmd)
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

// The mutant matrix's fuzz budget, in logical units, never seconds. Trace
// i of a seed depends only on the seed and i (search.GenFuzzTrace)
// and the reference ports are deterministic, so the ops after which seed 1
// finds a mutant, and the trace shrinking reaches in a number of runs, are
// the same on every machine, however slow or busy: a mutant found within
// the budget here is found within it everywhere. The largest needs today
// (go test -v logs each): 10,893 ops to find (ban_error_swallowed,
// check_any_unavailable_first), 508 shrink runs (retry_floor). A new mutant that needs more fails
// the test, which is the news: the search got weaker or the bug is new.
const (
	mutantFuzzSeed   = 1
	mutantFuzzOps    = 50_000
	mutantShrinkRuns = 2_000
)

// mutantFuzzArgs are the arguments of the matrix's fuzz run, out and port
// aside: the logical budget, and a shrink time that never binds first.
func mutantFuzzArgs() []string {
	return []string{"-json", "-seed", strconv.Itoa(mutantFuzzSeed), "-ops", strconv.Itoa(mutantFuzzOps),
		"-shrink-runs", strconv.Itoa(mutantShrinkRuns), "-shrink-time", slowdown.Scale(time.Hour).String()}
}

// TestEveryMutantIsCaughtByRunAndFoundByFuzz plants each bug of
// ports/mutants.json in each reference port in turn and checks that
// `limcheck run` fails, that `limcheck fuzz` (seed 1, mutantFuzzOps ops)
// finds a divergence and shrinks it (within mutantShrinkRuns runs) to at
// most maxShrunkOps ops, and that the vector it writes fails on the mutant
// and passes on the clean port. Nothing here depends on the machine's
// speed: the budgets are ops and runs, and the ports' time limits are
// generous (portWaits). The ops and runs it took are logged (go test -v);
// the wall-clock time to find each is BenchmarkMutantTimeToFind's.
func TestEveryMutantIsCaughtByRunAndFoundByFuzz(t *testing.T) {
	mutants := loadMutants(t)
	for _, p := range referencePorts {
		for _, m := range mutants {
			t.Run(p.name+"/"+m.Name, func(t *testing.T) {
				t.Parallel()
				cmd := portCommand(t, p.bin, p.driver, m.Name)
				status, out, errOut := cliCheck("run", "-q", "-strict", "-port", cmd)
				if status != exitFailed {
					t.Fatalf("limcheck run: status %d, want %d (a failure): the vectors miss %s\n%s%s", status, exitFailed, m.Name, out, errOut)
				}
				failed := strings.Count(out, "\nFAIL ")
				file := filepath.Join(t.TempDir(), "cx.json")
				res, out, errOut := fuzzMutant(t, cmd, file)
				if n := len(res.Found.Case.Ops); n > maxShrunkOps {
					t.Errorf("shrunk counterexample has %d ops, want at most %d:\n%s", n, maxShrunkOps, out)
				}
				if res.Found.ShrinkRuns >= mutantShrinkRuns {
					t.Errorf("shrinking used its whole budget of %d runs: it may have stopped short of the minimum\n%s%s", mutantShrinkRuns, out, errOut)
				}
				t.Logf("%-6s %-26s run: %2d cases fail; fuzz: found after %5d ops; shrunk %2d -> %d ops in %3d runs",
					p.name, m.Name, failed, res.Ops, res.Found.Original, len(res.Found.Case.Ops), res.Found.ShrinkRuns)
				if status, out, _ := cliCheck("replay", "-port", cmd, file); status != exitFailed {
					t.Errorf("replay of the counterexample on the mutant: status %d, want %d\n%s", status, exitFailed, out)
				}
				clean := portCommand(t, p.bin, p.driver, "")
				if status, out, _ := cliCheck("replay", "-port", clean, file); status != exitOK {
					t.Errorf("replay of the counterexample on the clean port: status %d, want %d\n%s", status, exitOK, out)
				}
			})
		}
	}
}

// fuzzMutant runs the matrix's fuzz against port command cmd, writing the
// counterexample to file, and fails t unless it found one.
func fuzzMutant(t testing.TB, cmd, file string) (fuzzResult, string, string) {
	t.Helper()
	args := append(mutantFuzzArgs(), "-out", file, "-port", cmd)
	status, out, errOut := cliCheck("fuzz", args...)
	var res fuzzResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("limcheck fuzz -json: status %d, output does not decode: %v\n%s%s", status, err, out, errOut)
	}
	if status != exitFailed || res.Found == nil {
		t.Fatalf("limcheck fuzz %s: status %d, no divergence in %d traces, %d ops\n%s", strings.Join(args, " "), status, res.Traces, res.Ops, errOut)
	}
	return res, out, errOut
}

// BenchmarkMutantTimeToFind is the wall-clock record the matrix test does
// not keep: for each mutant of each reference port, one op is one whole
// `limcheck fuzz` run (the process started, the mutant found, shrunk and
// written), and ms-to-find is the time from the start of fuzzing to the
// failing trace's result. It is a measurement, never a pass/fail:
//
//	go test ./cmd/limcheck -run '^$' -bench MutantTimeToFind -count 6 | tee times.txt
func BenchmarkMutantTimeToFind(b *testing.B) {
	mutants := loadMutants(b)
	for _, p := range referencePorts {
		for _, m := range mutants {
			b.Run(p.name+"/"+m.Name, func(b *testing.B) {
				cmd := portCommand(b, p.bin, p.driver, m.Name)
				file := filepath.Join(b.TempDir(), "cx.json")
				var found time.Duration
				for b.Loop() {
					res, _, _ := fuzzMutant(b, cmd, file)
					found += time.Duration(res.Found.FoundMS) * time.Millisecond
				}
				b.ReportMetric(float64(found.Milliseconds())/float64(b.N), "ms-to-find")
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
		out, err := exec.Command(realInterpreter(t, p.bin), p.driver, "--list-mutants").Output()
		if err != nil {
			t.Fatalf("%s %s --list-mutants: %v", p.bin, p.driver, err)
		}
		if got := strings.Fields(string(out)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s lists %v, ports/mutants.json %v", p.name, got, want)
		}
	}
}
