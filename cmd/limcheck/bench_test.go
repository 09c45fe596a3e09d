//go:build !race

package main

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/conformance/report"
	"github.com/limcheck/limcheck/conformance/search"
	"github.com/limcheck/limcheck/internal/subject"
)

// The speed of limcheck against each port (issue: the whole vector set
// against the Go port in under 2 s; at least 100,000 fuzz ops/s against
// it). Run:
//
//	go test ./cmd/limcheck -run '^$' -bench . -benchmem -count 6
//
// The Go port runs as a process (`limcheck serve`, a limcheck binary built
// by go build for the benchmark), exactly as a user runs it; InProcess
// variants serve it over in-memory pipes, and Direct runs the fuzzer with no
// protocol at all: the fuzzer's own ceiling. The fuzz benchmarks run with
// the GC target limcheck fuzz sets (fuzzGCPercent); set GOGC=100 to see the
// default's cost. Besides ops/s (wall time, which on a shared machine
// depends on the neighbours) they report cpu-ns/fuzzop: the CPU time of
// limcheck and the port's process together per op checked, what bounds
// ops/s on a machine of their own (2 cores: 2e9 / cpu-ns/fuzzop), and
// port-cpu-ns/fuzzop, the port's share.

// benchPort returns the command of the port the benchmarks call name.
func benchPort(b *testing.B, name string) string {
	b.Helper()
	switch name {
	case "Go":
		return report.ShellQuote(buildLimcheck(b)) + " serve"
	case "Python":
		return portCommand(b, "python3", "../../ports/python/driver.py", "")
	}
	return portCommand(b, "node", "../../ports/js/driver.js", "")
}

// buildLimcheck builds limcheck with go build, as a user builds it (not
// this test binary), into b's temporary directory and returns its path.
func buildLimcheck(b *testing.B) string {
	b.Helper()
	exe := filepath.Join(b.TempDir(), "limcheck")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build -o %s .: %v\n%s", exe, err, out)
	}
	return exe
}

func allVectors(b *testing.B) []conformance.Case {
	b.Helper()
	cases, err := conformance.Load(conformance.Vectors)
	if err != nil {
		b.Fatal(err)
	}
	return cases
}

// BenchmarkVectors measures one whole run of every vector, strict ones
// included, against each port: start the process, handshake, every case,
// close. ns/op is the time of one `limcheck run --strict`.
func BenchmarkVectors(b *testing.B) {
	cases := allVectors(b)
	for _, name := range []string{"Go", "Python", "JS"} {
		cmd := benchPort(b, name)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				p, err := protocol.StartPort(cmd, protocol.PortOptions{})
				if err != nil {
					b.Fatal(err)
				}
				runVectorsOnce(b, p, cases)
			}
			b.ReportMetric(float64(len(cases)*b.N)/b.Elapsed().Seconds(), "cases/s")
		})
	}
	b.Run("GoInProcess", func(b *testing.B) {
		for b.Loop() {
			p, err := bundled(protocol.PortOptions{})
			if err != nil {
				b.Fatal(err)
			}
			runVectorsOnce(b, p, cases)
		}
		b.ReportMetric(float64(len(cases)*b.N)/b.Elapsed().Seconds(), "cases/s")
	})
}

func runVectorsOnce(b *testing.B, p *protocol.Port, cases []conformance.Case) {
	results, err := judge.RunCases(p, cases)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range results {
		if r.Verdict != judge.Pass {
			b.Fatalf("%s: %s %s", r.Case.ID, r.Verdict, r.Why)
		}
	}
	if err := p.Close(); err != nil {
		b.Fatal(err)
	}
}

// benchFuzzOps is the size of one fuzz run in BenchmarkFuzz.
const benchFuzzOps = 20000

// BenchmarkFuzz measures differential fuzzing throughput (ops/s: traces
// generated, run on the port and on the model, compared) against each
// port, over every component in turn, one started port per benchmark.
func BenchmarkFuzz(b *testing.B) {
	for _, name := range []string{"Go", "Python", "JS"} {
		cmd := benchPort(b, name)
		b.Run(name, func(b *testing.B) {
			self0, port0, cpuOK := cpuTime()
			p, err := protocol.StartPort(cmd, protocol.PortOptions{})
			if err != nil {
				b.Fatal(err)
			}
			ops := benchFuzz(b, p)
			if err := p.Close(); err != nil { // waits for the process: its CPU is counted
				b.Fatal(err)
			}
			if self1, port1, ok := cpuTime(); ok && cpuOK && ops > 0 {
				self, port := float64(self1-self0), float64(port1-port0)
				b.ReportMetric((self+port)/float64(ops), "cpu-ns/fuzzop")
				b.ReportMetric(port/float64(ops), "port-cpu-ns/fuzzop")
			}
		})
	}
	b.Run("GoInProcess", func(b *testing.B) {
		p, err := bundled(protocol.PortOptions{})
		if err != nil {
			b.Fatal(err)
		}
		benchFuzz(b, p)
		p.Close() //nolint:errcheck // in process
	})
	b.Run("Direct", func(b *testing.B) {
		benchFuzz(b, judge.SubjectRunner{S: subject.Impl{}})
	})
}

// benchFuzz runs fuzz runs of benchFuzzOps through r while b loops and
// returns the ops they checked.
func benchFuzz(b *testing.B, r judge.Runner) int {
	tuneGC() // as limcheck fuzz runs
	ops := 0
	for seed := uint64(1); b.Loop(); seed++ {
		rep, err := search.Fuzz(r, search.FuzzOptions{Seed: seed, Ops: benchFuzzOps})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Found != nil {
			b.Fatalf("divergence: %+v", rep.Found.Divergence)
		}
		ops += rep.Ops
	}
	b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "ops/s")
	return ops
}
