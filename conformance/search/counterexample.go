package search

import (
	"cmp"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/model/lim"
	"github.com/limcheck/limcheck/oracle"
)

// fuzzArea is the area label of the IDs TraceCase gives: <component>-fuzz-<nnn>.
const fuzzArea = "fuzz"

// TraceCase turns t into a conformance vector: expectations from the model
// (VEC-13), level Strict if any op that runs is out of contract
// (InContract), clauses from the ops (ClausesOf; with GATE-1 or THR-6 and
// VEC-11 when the model refuses the config, whose ops are then dropped),
// the ID <component>-fuzz-<num> with num zero-padded to 3 digits, and
// description on one line (newlines become spaces). Its spec_version is the
// one the embedded vectors were generated at (their model is this one). It
// fails when the model refuses an op as malformed or the case is invalid
// (conformance.Parse would refuse it).
func TraceCase(t oracle.Trace, num uint64, description string) (conformance.Case, error) {
	version, err := vectorsSpecVersion()
	if err != nil {
		return conformance.Case{}, err
	}
	out, err := oracle.Run(oracle.Model{}, t)
	if err != nil {
		return conformance.Case{}, fmt.Errorf("search: trace case: %w", err)
	}
	c := conformance.Case{
		Format: conformance.Format, SpecVersion: version,
		ID:          fmt.Sprintf("%s-%s-%03d", t.Component, fuzzArea, num),
		Description: oneLine(description),
		Level:       conformance.Core,
		Component:   t.Component,
		ExpectOpen:  out.Open,
		Ops:         []conformance.Step{},
	}
	if t.Component != oracle.Lim {
		cfg := cloneTrace(oracle.Trace{Config: t.Config}).Config
		c.Config = &cfg
	}
	run := t
	if out.Open != "" {
		// spec VEC-11: "such a case has no ops"
		run.Ops = nil
	}
	for i, op := range run.Ops {
		c.Ops = append(c.Ops, conformance.Step{Op: cloneTrace(oracle.Trace{Ops: []oracle.Op{op}}).Ops[0], Expect: out.Results[i]})
		if !InContract(op) {
			// spec VEC-5: "strict for out-of-contract input"
			c.Level = conformance.Strict
		}
	}
	c.Clauses = ClausesOf(run)
	if t.Twin && out.Open == "" {
		// spec VEC-15: "twin: true runs the case on two instances of its config opened side by side"
		c.Twin = true
		c.Clauses = sortClauses(append(c.Clauses, "VEC-15", "PROTO-12"))
	}
	if out.Open != "" {
		c.Clauses = sortClauses(append(c.Clauses, configClause(t.Component), "VEC-11"))
	}
	if err := validate(c); err != nil {
		return conformance.Case{}, fmt.Errorf("search: trace case %s: %w", c.ID, err)
	}
	return c, nil
}

// validate checks c as a reader of its file would: it is the error
// conformance.Parse returns for the bytes conformance.Encode writes.
func validate(c conformance.Case) error {
	data, err := conformance.Encode(c)
	if err != nil {
		return err
	}
	_, err = conformance.Parse(data)
	return err
}

// oneLine returns s on one line, or a default when it is empty.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "a trace found by limcheck fuzz"
	}
	return s
}

// configClause is the clause that refuses a config of component c.
func configClause(c oracle.Component) string {
	if c == oracle.Gate {
		return "GATE-1"
	}
	return "THR-6"
}

// vectorsSpecVersion returns the spec_version of the embedded vectors.
var vectorsSpecVersion = sync.OnceValues(func() (string, error) {
	paths, err := fs.Glob(conformance.Vectors, "*/*.json")
	if err != nil || len(paths) == 0 {
		return "", fmt.Errorf("search: no embedded vector to read the spec version from (%v)", err)
	}
	data, err := fs.ReadFile(conformance.Vectors, paths[0])
	if err != nil {
		return "", fmt.Errorf("search: %s: %w", paths[0], err)
	}
	c, err := conformance.Parse(data)
	if err != nil {
		return "", fmt.Errorf("search: %s: %w", paths[0], err)
	}
	return c.SpecVersion, nil
})

