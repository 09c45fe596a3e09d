package judge_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// fake is a subject that wraps the model and can be told to misbehave.
type fake struct {
	only    oracle.Component // implements only this component, if set
	openErr error            // Open's error, if set
	doErr   error            // every op's error, if set
	refuse  bool             // refuse every config
	lie     bool             // add one to every key
}

func (f fake) Name() string { return "fake" }

func (f fake) Implements(c oracle.Component) bool { return f.only == "" || c == f.only }

func (f fake) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	switch {
	case f.openErr != nil:
		return nil, "", f.openErr
	case f.refuse:
		return nil, oracle.ErrConfig, nil
	}
	inst, class, err := oracle.Model{}.Open(c, cfg)
	return fakeInst{inst, f}, class, err
}

type fakeInst struct {
	inst oracle.Instance
	f    fake
}

func (i fakeInst) Do(op oracle.Op) (oracle.Result, error) {
	if i.f.doErr != nil {
		return oracle.Result{}, i.f.doErr
	}
	r, err := i.inst.Do(op)
	if i.f.lie && op.Kind == oracle.LimIPKey {
		k, _ := r.Key.Int64()
		r.Key = oracle.I(k + 1)
	}
	return r, err
}

// load returns the committed cases, failing the test on any error.
func load(t *testing.T) []conformance.Case {
	t.Helper()
	cases, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatalf("conformance.Load(Vectors) error: %v", err)
	}
	return cases
}

// caseByID returns the committed case id.
func caseByID(t *testing.T, id string) conformance.Case {
	t.Helper()
	for _, c := range load(t) {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no case %s", id)
	return conformance.Case{}
}

// VEC-10, VEC-13: the model passes every case, as the generator computed
// them with it.
func TestVectorsPassTheModel(t *testing.T) {
	for _, c := range load(t) {
		r := judge.Check(oracle.Model{}, c)
		switch {
		case r.Divergence != nil:
			t.Errorf("%s: Check(model) = %s, %s:\n%s", c.ID, r.Verdict, r.Why, conformance.Differ(c.Trace(), r.Divergence).Text("expected", "model"))
		case r.Verdict != judge.Pass:
			t.Errorf("%s: Check(model) = %s, %s; want %s", c.ID, r.Verdict, r.Why, judge.Pass)
		}
	}
}

// Check's verdicts: pass, fail with the divergence, fail with the fault,
// and skip (VEC-10, VEC-11, VEC-12).
func TestCheckVerdicts(t *testing.T) {
	broke := errors.New("fake: broke")
	rows := []struct {
		clause, reason string
		subject        fake
		id             string
		want           judge.Verdict
		wantDiv        string // the divergence's differing field
		wantWhy        string // a part of why
	}{
		{"VEC-10", "the model's own results pass", fake{}, "lim-key-002", judge.Pass, "", ""},
		{"VEC-10", "a wrong key fails at its op", fake{lie: true}, "lim-key-002", judge.Fail, "key", "result differs at op"},
		{"VEC-11", "a refused config passes a case expecting the refusal", fake{refuse: true}, "gate-config-015", judge.Pass, "", ""},
		{"VEC-11", "a config refused that must open fails at Open", fake{refuse: true}, "gate-vec-002", judge.Fail, "error", "result differs at open gate"},
		{"VEC-12", "a component the subject lacks is skipped", fake{only: oracle.Lim}, "throttle_faults-vec-001", judge.Skip, "", "does not implement throttle_faults"},
		{"VEC-12", "a case the subject declares unsupported at Open is skipped", fake{openErr: fmt.Errorf("%w: too many slots", oracle.ErrUnsupported)}, "gate-vec-002", judge.Skip, "", "too many slots"},
		{"VEC-12", "an op the subject declares unsupported is skipped", fake{doErr: oracle.ErrUnsupported}, "throttle_faults-vec-001", judge.Skip, "", "op 0"},
		{"VEC-10", "a subject that breaks fails with its error", fake{doErr: broke}, "lim-key-002", judge.Fail, "", "fault at op 0 (lim_ip_key): fake: broke"},
	}
	for _, r := range rows {
		got := judge.Check(r.subject, caseByID(t, r.id))
		call := fmt.Sprintf("%s: Check(%s) on %s", r.clause, r.reason, r.id)
		d := got.Divergence
		switch {
		case got.Verdict != r.want:
			t.Errorf("%s = %s (%s), want %s", call, got.Verdict, got.Why, r.want)
		case !strings.Contains(got.Why, r.wantWhy):
			t.Errorf("%s: why %q, want it to contain %q", call, got.Why, r.wantWhy)
		case r.wantDiv == "" && d != nil:
			t.Errorf("%s divergence %+v, want none", call, d)
		case r.wantDiv != "" && (d == nil || len(d.Fields) != 1 || d.Fields[0].Name != r.wantDiv):
			t.Errorf("%s divergence %+v, want one in field %q alone", call, d, r.wantDiv)
		}
	}
}
