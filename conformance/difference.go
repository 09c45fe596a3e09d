package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/limcheck/limcheck/oracle"
)

// Difference is a divergence rendered for people: the ops that led to it
// and the two results at the diverging op, as the JSON a port author reads
// and writes.
type Difference struct {
	// Context is the component and config, then the ops up to the
	// diverging one, one JSON line each, that one marked ">".
	Context string
	// Want and Got are the results at the diverging op as JSON (for
	// open: {} when it opened, {"error":"config"} when refused), or
	// "(no result)" where an outcome has none.
	Want, Got string
	// Fields are the result fields whose values differ, sorted.
	Fields []string
}

// Differ renders the divergence at op at (-1: open) of t between want and
// got.
func Differ(t oracle.Trace, at int, want, got oracle.Outcome) Difference {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, config %s\n", t.Component, jsonLine(t.Config))
	if at == -1 {
		b.WriteString(">     open\n")
	}
	for i, op := range t.Ops[:min(max(at+1, 0), len(t.Ops))] {
		mark := " "
		if i == at {
			mark = ">"
		}
		fmt.Fprintf(&b, "%s %3d %s\n", mark, i, jsonLine(op))
	}
	d := Difference{Context: b.String(), Want: resultAt(want, at), Got: resultAt(got, at)}
	d.Fields = differingFields(d.Want, d.Got)
	return d
}

// Text renders d under the names of the two sides ("expected" and "got",
// "model" and "port"), one line each.
func (d Difference) Text(wantName, gotName string) string {
	w := max(len(wantName), len(gotName), len("differs"))
	s := d.Context + fmt.Sprintf("%-*s %s\n%-*s %s\n", w, wantName, d.Want, w, gotName, d.Got)
	if len(d.Fields) > 0 {
		s += fmt.Sprintf("%-*s %s\n", w, "differs", strings.Join(d.Fields, ", "))
	}
	return s
}

// resultAt renders the result of op i of o (-1: the outcome of open).
func resultAt(o oracle.Outcome, i int) string {
	switch {
	case i == -1 && o.Open == "":
		return "{}"
	case i == -1:
		return jsonLine(oracle.Result{Error: o.Open})
	case i >= 0 && i < len(o.Results):
		return jsonLine(o.Results[i])
	}
	return "(no result)"
}

// differingFields returns the keys whose values differ between two JSON
// objects, sorted; nil when either is not an object.
func differingFields(a, b string) []string {
	var ma, mb map[string]any
	if json.Unmarshal([]byte(a), &ma) != nil || json.Unmarshal([]byte(b), &mb) != nil {
		return nil
	}
	var out []string
	for k, v := range ma {
		if w, ok := mb[k]; !ok || jsonLine(v) != jsonLine(w) {
			out = append(out, k)
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// jsonLine renders v as one JSON line for messages.
func jsonLine(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}
