package conformance

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/limcheck/limcheck/oracle"
)

// SpecID is one ID spec.md defines, as a spec parser reports it.
type SpecID struct {
	ID      string
	Retired bool
}

// Need is what the coverage rule asks of one spec ID: "a case", "both
// sides" (a decision: a case inside and one outside) or "none".
type Need string

// The needs, by the ID's prefix.
const (
	needCase  Need = "a case"     // LIM, GATE, THR, STORE, VEC clauses and FIND findings
	needSides Need = "both sides" // DEC decisions: a case inside and one outside
	needNone  Need = "none"       // anything else (properties): listed, not required
)

// needs maps an ID prefix to its need; prefixes not listed need nothing.
//
// spec VEC-14: "every live clause of the areas LIM, GATE, THR, STORE and VEC and every finding has a case; every decision has a case on each side"
var needs = map[string]Need{
	"LIM": needCase, "GATE": needCase, "THR": needCase, "STORE": needCase, "VEC": needCase,
	"FIND": needCase, "DEC": needSides,
}

// CoverageRow is one live spec ID with the cases that list it.
type CoverageRow struct {
	ID      string
	Need    Need
	Cases   []string // IDs of the cases listing it
	Inside  []string // for a decision: the cases on its inside
	Outside []string // for a decision: the cases on its outside
}

// covered reports whether the row meets its need.
func (r CoverageRow) covered() bool {
	switch r.Need {
	case needCase:
		return len(r.Cases) > 0
	case needSides:
		return len(r.Inside) > 0 && len(r.Outside) > 0
	}
	return true
}

// Extreme is one value at or next to the end of an integer domain, with the
// cases that pass it as an input (an op argument or a config field).
type Extreme struct {
	Name  string
	Value oracle.Num
	Cases []string
}

// CoverageReport is the table of spec IDs by cases, the extremes, and the
// IDs cases list that spec.md does not define or retires.
type CoverageReport struct {
	Rows     []CoverageRow
	Extremes []Extreme
	Unknown  []string // "case: ID" for each listed ID spec.md lacks or retires
}

// Coverage returns the coverage of spec by cases.
func Coverage(spec []SpecID, cases []Case) CoverageReport {
	var r CoverageReport
	live := map[string]bool{}
	for _, s := range spec {
		if !s.Retired {
			live[s.ID] = true
			r.Rows = append(r.Rows, coverageRow(s.ID, cases))
		}
	}
	for _, c := range cases {
		for _, id := range c.Clauses {
			if !live[id] {
				r.Unknown = append(r.Unknown, c.ID+": "+id)
			}
		}
	}
	r.Extremes = extremes(cases)
	return r
}

// coverageRow returns the row of the live ID id.
func coverageRow(id string, cases []Case) CoverageRow {
	area, _, _ := strings.Cut(id, "-")
	row := CoverageRow{ID: id, Need: needs[area]}
	if row.Need == "" {
		row.Need = needNone
	}
	for _, c := range cases {
		if !slices.Contains(c.Clauses, id) {
			continue
		}
		row.Cases = append(row.Cases, c.ID)
		sides := decisionSides(c, id)
		if slices.Contains(sides, "inside") {
			row.Inside = append(row.Inside, c.ID)
		}
		if slices.Contains(sides, "outside") {
			row.Outside = append(row.Outside, c.ID)
		}
	}
	return row
}

// extremeValues are the values the coverage rule asks to see as inputs.
//
// spec VEC-14: "MinInt64, MaxInt64, MaxUint64, 0 and their neighbours appear as inputs"
func extremeValues() []Extreme {
	return []Extreme{
		{Name: "MinInt64", Value: oracle.I(math.MinInt64)},
		{Name: "MinInt64+1", Value: oracle.I(math.MinInt64 + 1)},
		{Name: "-1", Value: oracle.I(-1)},
		{Name: "0", Value: oracle.I(0)},
		{Name: "1", Value: oracle.I(1)},
		{Name: "MaxInt64-1", Value: oracle.I(math.MaxInt64 - 1)},
		{Name: "MaxInt64", Value: oracle.I(math.MaxInt64)},
		{Name: "MaxInt64+1", Value: oracle.U(math.MaxInt64 + 1)},
		{Name: "MaxUint64-1", Value: oracle.U(math.MaxUint64 - 1)},
		{Name: "MaxUint64", Value: oracle.U(math.MaxUint64)},
	}
}

