// The mutant matrix runs without the race detector, in make test's cli
// check: it measures the strength of the vectors and of the search over
// 164 planted bugs in two ports (328 cells), and under -race limcheck's
// own generation and shrinking took 250 s of the suite's time against
// about a quarter of it without. The race detector watches limcheck's
// concurrency in the protocol and search packages' tests and in the CLI
// scripts of raceScripts (script_test.go).

//go:build !race

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/report"

	"github.com/limcheck/limcheck/internal/slowdown"
)

// fuzzResult is the part of `limcheck fuzz -json` the mutant test reads.
type fuzzResult struct {
	Traces    int   `json:"traces"`
	Ops       int   `json:"ops"`
	ElapsedMS int64 `json:"elapsed_ms"`
	Found     *struct {
		Confirmation string `json:"confirmation"`
		Original     int    `json:"original_ops"`
		ShrinkRuns   int    `json:"shrink_runs"`
		FoundMS      int64  `json:"found_after_ms"`
		ShrinkMS     int64  `json:"shrink_ms"`
		File         string `json:"file"`
		Case         struct {
			ID  string            `json:"id"`
			Ops []json.RawMessage `json:"ops"`
		} `json:"case"`
	} `json:"found"`
}

// maxShrunkOps is "a handful of operations": the most a mutant's shrunk
// counterexample may keep, unless the mutant's min_ops says that it needs
// more by construction (stamps_ring_16: 17 failures of one key).
const maxShrunkOps = 4

// The mutant matrix's fuzz budget, in logical units, never seconds. Trace
// i of a seed depends only on the seed and i (search.GenFuzzTrace)
// and the reference ports are deterministic, so the ops after which seed 1
// finds a mutant, and the trace shrinking reaches in a number of runs, are
// the same on every machine, however slow or busy: a mutant found within
// the budget here is found within it everywhere. On spec 3.2's traces,
// with the bulk, failure, drain and rebirth runs (oracle/gen/bulk.go), go
// test -v logs each: clear_fault_half_done needs 43,195 ops to find (a
// reset under a fault rule on clear, then a check), and the largest shrink
// is stamps_ring_threshold's, 641 runs (table_capped_1024's 1,026 ops
// take 34, its 1,024 keys one twin run). A new mutant that needs more fails the
// test, which is the news: the search got weaker or the bug is new; one the
// search cannot reach yet carries a fuzz_gap saying why.
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
// `limcheck run` fails (the vectors alone kill it), that `limcheck fuzz`
// (seed 1, mutantFuzzOps ops) finds a divergence and shrinks it (within
// mutantShrinkRuns runs) to at most maxShrunkOps ops, and that the vector
// it writes fails on the mutant (fuzz itself confirms it in a fresh port
// process) and passes on the clean port: the cells gather their
// counterexamples, one port's in one vectors folder, which one `limcheck
// run --vectors` checks on the clean port once every cell is done. A
// mutant with a fuzz_gap is one the search does not reach yet: its cell
// checks the vectors only (BenchmarkMutantTimeToFind, in make test-long,
// fails when fuzz finds and shrinks it after all). Nothing here depends on the machine's speed: the budgets are ops
// and runs, and the ports' time limits are generous (portWaits). The ops
// and runs it took are logged (go test -v), and the last subtest,
// vectors, logs the vectors-alone kill rate; the wall-clock time to find
// each is BenchmarkMutantTimeToFind's.
func TestEveryMutantIsCaughtByRunAndFoundByFuzz(t *testing.T) {
	mutants := loadMutants(t)
	found := make([]string, len(referencePorts)) // each port's folder of counterexamples
	for i := range found {
		found[i] = t.TempDir()
	}
	written := make([]atomic.Int32, len(referencePorts))
	missed := make([][]atomic.Bool, len(referencePorts)) // the mutants each port's vectors miss
	for i := range missed {
		missed[i] = make([]atomic.Bool, len(mutants))
	}
	t.Run("cells", func(t *testing.T) {
		for i, p := range referencePorts {
			for j, m := range mutants {
				t.Run(p.name+"/"+m.Name, func(t *testing.T) {
					t.Parallel()
					if !vectorsKill(t, p.bin, p.driver, m) {
						missed[i][j].Store(true)
					}
					if m.FuzzGap != "" {
						// make test-long's BenchmarkMutantTimeToFind checks
						// that the gap is still open: 50,000 ops that find
						// nothing cost more than the cells that do.
						t.Logf("%-26s fuzz: not run (fuzz_gap: %s)", m.Name, m.FuzzGap)
						return
					}
					file := mutantCell(t, p.bin, p.driver, m)
					keepCounterexample(t, file, found[i], j)
					written[i].Add(1)
				})
			}
		}
	})
	t.Run("vectors", func(t *testing.T) {
		for i, p := range referencePorts {
			var miss []string
			for j, m := range mutants {
				if missed[i][j].Load() {
					miss = append(miss, m.Name)
				}
			}
			rate := vectorsKillRate(len(mutants), len(miss))
			t.Logf("%s: %s", p.name, rate)
			if len(miss) > 0 {
				t.Errorf("%s: %s; the vectors miss %s: add a case to conformance/internal/build that kills each", p.name, rate, strings.Join(miss, ", "))
			}
		}
	})
	for i, p := range referencePorts {
		t.Run("clean/"+p.name, func(t *testing.T) {
			n := int(written[i].Load())
			if n == 0 {
				t.Fatalf("no cell of %s wrote a counterexample", p.name)
			}
			clean := portCommand(t, p.bin, p.driver, "")
			status, out, errOut := cliCheck("run", "-q", "-strict", "-vectors", found[i], "-port", clean)
			if want := fmt.Sprintf("\n%d passed, 0 failed, 0 skipped\n", n); status != report.ExitOK || !strings.Contains(out, want) {
				t.Errorf("the %d counterexamples, run on the clean port: status %d, want %d and %q\n%s%s", n, status, report.ExitOK, strings.TrimSpace(want), out, errOut)
			}
		})
	}
}

