package search

import (
	"reflect"
	"testing"

	"github.com/limcheck/limcheck/oracle"
)

// TestGeneratorPastItsBoundHandsOutTheSameTraces: a generator stops
// generating ahead once its batches carry a twentieth more ops than its bound;
// next still hands out every later batch, in order, each trace i
// GenFuzzTrace(comps[i%len(comps)], seed, i), as one without a bound does.
func TestGeneratorPastItsBoundHandsOutTheSameTraces(t *testing.T) {
	comps := oracle.Components()
	bounded := startGenerator(comps, 5, 4, 3, 1) // a bound of 1 op: it stops after the first batches
	defer bounded.stop()
	free := startGenerator(comps, 5, 4, 3, 0)
	defer free.stop()
	for k := range 6 {
		b, f := bounded.next(), free.next()
		if b.err != nil || f.err != nil {
			t.Fatalf("batch %d: errors %v, %v", k, b.err, f.err)
		}
		if b.start != 4*k || !reflect.DeepEqual(b.sent, f.sent) || !reflect.DeepEqual(b.want, f.want) {
			t.Fatalf("batch %d: bounded start %d, traces equal %v, outcomes equal %v; want start %d, equal", k, b.start,
				reflect.DeepEqual(b.sent, f.sent), reflect.DeepEqual(b.want, f.want), 4*k)
		}
		for i, tr := range b.traces {
			if want := GenFuzzTrace(comps[(b.start+i)%len(comps)], 5, b.start+i); !reflect.DeepEqual(tr, want) {
				t.Fatalf("trace %d differs from GenFuzzTrace", b.start+i)
			}
		}
	}
}
