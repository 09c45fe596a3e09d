package protocol

import (
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// sharedModel is the model with state shared between instances (it breaks
// PROTO-12): an open replaces its component's one live instance, and every
// instance's ops go to that one. A trace alone runs as on the model.
type sharedModel struct {
	cur map[oracle.Component]oracle.Instance
}

func (*sharedModel) Name() string                     { return "shared" }
func (*sharedModel) Implements(oracle.Component) bool { return true }

func (s *sharedModel) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	inst, class, err := oracle.Model{}.Open(c, cfg)
	if err != nil || class != "" {
		return inst, class, err
	}
	s.cur[c] = inst
	return sharedInst{s, c}, "", nil
}

type sharedInst struct {
	s *sharedModel
	c oracle.Component
}

func (i sharedInst) Do(op oracle.Op) (oracle.Result, error) { return i.s.cur[i.c].Do(op) }

// TestTwinCasesFailOnlySharedState: run over the protocol and in process,
// every twin case (VEC-15) passes on the model and fails on a subject whose
// instances share state (PROTO-12), while every other case passes on both:
// only a twin sees the sharing.
func TestTwinCasesFailOnlySharedState(t *testing.T) {
	cases, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatal(err)
	}
	twins := 0
	for _, c := range cases {
		if c.Twin {
			twins++
		}
	}
	if twins < 3 {
		t.Fatalf("%d twin cases, want one of gate, throttle and throttle_faults at least", twins)
	}
	for _, tt := range []struct {
		name  string
		run   func(oracle.Subject) []judge.CaseResult
		check bool // also judge.Check, in process without a judge.Runner
	}{
		{"pipe", func(s oracle.Subject) []judge.CaseResult { return runPiped(t, s, cases) }, false},
		{"in process", func(s oracle.Subject) []judge.CaseResult { return runIn(t, judge.SubjectRunner{S: s}, cases) }, true},
	} {
		for _, r := range tt.run(oracle.Model{}) {
			if r.Verdict != judge.Pass {
				t.Errorf("%s: model: %s %s: %s", tt.name, r.Case.ID, r.Verdict, r.Why)
			}
		}
		for _, r := range tt.run(&sharedModel{cur: map[oracle.Component]oracle.Instance{}}) {
			want := judge.Pass
			if r.Case.Twin {
				want = judge.Fail // on either instance: each sees the other's ops
			}
			if r.Verdict != want {
				t.Errorf("%s: shared: %s = %s (%s), want %s", tt.name, r.Case.ID, r.Verdict, r.Why, want)
			}
		}
		if !tt.check {
			continue
		}
		for _, c := range cases {
			r := judge.Check(&sharedModel{cur: map[oracle.Component]oracle.Instance{}}, c)
			if want := map[bool]judge.Verdict{true: judge.Fail, false: judge.Pass}[c.Twin]; r.Verdict != want {
				t.Errorf("Check(shared, %s) = %s, %s; want %s", c.ID, r.Verdict, r.Why, want)
			}
		}
	}
}

func runPiped(t *testing.T, s oracle.Subject, cases []conformance.Case) []judge.CaseResult {
	t.Helper()
	p, err := ServePipe(s, Hello{Name: s.Name(), Version: "1"}, PortOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	return runIn(t, p, cases)
}

func runIn(t *testing.T, r judge.Runner, cases []conformance.Case) []judge.CaseResult {
	t.Helper()
	res, err := judge.RunCases(r, cases)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
