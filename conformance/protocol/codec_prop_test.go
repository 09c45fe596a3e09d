// The codec's property runs without the race detector (make test's gotest
// runs it in the plain build, with the other tests of the Makefile's
// RACEFREEFILES): it encodes and decodes on one goroutine, so the detector
// could find nothing in it, and made it several times as slow.

//go:build !race

package protocol

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/limcheck/limcheck/oracle"
	"github.com/limcheck/limcheck/oracle/gen"
)

// TestPropFastRequestCodecEqualsEncodingJSON: for every request of
// generated traces of each component, the hot path writes what json.Marshal
// of a wireRequest writes, and Serve's fast reader reads what encoding/json
// reads.
func TestPropFastRequestCodecEqualsEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := rapid.SampledFrom(oracle.Components()).Draw(t, "component")
		tr := gen.Trace(c).Draw(t, "trace")
		seq, inst := rapid.Int64Min(1).Draw(t, "seq"), rapid.Int64Min(0).Draw(t, "inst")
		for op := -1; op <= len(tr.Ops); op++ {
			req := wireRequest{Seq: seq, Inst: inst}
			switch {
			case op == -1:
				req.Kind, req.Component = kindOpen, tr.Component
				if tr.Component != oracle.Lim {
					cfg := tr.Config
					req.Config = &cfg
				}
			case op == len(tr.Ops):
				req.Kind = kindClose
			default:
				req.Op = tr.Ops[op]
			}
			want, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			got := appendRequestLine(nil, seq, inst, &tr, op)
			if string(got) != string(want)+"\n" {
				t.Fatalf("appendRequestLine = %s\njson.Marshal      = %s", got, want)
			}
			var slow wireRequest
			if err := json.Unmarshal(want, &slow); err != nil {
				t.Fatal(err)
			}
			if fast, ok := decodeRequestFast(want); ok {
				if d := cmp.Diff(slow, fast); d != "" {
					t.Fatalf("fast and slow request readers differ on %s (-slow +fast):\n%s", want, d)
				}
			}
		}
	})
}
