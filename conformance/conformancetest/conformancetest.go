package conformancetest

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
	"github.com/limcheck/limcheck/oracle/gen"
)

// Run runs every core case of the built-in vectors against s, each as a
// subtest named by its ID: a failing case reports the ops up to the
// divergence and the expected and actual results; a case s does not
// implement or declines is skipped. It fails t when the built-in vectors
// do not load (a broken build of this module).
//
// spec VEC-12: "A subject that does not implement a case's component ... skips it"
func Run(t *testing.T, s oracle.Subject) {
	t.Helper()
	cases, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatalf("conformancetest: the built-in vectors: %v", err)
	}
	RunCases(t, s, slices.DeleteFunc(cases, func(c conformance.Case) bool { return c.Level != conformance.Core }))
}

// RunCases runs cases against s, each as a subtest named by its ID, as
// Run does.
func RunCases(t *testing.T, s oracle.Subject, cases []conformance.Case) {
	t.Helper()
	if len(cases) == 0 {
		t.Fatal("conformancetest: no case to run")
	}
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) { runCase(t, s, c) })
	}
}

// runCase checks one case as a subtest.
func runCase(t *testing.T, s oracle.Subject, c conformance.Case) {
	switch r := Check(s, c); r.Verdict {
	case judge.Skip:
		t.Skip(r.Message)
	case judge.Fail:
		t.Error(r.Message)
	}
}

// Result is what became of one case: its verdict and, unless it passed,
// a message for people (for a failure: the case, its clauses and
// description, the ops up to the divergence, expected and got).
type Result struct {
	Case    conformance.Case
	Verdict judge.Verdict
	Message string
}

// Check runs the case c on fresh instances of s (judge.Check): the
// verdict Run's subtest reports, without a *testing.T.
func Check(s oracle.Subject, c conformance.Case) Result {
	res := judge.Check(s, c)
	r := Result{Case: c, Verdict: res.Verdict}
	switch {
	case res.Verdict == judge.Skip:
		r.Message = fmt.Sprintf("%s does not implement or declines %s", s.Name(), c.ID)
	case res.Divergence != nil:
		diff := conformance.Differ(c.Trace(), res.Divergence).Text("expected (model)", "got ("+s.Name()+")")
		r.Message = fmt.Sprintf("%s %v: %s: %s\n%s", c.ID, c.Clauses, c.Description, res.Why, diff)
	case res.Verdict == judge.Fail:
		r.Message = fmt.Sprintf("%s %v: %s: %s", c.ID, c.Clauses, c.Description, res.Why)
	}
	return r
}

// Fuzz makes f a go test -fuzz target against the model: each input
// draws, through rapid, a trace of a component s implements (gen.Trace)
// and fails when s's outcome differs from the model's; rapid shrinks a
// failing input to a small trace. It fails f when s implements no
// component.
//
//	go test -fuzz FuzzConformance -fuzztime 30s
func Fuzz(f *testing.F, s oracle.Subject) {
	f.Helper()
	var comps []oracle.Component
	for _, c := range oracle.Components() {
		if s.Implements(c) {
			comps = append(comps, c)
		}
	}
	if len(comps) == 0 {
		f.Fatalf("conformancetest: %s implements no component", s.Name())
	}
	for i := range 8 { // seeds: a short input per component, and a few more
		f.Add([]byte{byte(i), byte(i * 37), byte(i * 101), 0, 0, 0, 0, 0})
	}
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		c := rapid.SampledFrom(comps).Draw(t, "component")
		tr := gen.Trace(c).Draw(t, "trace")
		if msg := differs(s, tr); msg != "" {
			t.Fatal(msg)
		}
	}))
}

// differs says how s's outcome of tr differs from the model's, or is "".
func differs(s oracle.Subject, tr oracle.Trace) string {
	want, err := oracle.Run(oracle.Model{}, tr)
	if err != nil {
		return fmt.Sprintf("the model on a generated trace: %v", err)
	}
	got, err := oracle.Run(s, tr)
	if err != nil {
		return fmt.Sprintf("%s on a generated %s trace: %v", s.Name(), tr.Component, err)
	}
	if d := oracle.Compare(tr, want, got); d != nil {
		return fmt.Sprintf("%s differs from the model:\n%s", s.Name(), conformance.Differ(tr, d).Text("model", s.Name()))
	}
	return ""
}
