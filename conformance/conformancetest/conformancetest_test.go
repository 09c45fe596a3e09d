package conformancetest

import (
	"strings"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// liar is the model with one lie: every lim_take that answers a non-zero
// retry answers it one tick later.
type liar struct{ oracle.Model }

func (liar) Name() string { return "liar" }

func (l liar) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	inst, class, err := l.Model.Open(c, cfg)
	if inst != nil && c == oracle.Lim {
		inst = liarLim{inst}
	}
	return inst, class, err
}

type liarLim struct{ oracle.Instance }

func (l liarLim) Do(op oracle.Op) (oracle.Result, error) {
	res, err := l.Instance.Do(op)
	if r, ok := res.Retry.Int64(); err == nil && op.Kind == oracle.LimTake && ok && r != 0 && r < 1<<62 {
		res.Retry = oracle.I(r + 1)
	}
	return res, err
}

// TestCheckReportsADivergence checks that Check fails a subject that
// differs from a vector, saying where and how (the ops, expected and
// got), and passes the model on the same case.
func TestCheckReportsADivergence(t *testing.T) {
	cases, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, c := range cases {
		if c.Component != oracle.Lim {
			continue
		}
		if r := Check(oracle.Model{}, c); r.Verdict != judge.Pass {
			t.Fatalf("Check(model, %s) = %s %q, want pass", c.ID, r.Verdict, r.Message)
		}
		r := Check(liar{}, c)
		if r.Verdict != judge.Fail {
			continue
		}
		failed++
		for _, want := range []string{c.ID, "expected (model)", "got (liar)", `"retry"`} {
			if !strings.Contains(r.Message, want) {
				t.Errorf("Check(liar, %s).Message lacks %q:\n%s", c.ID, want, r.Message)
			}
		}
	}
	if failed == 0 {
		t.Error("Check(liar, every lim vector) failed none, want the cases whose retry is not 0")
	}
}

// TestDiffersFindsTheLie checks the fuzz target's comparison: the model
// agrees with itself on every lim vector's trace, and the liar differs
// on some, with the model's and its results in the message.
func TestDiffersFindsTheLie(t *testing.T) {
	cases, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range cases {
		if c.Component != oracle.Lim {
			continue
		}
		if msg := differs(oracle.Model{}, c.Trace()); msg != "" {
			t.Fatalf("differs(model, %s) = %q, want none", c.ID, msg)
		}
		if msg := differs(liar{}, c.Trace()); msg != "" {
			found = true
			if !strings.Contains(msg, "liar differs from the model") {
				t.Errorf("differs(liar, %s) = %q, want it to name the subject", c.ID, msg)
			}
		}
	}
	if !found {
		t.Error("differs(liar, every lim vector's trace) found nothing")
	}
}
