package conformance

import "github.com/limcheck/limcheck/oracle"

// Tally is the number of cases of one component at each level.
type Tally struct {
	Component    oracle.Component
	Core, Strict int
}

// Count returns the tally of cases for every component, in spec order.
func Count(cases []Case) []Tally {
	var ts []Tally
	for _, comp := range oracle.Components() {
		t := Tally{Component: comp}
		for _, c := range cases {
			switch {
			case c.Component != comp:
			case c.Level == Strict:
				t.Strict++
			default:
				t.Core++
			}
		}
		ts = append(ts, t)
	}
	return ts
}
