package conformance_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/oracle"
)

// VEC-14: Coverage finds each kind of gap in a small spec and a few cases.
func TestCoverageFindsGaps(t *testing.T) {
	spec := []conformance.SpecID{
		{ID: "LIM-1"}, {ID: "LIM-2"}, {ID: "LIM-3", Retired: true}, {ID: "FIND-1"},
		{ID: "DEC-1"}, {ID: "DEC-2"}, {ID: "PROP-1"}, {ID: "VEC-1"}, {ID: "DEC-3", NoVector: true},
	}
	cases := []conformance.Case{
		{ID: "lim-a-001", Clauses: []string{"LIM-1", "DEC-1", "VEC-1"}, Description: "x (DEC-1 inside)", Ops: takeAt(0)},
		{ID: "lim-a-002", Clauses: []string{"LIM-1", "DEC-1", "DEC-2"}, Description: "x (DEC-1 outside) (DEC-2 inside)", Ops: takeAt(1)},
		{ID: "lim-a-003", Clauses: []string{"LIM-3", "XYZ-1"}, Description: "x", Ops: takeAt(-1)},
	}
	r := conformance.Coverage(spec, cases)
	gaps := r.Gaps()
	rows := []struct{ clause, reason, want string }{
		{"VEC-14", "a clause with no case", "LIM-2 has no case"},
		{"VEC-14", "a finding with no case", "FIND-1 has no case"},
		{"VEC-14", "a decision with one side", "DEC-2 has 1 cases inside and 0 outside"},
		{"VEC-14", "an extreme no case uses", "no case passes MaxUint64"},
		{"VEC-4", "a retired ID listed", "case lim-a-003 lists LIM-3"},
		{"VEC-4", "an undefined ID listed", "case lim-a-003 lists XYZ-1"},
	}
	for _, row := range rows {
		if !slices.ContainsFunc(gaps, func(g string) bool { return strings.Contains(g, row.want) }) {
			t.Errorf("%s: Coverage(...).Gaps() misses %s (%q); gaps: %q", row.clause, row.reason, row.want, gaps)
		}
	}
	for _, id := range []string{"LIM-1", "DEC-1", "PROP-1", "VEC-1", "DEC-3"} { // DEC-3: (no vector), VEC-14
		if slices.ContainsFunc(gaps, func(g string) bool { return strings.HasPrefix(g, id+" ") }) {
			t.Errorf("VEC-14: Coverage(...).Gaps() reports %s, which needs nothing more; gaps: %q", id, gaps)
		}
	}
	if s := r.String(); !strings.Contains(s, "DEC-1") || !strings.Contains(s, "inside (1) lim-a-001") {
		t.Errorf("CoverageReport.String() = %q, want a row for DEC-1 listing its inside case", s)
	}
}

// takeAt returns one lim_take whose now is now.
func takeAt(now int64) []conformance.Step {
	i := oracle.I
	op := oracle.Op{Kind: oracle.LimTake, Tks: i(1), Last: i(0), Cap: i(1), Refil: i(1), Ivl: i(1), Maxif: i(1), Now: i(now), Cost: i(1)}
	return []conformance.Step{{Op: op}}
}
