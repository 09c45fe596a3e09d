package conformance

import (
	"encoding/json"
	"errors"

	"github.com/limcheck/limcheck/oracle"
)

// Format is the value of every case's "format" field in this version of the
// vector format.
//
// spec VEC-2: "a case is one JSON object whose format is limcheck-vectors/1"
const Format = "limcheck-vectors/1"

// Level says whether a case's input is in contract.
type Level string

// The levels.
//
// spec VEC-5: "level is core for in-contract input ... strict for out-of-contract input"
const (
	Core   Level = "core"   // in-contract input: every implementation must pass
	Strict Level = "strict" // out-of-contract input with a defined result
)

// Case is one conformance vector: one scenario on one fresh instance of a
// component, with the result every op must return. Its JSON form is a case
// file (spec.md, VEC-1..VEC-11). The zero Case is not valid; Load returns
// only valid ones.
type Case struct {
	Format      string            `json:"format"`
	SpecVersion string            `json:"spec_version"`
	ID          string            `json:"id"`
	Clauses     []string          `json:"clauses"`
	Description string            `json:"description"`
	Level       Level             `json:"level"`
	Component   oracle.Component  `json:"component"`
	Config      *oracle.Config    `json:"config,omitempty"`      // nil for lim
	ExpectOpen  oracle.ErrorClass `json:"expect_open,omitempty"` // oracle.ErrConfig or ""
	Ops         []Step            `json:"ops"`
	// Twin runs the case on two instances of its config opened side by
	// side, each op on the first and then on the second; both must give
	// every expect (VEC-15).
	Twin bool `json:"twin,omitempty"`
}

// Step is one op of a case with the result it must return: the op's fields
// and "expect" side by side in one JSON object.
type Step struct {
	oracle.Op
	Expect oracle.Result `json:"expect"`
}

// errNoExpect is the error of a step without "expect".
var errNoExpect = errors.New(`"expect" is missing`)

// UnmarshalJSON reads a step; "expect" is required ({} expects an empty
// result).
//
// spec VEC-8: "readers ignore object keys they do not know"
func (s *Step) UnmarshalJSON(b []byte) error {
	var e struct {
		Expect *oracle.Result `json:"expect"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return err
	}
	if e.Expect == nil {
		return errNoExpect
	}
	if err := json.Unmarshal(b, &s.Op); err != nil {
		return err
	}
	s.Expect = *e.Expect
	return nil
}

// Trace returns the case as a trace: its component, config and ops.
func (c Case) Trace() oracle.Trace {
	t := oracle.Trace{Component: c.Component, Ops: make([]oracle.Op, len(c.Ops)), Twin: c.Twin}
	if c.Config != nil {
		t.Config = *c.Config
	}
	for i, s := range c.Ops {
		t.Ops[i] = s.Op
	}
	return t
}

// Expected returns the outcome the case expects: the refused config, or one
// result per op.
//
// spec VEC-10: "It passes iff every op's result equals its expect exactly"
func (c Case) Expected() oracle.Outcome {
	out := oracle.Outcome{Open: c.ExpectOpen, Results: make([]oracle.Result, len(c.Ops))}
	for i, s := range c.Ops {
		out.Results[i] = s.Expect
	}
	return out
}
