package conformance_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/oracle"
)

// Select keeps the cases every kind of filter chooses, in order, core
// only when no level is given; a refused value is a *FilterError naming
// its filter and value, and filters that choose nothing are ErrNoMatch.
func TestSelectFiltersAndSaysWhy(t *testing.T) {
	all := []conformance.Case{
		{ID: "lim-a-001", Level: conformance.Core, Component: oracle.Lim, Clauses: []string{"LIM-1"}},
		{ID: "lim-a-002", Level: conformance.Strict, Component: oracle.Lim, Clauses: []string{"LIM-7"}},
		{ID: "gate-a-001", Level: conformance.Core, Component: oracle.Gate, Clauses: []string{"GATE-2", "LIM-1"}},
	}
	ids := func(cs []conformance.Case) (out []string) {
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	for _, tt := range []struct {
		f    conformance.Filter
		want []string
	}{
		{conformance.Filter{}, []string{"lim-a-001", "gate-a-001"}},
		{conformance.Filter{Levels: []string{"core", "strict"}}, []string{"lim-a-001", "lim-a-002", "gate-a-001"}},
		{conformance.Filter{Clauses: []string{"LIM-1"}, Components: []string{"gate"}}, []string{"gate-a-001"}},
		{conformance.Filter{IDs: []string{"lim-*"}, Levels: []string{"strict"}}, []string{"lim-a-002"}},
	} {
		got, err := conformance.Select(all, tt.f)
		if err != nil || !slices.Equal(ids(got), tt.want) {
			t.Errorf("Select(%+v) = %q, %v; want %q", tt.f, ids(got), err, tt.want)
		}
	}
	for _, tt := range []struct {
		f            conformance.Filter
		filter, what string
	}{
		{conformance.Filter{IDs: []string{"["}}, "case", "["},
		{conformance.Filter{Clauses: []string{"GATE-["}}, "clause", "GATE-["},
		{conformance.Filter{Components: []string{"gates"}}, "component", "gates"},
		{conformance.Filter{Levels: []string{"core", "hard"}}, "level", "hard"},
	} {
		var bad *conformance.FilterError
		if _, err := conformance.Select(all, tt.f); !errors.As(err, &bad) || bad.Filter != tt.filter || bad.Value != tt.what {
			t.Errorf("Select(%+v) error = %v, want a FilterError of %s %q", tt.f, err, tt.filter, tt.what)
		}
	}
	if _, err := conformance.Select(all, conformance.Filter{IDs: []string{"nope-*"}}); !errors.Is(err, conformance.ErrNoMatch) {
		t.Errorf("Select of nothing: error = %v, want ErrNoMatch", err)
	}
}
