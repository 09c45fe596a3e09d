package oracle

import (
	"encoding/json"
	"fmt"
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

// jsonLine renders v as one JSON line for messages.
func jsonLine(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}
