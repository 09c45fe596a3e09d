package conformance

import (
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/limcheck/limcheck/oracle"
)

// Filter chooses cases: by ID and clause globs (path.Match patterns),
// components and levels. Each field is a list of alternatives; an empty
// one chooses every case, but Levels, whose empty list is Core alone.
type Filter struct {
	IDs, Clauses, Components, Levels []string
}

// FilterError is a filter value Select refuses: Filter names its kind
// ("case", "clause", "component" or "level"), Value is the value and Why
// says what is wrong with it.
type FilterError struct {
	Filter, Value, Why string
}

// Error renders e as "conformance: FILTER filter "VALUE": WHY".
func (e *FilterError) Error() string {
	return fmt.Sprintf("conformance: %s filter %q: %s", e.Filter, e.Value, e.Why)
}

// ErrNoMatch is Select's error when its filters choose no case.
var ErrNoMatch = errors.New("conformance: no case matches the filters")

// Select returns the cases of all that f chooses, in order. A malformed
// glob, an unknown component or level is a *FilterError, and filters that
// choose nothing are ErrNoMatch: a typo never passes vacuously.
func Select(all []Case, f Filter) ([]Case, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	levels := f.Levels
	if len(levels) == 0 {
		levels = []string{string(Core)}
	}
	var out []Case
	for _, cs := range all {
		if !slices.Contains(levels, string(cs.Level)) ||
			(len(f.Components) > 0 && !slices.Contains(f.Components, string(cs.Component))) ||
			(len(f.Clauses) > 0 && !slices.ContainsFunc(cs.Clauses, func(id string) bool { return matches(f.Clauses, id) })) ||
			(len(f.IDs) > 0 && !matches(f.IDs, cs.ID)) {
			continue
		}
		out = append(out, cs)
	}
	if len(out) == 0 {
		return nil, ErrNoMatch
	}
	return out, nil
}

// check returns the first value of f that Select refuses, if any.
func (f Filter) check() error {
	for _, p := range f.IDs {
		if _, err := path.Match(p, ""); err != nil {
			return &FilterError{"case", p, "bad pattern: " + err.Error()}
		}
	}
	for _, p := range f.Clauses {
		if _, err := path.Match(p, ""); err != nil {
			return &FilterError{"clause", p, "bad pattern: " + err.Error()}
		}
	}
	for _, c := range f.Components {
		if !slices.Contains(oracle.Components(), oracle.Component(c)) {
			return &FilterError{"component", c, fmt.Sprintf("not a component (want one of %v)", oracle.Components())}
		}
	}
	for _, l := range f.Levels {
		if l != string(Core) && l != string(Strict) {
			return &FilterError{"level", l, "not a level (want core or strict)"}
		}
	}
	return nil
}

// matches reports whether s matches one of the globs patterns.
func matches(patterns []string, s string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { ok, _ := path.Match(p, s); return ok })
}
