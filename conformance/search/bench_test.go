package search

import (
	"testing"

	"github.com/limcheck/limcheck/oracle"
)

// BenchmarkGenerate measures what the fuzzer does for each trace before it
// sends it: generate trace i (over every component in turn) with its
// outcome on the model, as the fuzzer's workers do. ns/genop is per op of
// the traces: the fuzzer's own floor, on one core, whatever the port.
//
//	go test ./conformance/search -run '^$' -bench Generate -benchmem -count 6
func BenchmarkGenerate(b *testing.B) {
	comps := oracle.Components()
	ops := 0
	for i := 0; b.Loop(); i++ {
		_, out := genFuzzTrace(comps[i%len(comps)], 1, i)
		ops += len(out.Results)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(ops, 1)), "ns/genop")
}
