// The codec's round trip runs without the race detector (make test's gotest
// runs it in the plain build, with the other tests of the Makefile's
// RACEFREEFILES): it encodes and decodes on one goroutine and never runs
// impl, so the detector could find nothing in it.

//go:build !race

package fuzz

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/limcheck/limcheck/oracle"
	"github.com/limcheck/limcheck/oracle/gen"
	"pgregory.net/rapid"
)

// TestPropDecodeInvertsEncode checks the property that decoding the
// encoding of any generated trace within impl's limits gives the trace
// back: every trace the fuzz targets can check on impl is reachable by
// them, and the seed corpus means what its tables say. (The format keeps
// configs within impl's limits, as the targets check impl, and holds at
// most maxOps ops; the generator goes past both at a small rate, for other
// ports: its bulk runs of hundreds of passes, the search's reach.)
func TestPropDecodeInvertsEncode(t *testing.T) {
	for _, c := range oracle.Components() {
		t.Run(string(c), rapid.MakeCheck(func(t *rapid.T) {
			tr := gen.Trace(c).Draw(t, "trace")
			if pastImpl(tr.Config) {
				t.Skip("a config past impl's limits: the format reduces it")
			}
			if len(tr.Ops) > maxOps {
				t.Skip("a trace longer than the format holds: it keeps the first maxOps ops")
			}
			if diff := cmp.Diff(tr, decodeTrace(c, encodeTrace(tr))); diff != "" {
				t.Fatalf("decodeTrace(%s, encodeTrace(trace)) differs (-trace +decoded):\n%s", c, diff)
			}
		}))
	}
}
