// The widths test runs without the race detector, in make test's gotest
// check by the plain go test of the RACEPKGS tests built only so: it
// measures the search (seed 1 over the mutant matrix's budget, and the
// shrinking of 1,026-op and 257-op counterexamples), which runs on one
// goroutine; under -race it took about 58 s against 9 s without. The race
// detector watches the search's concurrency in the package's other tests.

//go:build !race

package search_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/search"
	"github.com/limcheck/limcheck/model/lim"
	"github.com/limcheck/limcheck/oracle"
)

// waysCapMutant is a gate whose sets hold at most most ways whatever the
// config says: a fixed array per set. It differs from the model only once
// a set holds more keys than that.
func waysCapMutant(most int64) mutant {
	return mutant{name: "a set holds at most " + itoa(most) + " ways", comp: oracle.Gate,
		open: func(cfg oracle.Config) oracle.Config {
			if cfg.Gate != nil && num(cfg.Gate.Ways) > most {
				g := *cfg.Gate
				g.Ways = oracle.I(most)
				cfg.Gate = &g
			}
			return cfg
		}}
}

// inflightWrapMutant is a gate that keeps its in-flight count in bits
// bits: its in_flight read and its shed test (GATE-4) see the count modulo
// 2^bits. It differs from the model only past 2^bits passes in flight.
func inflightWrapMutant(bits uint) mutant {
	return mutant{name: "in-flight kept in " + itoa(int64(bits)) + " bits", comp: oracle.Gate,
		fresh: func(cfg oracle.Config) func(oracle.Op, oracle.Result) (oracle.Result, error) {
			maxif := int64(math.MaxInt64)
			if cfg.Gate != nil {
				maxif = num(cfg.Gate.Maxif)
			}
			n := int64(0) // the model's in-flight count
			wrapped := func() int64 { return n & (1<<bits - 1) }
			return func(op oracle.Op, r oracle.Result) (oracle.Result, error) {
				switch op.Kind {
				case oracle.Admit:
					if r.Verdict == oracle.VerdictShed && wrapped() < maxif {
						return oracle.Result{Verdict: oracle.VerdictPass}, nil // the wrapped count lets it in
					}
					if r.Verdict == oracle.VerdictPass {
						n++
					}
				case oracle.Release:
					n = max(n-1, 0)
				case oracle.InFlight:
					r.N = oracle.I(wrapped())
				}
				return r, nil
			}
		}}
}

// keyTagMutant is a gate whose ways compare keys by tag(key) alone: a key
// new to a set that has the tag of a key a way of the set holds takes that
// way (and its bucket) as its own. It differs from the model only when two
// keys with one tag are live in one set.
func keyTagMutant(name string, tag func(int64) int64) mutant {
	return mutant{name: name, comp: oracle.Gate,
		fresh: func(oracle.Config) func(oracle.Op, oracle.Result) (oracle.Result, error) {
			type way struct{ set, way int64 }
			holder := map[way]int64{} // from the model's results
			return func(op oracle.Op, r oracle.Result) (oracle.Result, error) {
				if op.Kind != oracle.Admit || r.Way.IsZero() {
					return r, nil
				}
				k, s := lim.IPKey(string(*op.IP)), num(r.Set)
				for w, other := range holder {
					if w.set == s && other != k && tag(other) == tag(k) && w.way != num(r.Way) {
						r.Way = oracle.I(w.way) // the port found "its" key there
						return r, nil
					}
				}
				for w, other := range holder {
					if other == k {
						delete(holder, w) // GATE-15 (b): its other way is emptied
					}
				}
				holder[way{s, num(r.Way)}] = k
				return r, nil
			}
		}}
}

