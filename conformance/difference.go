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

// ResultsContext is Context with, under each op before op at, its result
// from each side: want (named wantName) and got (gotName), on one line
// "wantName, gotName RESULT" where they agree. clean renders a got result
// for the reader (a port's text is cleaned); an op without a result on a
// side shows "(no result)".
func ResultsContext(t oracle.Trace, at int, want, got []oracle.Result, wantName, gotName string, clean func(string) string) string {
	lines := strings.SplitAfter(Context(t, at), "\n")
	var b strings.Builder
	b.WriteString(lines[0])
	for i, line := range lines[1:] {
		b.WriteString(line)
		if i >= at || line == "" {
			continue
		}
		w, g := resultText(resultAt(want, i)), resultText(resultAt(got, i))
		if w == g {
			fmt.Fprintf(&b, "        %s, %s %s\n", wantName, gotName, w)
			continue
		}
		n := max(len(wantName), len(gotName))
		fmt.Fprintf(&b, "        %-*s %s\n        %-*s %s\n", n, wantName, w, n, gotName, clean(g))
	}
	return b.String()
}

// resultAt is rs[i], or nil past its end.
func resultAt(rs []oracle.Result, i int) *oracle.Result {
	if i < len(rs) {
		return &rs[i]
	}
	return nil
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