// InContract reports whether op is in contract (VEC-5): lim_take needs a
// valid config (LIM-4), cost >= 1 and tks >= 0 (LIM-7); lim_acq needs
// n >= 0 (LIM-14); lim_resp_503 needs retry >= 0 (LIM-18). Every other op
// is in contract. A lim op whose arguments do not decode is not.
//
// spec VEC-5: "strict for out-of-contract input (LIM-7's takes, lim_acq with n < 0, lim_resp_503 with a negative retry)"
func InContract(op oracle.Op) bool {
	switch op.Kind {
	case oracle.LimTake, oracle.LimAcq, oracle.LimResp503:
	default:
		return true
	}
	a, err := op.Lim()
	if err != nil {
		return false
	}
	switch op.Kind {
	case oracle.LimTake:
		// spec LIM-7: "The contract is: c valid (LIM-4), cost >= 1, tks >= 0."
		return lim.NewConfig(a.Cap, a.Refil, a.Ivl, a.Maxif).Valid() && a.Cost >= 1 && a.Tks >= 0
	case oracle.LimAcq:
		// spec LIM-14: "n < 0 is out of contract"
		return a.N >= 0
	}
	// spec LIM-18: "A negative retry is out of contract"
	return a.Retry >= 0
}

// opClauses maps each op to the clauses the spec's operations table names
// for it, ranges in full (lim_take: LIM-7..LIM-13), and for admit also
// GATE-12, which defines its retry_after.
var opClauses = map[oracle.Kind][]string{
	oracle.LimCfg:        {"LIM-3"},
	oracle.LimBktNew:     {"LIM-6"},
	oracle.LimTake:       {"LIM-7", "LIM-8", "LIM-9", "LIM-10", "LIM-11", "LIM-12", "LIM-13"},
	oracle.LimAcq:        {"LIM-14"},
	oracle.LimRel:        {"LIM-15"},
	oracle.LimIPKey:      {"LIM-16"},
	oracle.LimResp503:    {"LIM-17", "LIM-18"},
	oracle.Admit:         {"GATE-4", "GATE-5", "GATE-6", "GATE-7", "GATE-8", "GATE-9", "GATE-10", "GATE-12", "GATE-13", "GATE-14", "GATE-15", "GATE-16", "GATE-17"},
	oracle.Release:       {"GATE-11"},
	oracle.Check:         {"THR-7", "THR-8", "THR-9", "THR-10"},
	oracle.CheckAny:      {"THR-7", "THR-8", "THR-9", "THR-10"},
	oracle.RecordFailure: {"THR-11", "THR-12", "THR-13"},
	oracle.RecordSuccess: {"THR-14"},
	oracle.Reset:         {"THR-15"},
	oracle.PurgeExpired:  {"THR-16"},
	oracle.SetFaults:     {"STORE-10"},
}

// ClausesOf returns the clause IDs t's ops exercise, by the operations
// table of spec.md (lim_take: LIM-7..LIM-13, admit: GATE-4..GATE-10,
// GATE-12 and GATE-13..GATE-17, check and check_any: THR-7..THR-10, record_failure:
// THR-11..THR-13, set_faults: STORE-10, ...; in_flight and bucket name
// none), with VEC-10, deduplicated and in spec order.
func ClausesOf(t oracle.Trace) []string {
	ids := []string{"VEC-10"}
	for _, op := range t.Ops {
		for _, id := range opClauses[op.Kind] {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return sortClauses(ids)
}

// specAreas lists the clause areas in spec order.
var specAreas = []string{"LIM", "GATE", "THR", "STORE", "VEC", "PROTO"}

// sortClauses sorts ids in spec order (area, then number) and drops
// repeats.
func sortClauses(ids []string) []string {
	key := func(id string) (int, int) {
		area, n, _ := strings.Cut(id, "-")
		num, _ := strconv.Atoi(n)
		a := slices.Index(specAreas, area)
		if a < 0 {
			a = len(specAreas)
		}
		return a, num
	}
	slices.SortFunc(ids, func(x, y string) int {
		ax, nx := key(x)
		ay, ny := key(y)
		return cmp.Or(cmp.Compare(ax, ay), cmp.Compare(nx, ny), strings.Compare(x, y))
	})
	return slices.Compact(ids)
}
