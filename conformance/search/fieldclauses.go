package search

import (
	"cmp"
	"slices"

	"github.com/limcheck/limcheck/oracle"
)

// fieldClause names an op's result field.
type fieldClause struct {
	kind  oracle.Kind
	field string
}

// fieldClauses maps a result field of an op to the clauses its value rests
// on, the one that defines it first: a throttle's until rests on THR-3's
// saturating now + ban_secs before THR-13's ban, an admit's way on GATE-15's
// placement. A pair not here rests on the op's clauses (opClauses).
var fieldClauses = map[fieldClause][]string{
	{oracle.LimCfg, "ok"}:               {"LIM-3", "LIM-4"},
	{oracle.LimCfg, "err"}:              {"LIM-3", "LIM-4"},
	{oracle.LimTake, "ok"}:              {"LIM-11", "LIM-12", "LIM-7"},
	{oracle.LimTake, "retry"}:           {"LIM-12", "LIM-13", "LIM-7"},
	{oracle.LimTake, "tks"}:             {"LIM-10", "LIM-11", "LIM-12", "LIM-9", "LIM-7"},
	{oracle.LimTake, "last"}:            {"LIM-8", "LIM-9", "LIM-7"},
	{oracle.LimResp503, "response"}:     {"LIM-17", "LIM-18"},
	{oracle.Admit, "verdict"}:           {"GATE-4", "GATE-7", "GATE-8", "GATE-5", "GATE-15"},
	{oracle.Admit, "retry"}:             {"GATE-8", "GATE-9", "GATE-7", "GATE-5", "GATE-10"},
	{oracle.Admit, "retry_after"}:       {"GATE-12", "GATE-8", "GATE-9", "GATE-7"},
	{oracle.Admit, "response"}:          {"GATE-8", "GATE-9", "GATE-12", "LIM-17"},
	{oracle.Admit, "set"}:               {"GATE-13", "GATE-18", "GATE-17"},
	{oracle.Admit, "way"}:               {"GATE-15", "GATE-16", "GATE-14", "GATE-19", "GATE-17"},
	{oracle.Check, "verdict"}:           {"THR-5", "THR-7", "THR-8"},
	{oracle.Check, "remaining"}:         {"THR-8", "THR-4"},
	{oracle.Check, "until"}:             {"THR-7", "THR-5", "THR-3"},
	{oracle.CheckAny, "verdict"}:        {"THR-10", "THR-9", "THR-5", "THR-7", "THR-8"},
	{oracle.CheckAny, "remaining"}:      {"THR-10", "THR-9", "THR-8", "THR-4"},
	{oracle.CheckAny, "until"}:          {"THR-10", "THR-7", "THR-5", "THR-3"},
	{oracle.RecordFailure, "verdict"}:   {"THR-12", "THR-13", "THR-4"},
	{oracle.RecordFailure, "remaining"}: {"THR-12", "THR-4"},
	{oracle.RecordFailure, "until"}:     {"THR-3", "THR-13"},
	{oracle.PurgeExpired, "count"}:      {"THR-16", "THR-4"},
}

// DivergenceClauses returns the clauses the fields that differ in d rest
// on, field by field in d's order but the verdict first, the defining clause of each first and
// no clause twice; for a trace t of that divergence. At open it is the
// clause that refuses t's config and VEC-11; past the trace's ops (a
// result missing or extra) VEC-10.
func DivergenceClauses(t oracle.Trace, d *oracle.Divergence) []string {
	switch {
	case d == nil:
		return nil
	case d.Index < 0:
		return []string{configClause(t.Component), "VEC-11"}
	case d.Index >= len(t.Ops) || len(d.Fields) == 0:
		return []string{"VEC-10"}
	}
	kind := t.Ops[d.Index].Kind
	fields := make([]string, 0, len(d.Fields))
	for _, f := range d.Fields {
		fields = append(fields, f.Name)
	}
	// The verdict decides what the other fields hold: its clause leads.
	slices.SortStableFunc(fields, func(a, b string) int { return cmp.Compare(b2i(b == "verdict"), b2i(a == "verdict")) })
	var ids []string
	for _, f := range fields {
		for _, id := range FieldClauses(kind, f) {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// FieldClauses returns the clauses the result field of op kind rests on,
// the defining one first: fieldClauses, else the op's own (opClauses).
func FieldClauses(kind oracle.Kind, field string) []string {
	if ids, ok := fieldClauses[fieldClause{kind, field}]; ok {
		return ids
	}
	return opClauses[kind]
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