// tableCapMutant is a gate whose table keeps at most most keys in all (an
// arena): a key placed in a way that holds none while most ways hold keys
// takes from its born-full bucket but is not kept, so a read of its bucket
// finds none. It differs from the model only once most+1 keys are live.
func tableCapMutant(most int) mutant {
	return mutant{name: "a table of at most " + itoa(int64(most)) + " keys", comp: oracle.Gate,
		fresh: func(oracle.Config) func(oracle.Op, oracle.Result) (oracle.Result, error) {
			type way struct{ set, way int64 }
			held := map[way]bool{}       // the ways that hold a key, from the model's results
			dropped := map[string]bool{} // the keys placed past the arena
			return func(op oracle.Op, r oracle.Result) (oracle.Result, error) {
				switch {
				case op.Kind == oracle.Admit && !r.Way.IsZero():
					w := way{num(r.Set), num(r.Way)}
					if !held[w] && len(held) >= most {
						dropped[string(*op.IP)] = true
						return r, nil
					}
					held[w] = true
				case op.Kind == oracle.Bucket && dropped[string(*op.IP)]:
					untouched := false
					return oracle.Result{Touched: &untouched}, nil
				}
				return r, nil
			}
		}}
}

// everywhere is m for its component and the model for the others: fuzzed
// alone it runs the traces the mutant matrix's fuzz runs (every component
// in turn, GenFuzzTrace), not those of one component.
type everywhere struct{ m mutant }

func (e everywhere) Name() string                   { return e.m.name }
func (everywhere) Implements(oracle.Component) bool { return true }

func (e everywhere) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	if c == e.m.comp {
		return e.m.Open(c, cfg)
	}
	return oracle.Model{}.Open(c, cfg)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestFuzzFindsPortsThatKeepAWidthNarrower: within the planted bugs'
// budget, the mutant matrix's (seed 1, 50,000 ops, every component in
// turn: the matrix's traces), fuzz finds a gate that caps a set at 16 or
// 64 ways, one that keeps in-flight in 8 bits, and ones that compare the
// keys of a set by their low 16 bits or as a float32 (the keys of one set
// that differ only above bit 16, or only in the low bits): the widths the
// generators' bulk runs reach (oracle/gen; without them only the float32
// one is found, by the pool's set mates 10.0.x.y, whose keys are close).
// Each counterexample keeps at least the ops its bug needs: more keys in
// one set than the cap, or more passes than the width counts. A gate that
// keeps in-flight in 16 bits needs a trace of 65,537 passes, 1 gate trace
// in 16,384, past this budget: oracle/gen's TestGenReachesEdges shows the
// generator reaches it. A table kept in an arena of 1024 keys needs 1,025
// keys live and a read of the last (a table run, 1 gate trace in 256):
// its counterexample shrinks to exactly those 1,026 ops, the 1,024 keys
// before the last a twin run that the shrinker judges as one.
func TestFuzzFindsPortsThatKeepAWidthNarrower(t *testing.T) {
	tests := []struct {
		m      mutant
		minOps int
		exact  bool // the counterexample shrinks to minOps ops, no more
	}{
		{waysCapMutant(16), 17, false},
		{waysCapMutant(64), 65, false},
		{inflightWrapMutant(8), 257, false},
		{keyTagMutant("keys compared by their low 16 bits", func(k int64) int64 { return k & 0xffff }), 2, false},
		{keyTagMutant("keys compared as float32", func(k int64) int64 { return int64(float32(k)) }), 2, false},
		{tableCapMutant(1024), 1026, true},
	}
	for _, tt := range tests {
		t.Run(tt.m.name, func(t *testing.T) {
			opt := plantedBugBudget
			opt.ShrinkRuns = 200 // enough to cut what the bug does not need; each run is a bulk run
			rep, err := search.Fuzz(judge.SubjectRunner{S: everywhere{tt.m}}, opt)
			if err != nil {
				t.Fatal(err)
			}
			ce := rep.Found
			if ce == nil {
				t.Fatalf("Fuzz found nothing in %d traces, %d ops", rep.Traces, rep.Ops)
			}
			t.Logf("found at trace %d after %d ops; shrunk from %d to %d ops in %d runs", ce.Index, rep.Ops, len(ce.Original.Ops), len(ce.Trace.Ops), ce.ShrinkRuns)
			if n := len(ce.Trace.Ops); n < tt.minOps || n > len(ce.Original.Ops) || tt.exact && n != tt.minOps {
				t.Errorf("shrunk trace has %d ops, want %d (the bug needs them) to %d (the original's; exactly %d: %v)", n, tt.minOps, len(ce.Original.Ops), tt.minOps, tt.exact)
			}
			checkCounterexampleCase(t, ce, tt.m)
		})
	}
}