// extremes returns, for each extreme value, the cases that use it as input.
func extremes(cases []Case) []Extreme {
	xs := extremeValues()
	for _, c := range cases {
		in := inputs(c)
		for i := range xs {
			if slices.ContainsFunc(in, xs[i].Value.Equal) {
				xs[i].Cases = append(xs[i].Cases, c.ID)
			}
		}
	}
	return xs
}

// inputs returns every integer c passes in: its config fields and its ops'
// arguments, in order, absent ones left out.
func inputs(c Case) []oracle.Num {
	var ns []oracle.Num
	if c.Config != nil && c.Config.Gate != nil {
		g := c.Config.Gate
		ns = append(ns, g.Cap, g.Refil, g.Ivl, g.Maxif, g.Sets, g.Ways, g.TickNanos)
	}
	if c.Config != nil && c.Config.Throttle != nil {
		t := c.Config.Throttle
		ns = append(ns, t.Threshold, t.WindowSecs, t.BanSecs)
	}
	for _, s := range c.Ops {
		o := s.Op
		ns = append(ns, o.Tks, o.Last, o.Cap, o.Refil, o.Ivl, o.Maxif, o.Now, o.Cost, o.N, o.Retry)
	}
	return slices.DeleteFunc(ns, oracle.Num.IsZero)
}

// Gaps returns one line for each break of the coverage rule: an uncovered
// ID, a decision side without a case, an extreme no case uses, an ID a case
// lists that spec.md lacks or retires. It is empty when the vectors cover
// the spec.
func (r CoverageReport) Gaps() []string {
	var gaps []string
	for _, row := range r.Rows {
		switch {
		case row.covered():
		case row.Need == needCase:
			gaps = append(gaps, fmt.Sprintf("%s has no case", row.ID))
		default:
			gaps = append(gaps, fmt.Sprintf("%s has %d cases inside and %d outside, want at least one each", row.ID, len(row.Inside), len(row.Outside)))
		}
	}
	for _, x := range r.Extremes {
		if len(x.Cases) == 0 {
			gaps = append(gaps, fmt.Sprintf("no case passes %s (%s) as an input", x.Name, x.Value))
		}
	}
	for _, u := range r.Unknown {
		gaps = append(gaps, fmt.Sprintf("case %s, which spec.md does not define or retires", strings.Replace(u, ": ", " lists ", 1)))
	}
	return gaps
}

// String renders the report as a table: one line per spec ID (need, number
// of cases, the first case IDs), then the extremes.
func (r CoverageReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s %-10s %-4s %s\n", "id", "need", "ok", "cases")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "%-9s %-10s %-4s %s\n", row.ID, row.Need, okMark(row.covered()), rowCases(row))
	}
	fmt.Fprintf(&b, "\n%-12s %-4s %s\n", "input", "ok", "cases")
	for _, x := range r.Extremes {
		fmt.Fprintf(&b, "%-12s %-4s %s\n", x.Name, okMark(len(x.Cases) > 0), list(x.Cases))
	}
	for _, g := range r.Gaps() {
		fmt.Fprintf(&b, "gap: %s\n", g)
	}
	return b.String()
}

// rowCases renders a row's cases, by side for a decision.
func rowCases(row CoverageRow) string {
	if row.Need == needSides {
		return "inside " + list(row.Inside) + "; outside " + list(row.Outside)
	}
	return list(row.Cases)
}

// list renders ids as "(n) a b c ...", at most four shown.
func list(ids []string) string {
	shown := ids[:min(len(ids), 4)]
	s := fmt.Sprintf("(%d) %s", len(ids), strings.Join(shown, " "))
	if len(ids) > len(shown) {
		s += " ..."
	}
	return s
}

func okMark(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}
