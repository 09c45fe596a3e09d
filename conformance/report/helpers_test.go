package report

import (
	"math"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/oracle"
)

// Test doubles and fixtures shared by the package's tests.
var cases = []conformance.Case{
	{ID: "lim-take-001", Component: oracle.Lim, Level: conformance.Strict, Clauses: []string{"LIM-7"}},
	{ID: "lim-take-013", Component: oracle.Lim, Level: conformance.Core, Clauses: []string{"LIM-12", "PROP-4"}},
	{ID: "lim-key-001", Component: oracle.Lim, Level: conformance.Core, Clauses: []string{"LIM-16"}},
	{ID: "gate-admit-001", Component: oracle.Gate, Level: conformance.Core, Clauses: []string{"GATE-5", "LIM-12"}},
	{ID: "throttle-any-001", Component: oracle.Throttle, Level: conformance.Core, Clauses: []string{"THR-9"}},
}

// lying is the model with one lie: every lim_take that answers a non-zero
// retry answers it one tick off.
type lying struct{ oracle.Model }

func (l lying) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	inst, class, err := l.Model.Open(c, cfg)
	if inst != nil && c == oracle.Lim {
		inst = lyingLim{inst}
	}
	return inst, class, err
}

type lyingLim struct{ oracle.Instance }

func (l lyingLim) Do(op oracle.Op) (oracle.Result, error) {
	res, err := l.Instance.Do(op)
	if r, ok := res.Retry.Int64(); err == nil && op.Kind == oracle.LimTake && ok && r != 0 {
		if r == math.MaxInt64 {
			r -= 2
		}
		res.Retry = oracle.I(r + 1)
	}
	return res, err
}

// vectorCases is the built-in vectors.
func vectorCases(t *testing.T) []conformance.Case {
	t.Helper()
	cs, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
