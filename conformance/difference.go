package conformance

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/limcheck/limcheck/oracle"
)

// Difference is a divergence rendered for people: the ops that led to it
// and the two results at the diverging op, as the JSON a port author reads
// and writes.
type Difference struct {
	// Context is the component and config, then the ops up to the
	// diverging one, one JSON line each, that one marked ">" (Context).
	Context string
	// Want and Got are the results at the diverging op as JSON (for
	// open: {} when it opened, {"error":"config"} when refused), or
	// "(no result)" where an outcome has none.
	Want, Got string
	// Fields are the names of the result fields whose values differ, in
	// order (oracle.Divergence.Fields).
	Fields []string
}

// Differ renders divergence d of trace t.
func Differ(t oracle.Trace, d *oracle.Divergence) Difference {
	diff := Difference{Context: Context(t, d.Index), Want: resultText(d.Want), Got: resultText(d.Got)}
	for _, f := range d.Fields {
		diff.Fields = append(diff.Fields, f.Name)
	}
	return diff
}

// Context renders the component and config of t, then its ops up to op at
// (-1: open), one JSON line each, that one marked ">".
func Context(t oracle.Trace, at int) string {
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
	return b.String()
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

// resultText renders a result as one JSON line, or "(no result)" for nil.
func resultText(r *oracle.Result) string {
	if r == nil {
		return "(no result)"
	}
	return jsonLine(*r)
}

// jsonLine renders v as one JSON line for messages.
func jsonLine(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(b)
}