// vectorsKillRate is the matrix's report line of how many of n mutants
// the vectors alone kill in one port, when they miss miss of them.
func vectorsKillRate(n, miss int) string {
	return fmt.Sprintf("the vectors alone kill %d of %d planted bugs (%.1f%%)", n-miss, n, 100*float64(n-miss)/float64(n))
}

// vectorsKill reports whether `limcheck run` over the vectors of m's
// components fails on mutant m planted in the port that interpreter bin
// runs from driver: the vectors alone kill it. A miss is logged here and
// reported, with the others, by the matrix's vectors subtest.
func vectorsKill(t *testing.T, bin, driver string, m mutant) bool {
	cmd := portCommand(t, bin, driver, m.Name)
	// --fail-fast: the first failing case is the proof; the cases after it
	// would only be run to be counted.
	args := []string{"-q", "-strict", "-alone", "0", "-fail-fast"}
	for _, c := range mutantComponents(m) {
		args = append(args, "-component", c)
	}
	status, out, errOut := cliCheck("run", append(args, "-port", cmd)...)
	if status != report.ExitFailed {
		t.Logf("limcheck run: status %d, want %d (a failure): the vectors miss %s\n%s%s", status, report.ExitFailed, m.Name, out, errOut)
		return false
	}
	return true
}

// fuzzGapStillOpen runs the matrix's fuzz on a mutant with a fuzz_gap:
// it fails when fuzz finds the mutant and shrinks it within the matrix's
// budgets after all (the gap is closed: drop it), and logs what fuzz did
// otherwise.
func fuzzGapStillOpen(t testing.TB, bin, driver string, m mutant) {
	cmd := portCommand(t, bin, driver, m.Name)
	res, status, out, errOut, err := fuzzRun(cmd, filepath.Join(t.TempDir(), "cx.json"))
	switch {
	case err != nil || (status != report.ExitOK && status != report.ExitFailed):
		t.Fatalf("limcheck fuzz: status %d, %v\n%s%s", status, err, out, errOut)
	case res.Found == nil:
		t.Logf("%-26s fuzz: not found in %d ops (fuzz_gap: %s)", m.Name, res.Ops, m.FuzzGap)
	case len(res.Found.Case.Ops) <= max(maxShrunkOps, m.MinOps) && res.Found.ShrinkRuns < mutantShrinkRuns && res.Found.Confirmation == "confirmed":
		t.Errorf("limcheck fuzz now finds %s after %d ops and shrinks it to %d ops in %d runs: drop its fuzz_gap in ports/mutants.json", m.Name, res.Ops, len(res.Found.Case.Ops), res.Found.ShrinkRuns)
	default:
		t.Logf("%-26s fuzz: found after %d ops, shrunk to %d ops in %d runs, %s, short of the matrix's bounds (fuzz_gap: %s)",
			m.Name, res.Ops, len(res.Found.Case.Ops), res.Found.ShrinkRuns, res.Found.Confirmation, m.FuzzGap)
	}
}

