package oracle

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// Trace is one scenario: a component, the config of its instance, and the
// operations applied in order to a fresh instance.
//
// A twin trace (Twin set) runs on two fresh instances of Config opened
// side by side: each op on the first, then at once on the second, and
// each instance's results must be the trace's outcome (spec VEC-15): a
// subject that shares state between instances fails it. Run ignores Twin:
// it computes the outcome, which is each instance's.
type Trace struct {
	Component Component `json:"component"`
	Config    Config    `json:"config,omitzero"`
	Ops       []Op      `json:"ops"`
	Twin      bool      `json:"twin,omitempty"`
}

// Outcome is what a subject did with a trace: the outcome of Open (ErrConfig
// when the config was refused, then no op runs) and one Result per op.
type Outcome struct {
	Open    ErrorClass `json:"open,omitempty"`
	Results []Result   `json:"results"`
}

// Run applies t to a fresh instance of s. It returns an error when s does
// not implement t's component (wrapping ErrUnsupported), when an op is
// malformed (wrapping ErrBadOp), or when s broke.
func Run(s Subject, t Trace) (Outcome, error) {
	if !s.Implements(t.Component) {
		return Outcome{}, fmt.Errorf("%w: %s does not implement %s", ErrUnsupported, s.Name(), t.Component)
	}
	inst, class, err := s.Open(t.Component, t.Config)
	if err != nil || class != "" {
		return Outcome{Open: class}, err
	}
	out := Outcome{Results: make([]Result, 0, len(t.Ops))}
	for i, op := range t.Ops {
		r, err := inst.Do(op)
		if err != nil {
			return out, fmt.Errorf("oracle: %s: op %d (%s): %w", s.Name(), i, op.Kind, err)
		}
		out.Results = append(out.Results, r)
	}
	return out, nil
}

// Divergence is the first place two outcomes of one trace differ.
type Divergence struct {
	Index int    // the op's index, or -1 for Open
	Op    Op     // the op (zero for Open)
	Diff  string // cmp.Diff(want, got): "-" is want, "+" is got
}

// Compare returns the first divergence of got from want on t, or nil when
// they agree on every op.
func Compare(t Trace, want, got Outcome) *Divergence {
	if want.Open != got.Open {
		return &Divergence{Index: -1, Diff: cmp.Diff(want.Open, got.Open)}
	}
	for i := range min(len(want.Results), len(got.Results)) {
		if !want.Results[i].Equal(got.Results[i]) {
			return &Divergence{Index: i, Op: t.Ops[i], Diff: cmp.Diff(want.Results[i], got.Results[i])}
		}
	}
	if len(want.Results) != len(got.Results) {
		n := min(len(want.Results), len(got.Results))
		return &Divergence{Index: n, Diff: fmt.Sprintf("%d results, want %d", len(got.Results), len(want.Results))}
	}
	return nil
}

// Report renders a divergence for people: the ops that led to it, one JSON
// line each, the diverging op marked, then the diff, under the labels given
// to want and got (e.g. "model", "impl").
func (d *Divergence) Report(t Trace, wantName, gotName string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s trace, config %s\n", t.Component, jsonLine(t.Config))
	for i, op := range t.Ops[:max(d.Index+1, 0)] {
		mark := " "
		if i == d.Index {
			mark = ">"
		}
		fmt.Fprintf(&b, "%s %3d %s\n", mark, i, jsonLine(op))
	}
	fmt.Fprintf(&b, "first divergence at op %d (-%s +%s):\n%s", d.Index, wantName, gotName, d.Diff)
	return b.String()
}

func jsonLine(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}
