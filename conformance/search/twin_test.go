package search

import (
	"testing"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// sharing is the model with state shared between instances (it breaks
// PROTO-12): an open replaces its component's one live instance, and every
// instance's ops go to that one. A trace alone runs as on the model.
type sharing struct {
	cur map[oracle.Component]oracle.Instance
}

func (*sharing) Name() string                     { return "sharing" }
func (*sharing) Implements(oracle.Component) bool { return true }

func (s *sharing) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	inst, class, err := oracle.Model{}.Open(c, cfg)
	if err != nil || class != "" {
		return inst, class, err
	}
	s.cur[c] = inst
	return sharingInst{s, c}, "", nil
}

type sharingInst struct {
	s *sharing
	c oracle.Component
}

func (i sharingInst) Do(op oracle.Op) (oracle.Result, error) { return i.s.cur[i.c].Do(op) }

// TestFuzzIsolationFindsSharedStateOnlyTwinned: with Isolation a fuzz run
// finds a subject whose instances share state, as a twin counterexample
// (VEC-15, PROTO-12) whose case is twin too; without it, the same traces
// find nothing, and a correct subject passes twinned traces.
func TestFuzzIsolationFindsSharedStateOnlyTwinned(t *testing.T) {
	const ops = 4000
	r := judge.SubjectRunner{S: &sharing{cur: map[oracle.Component]oracle.Instance{}}}
	rep, err := Fuzz(r, FuzzOptions{Seed: 3, Ops: ops, Isolation: 4, ShrinkRuns: 500})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Found == nil {
		t.Fatalf("Fuzz(sharing, Isolation 4) found nothing in %d ops", rep.Ops)
	}
	if f := rep.Found; !f.Trace.Twin || !f.Case.Twin || f.Trace.Component == oracle.Lim {
		t.Errorf("counterexample: trace twin %v, case twin %v, component %s; want a twin gate or throttle trace", f.Trace.Twin, f.Case.Twin, f.Trace.Component)
	}
	rep, err = Fuzz(r, FuzzOptions{Seed: 3, Ops: ops})
	if err != nil || rep.Found != nil {
		t.Errorf("Fuzz(sharing, no isolation) = found %v, %v; want nothing: each trace alone is the model's", rep.Found != nil, err)
	}
	rep, err = Fuzz(judge.SubjectRunner{S: oracle.Model{}}, FuzzOptions{Seed: 3, Ops: ops, Isolation: 1})
	if err != nil || rep.Found != nil {
		t.Errorf("Fuzz(model, Isolation 1) = found %v, %v; want nothing", rep.Found != nil, err)
	}
}