// mutantCell is the fuzz half of a cell of the matrix: mutant planted in
// the port that interpreter bin runs from driver. It returns the
// counterexample file that fuzz wrote.
func mutantCell(t *testing.T, bin, driver string, m mutant) string {
	mutant := m.Name
	cmd := portCommand(t, bin, driver, mutant)
	file := filepath.Join(t.TempDir(), "cx.json")
	res, out, errOut := fuzzMutant(t, cmd, file)
	if n, most := len(res.Found.Case.Ops), max(maxShrunkOps, m.MinOps); n > most {
		t.Errorf("shrunk counterexample has %d ops, want at most %d:\n%s", n, most, out)
	}
	if res.Found.ShrinkRuns >= mutantShrinkRuns {
		t.Errorf("shrinking used its whole budget of %d runs: it may have stopped short of the minimum\n%s%s", mutantShrinkRuns, out, errOut)
	}
	t.Logf("%-26s fuzz: found after %5d ops; shrunk %2d -> %d ops in %3d runs",
		mutant, res.Ops, res.Found.Original, len(res.Found.Case.Ops), res.Found.ShrinkRuns)
	if res.Found.Confirmation != "confirmed" {
		t.Errorf("the shrunk counterexample, run alone in a fresh port process, is %q, want \"confirmed\" (it fails there too)\n%s", res.Found.Confirmation, out)
	}
	return file
}

// mutantComponents are the components whose vectors the matrix runs on m:
// those its clauses belong to (LIM-n: lim; GATE-n: gate; THR-n and STORE-n:
// throttle and throttle_faults; every one when none).
func mutantComponents(m mutant) []string {
	var comps []string
	for _, id := range m.Clauses {
		var add []string
		switch prefix, _, _ := strings.Cut(id, "-"); prefix {
		case "LIM":
			add = []string{"lim"}
		case "GATE":
			add = []string{"gate"}
		case "THR", "STORE":
			add = []string{"throttle", "throttle_faults"}
		}
		for _, c := range add {
			if !slices.Contains(comps, c) {
				comps = append(comps, c)
			}
		}
	}
	return comps
}

// keepCounterexample copies the counterexample file into the vectors
// folder dir, as case j of its component: <component>/<component>-mutant-NNN.json.
func keepCounterexample(t *testing.T, file, dir string, j int) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c, err := conformance.Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	c.ID = fmt.Sprintf("%s-mutant-%03d", c.Component, j)
	if data, err = conformance.Encode(c); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, string(c.Component))
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, c.ID+".json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fuzzMutant runs the matrix's fuzz against port command cmd, writing the
// counterexample to file, and fails t unless it found one.
func fuzzMutant(t testing.TB, cmd, file string) (fuzzResult, string, string) {
	t.Helper()
	res, status, out, errOut, err := fuzzRun(cmd, file)
	if err != nil {
		t.Fatalf("limcheck fuzz: status %d, %v\n%s%s", status, err, out, errOut)
	}
	if status != report.ExitFailed || res.Found == nil {
		t.Fatalf("limcheck fuzz %s: status %d, no divergence in %d traces, %d ops\n%s%s", strings.Join(mutantFuzzArgs(), " "), status, res.Traces, res.Ops, out, errOut)
	}
	return res, out, errOut
}

// fuzzRun runs the matrix's fuzz against port command cmd, writing a
// counterexample to file, and returns its decoded result, its status and
// its output, or an error when the output does not decode.
func fuzzRun(cmd, file string) (fuzzResult, int, string, string, error) {
	args := append(mutantFuzzArgs(), "-out", file, "-port", cmd)
	status, out, errOut := cliCheck("fuzz", args...)
	var res fuzzResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		return res, status, out, errOut, fmt.Errorf("limcheck fuzz -json: output does not decode: %w", err)
	}
	return res, status, out, errOut, nil
}

// BenchmarkMutantTimeToFind is the wall-clock record the matrix test does
// not keep: for each mutant of each reference port, one op is one whole
// `limcheck fuzz` run (the process started, the mutant found, shrunk and
// written), and ms-to-find is the time from the start of fuzzing to the
// failing trace's result. It is a measurement, never a pass/fail, but for
// the mutants with a fuzz_gap: for each of those it runs the matrix's fuzz
// and fails if fuzz finds and shrinks it after all (make test-long):
//
//	go test ./cmd/limcheck -run '^$' -bench MutantTimeToFind -count 6 | tee times.txt
func BenchmarkMutantTimeToFind(b *testing.B) {
	mutants := loadMutants(b)
	for _, p := range referencePorts {
		for _, m := range mutants {
			if m.FuzzGap != "" {
				b.Run(p.name+"/"+m.Name+"/gap", func(b *testing.B) {
					for b.Loop() {
						fuzzGapStillOpen(b, p.bin, p.driver, m)
					}
				})
				continue
			}
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
