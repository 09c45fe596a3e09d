package search

import (
	"testing"

	"github.com/limcheck/limcheck/oracle"
)

// BenchmarkGenerate measures what the fuzzer does for each trace before it
// sends it: generate trace i (GenFuzzTrace, over every component in turn)
// and run it on the model. ns/genop is per op of the traces: the fuzzer's
// own floor, on one core, whatever the port.
//
//	go test ./conformance/search -run '^$' -bench Generate -benchmem -count 6
func BenchmarkGenerate(b *testing.B) {
	comps := oracle.Components()
	ops := 0
	for i := 0; b.Loop(); i++ {
		t := GenFuzzTrace(comps[i%len(comps)], 1, i)
		out, err := oracle.Run(oracle.Model{}, t)
		if err != nil {
			b.Fatal(err)
		}
		ops += len(out.Results)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(ops, 1)), "ns/genop")
}
