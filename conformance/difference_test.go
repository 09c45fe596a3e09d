package conformance

import (
	"slices"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/oracle"
)

// TestDifferShowsTheOpsUpToTheDivergenceAndBothResults: the context ends
// at the marked op, the results are the JSON a port writes, and open's
// outcome renders for a divergence at open.
func TestDifferShowsTheOpsUpToTheDivergenceAndBothResults(t *testing.T) {
	rel := func(n int64) oracle.Op { return oracle.Op{Kind: oracle.LimRel, N: oracle.I(n)} }
	tr := oracle.Trace{Component: oracle.Lim, Ops: []oracle.Op{rel(1), rel(2), rel(3)}}
	want := oracle.Outcome{Results: []oracle.Result{{N: oracle.I(0)}, {N: oracle.I(1)}, {N: oracle.I(2)}}}
	got := oracle.Outcome{Results: []oracle.Result{{N: oracle.I(0)}, {N: oracle.I(2)}}}
	d := Differ(tr, oracle.Compare(tr, want, got))
	wantText := "lim, config {}\n" +
		`    0 {"op":"lim_rel","n":"1"}` + "\n" +
		`>   1 {"op":"lim_rel","n":"2"}` + "\n" +
		`model   {"n":"1"}` + "\n" +
		`port    {"n":"2"}` + "\n" +
		"differs n\n"
	if got := d.Text("model", "port"); got != wantText {
		t.Errorf("Text:\n%s\nwant:\n%s", got, wantText)
	}
	got.Results[1] = want.Results[1]
	if d := Differ(tr, oracle.Compare(tr, want, got)); d.Got != "(no result)" || d.Fields != nil || !strings.HasSuffix(d.Context, `>   2 {"op":"lim_rel","n":"3"}`+"\n") {
		t.Errorf("a missing result: %+v", d)
	}
	gate := oracle.Trace{Component: oracle.Gate}
	if d := Differ(gate, oracle.Compare(gate, oracle.Outcome{Open: oracle.ErrConfig}, oracle.Outcome{})); d.Want != `{"error":"config"}` || d.Got != "{}" || !strings.HasSuffix(d.Context, ">     open\n") || !slices.Equal(d.Fields, []string{"error"}) {
		t.Errorf("a divergence at open: %+v", d)
	}
}

// TestResultsContextShowsEachEarlierOpsResultFromBothSides: every op
// before the marked one carries its result, on one line where the sides
// agree and on one line each where they do not (the got side cleaned),
// and an op a side has no result for says so.
func TestResultsContextShowsEachEarlierOpsResultFromBothSides(t *testing.T) {
	rel := func(n int64) oracle.Op { return oracle.Op{Kind: oracle.LimRel, N: oracle.I(n)} }
	tr := oracle.Trace{Component: oracle.Lim, Ops: []oracle.Op{rel(1), rel(2), rel(3), rel(4)}}
	want := []oracle.Result{{N: oracle.I(0)}, {N: oracle.I(1)}, {N: oracle.I(2)}}
	got := []oracle.Result{{N: oracle.I(0)}, {N: oracle.I(7)}}
	upper := strings.ToUpper
	text := ResultsContext(tr, 3, want, got, "model", "port", upper)
	wantText := "lim, config {}\n" +
		`    0 {"op":"lim_rel","n":"1"}` + "\n" +
		`        model, port {"n":"0"}` + "\n" +
		`    1 {"op":"lim_rel","n":"2"}` + "\n" +
		`        model {"n":"1"}` + "\n" +
		`        port  {"N":"7"}` + "\n" +
		`    2 {"op":"lim_rel","n":"3"}` + "\n" +
		`        model {"n":"2"}` + "\n" +
		`        port  (NO RESULT)` + "\n" +
		`>   3 {"op":"lim_rel","n":"4"}` + "\n"
	if text != wantText {
		t.Errorf("ResultsContext:\n%s\nwant:\n%s", text, wantText)
	}
	if text := ResultsContext(tr, -1, want, got, "model", "port", upper); text != Context(tr, -1) {
		t.Errorf("ResultsContext at open = %q, want Context's %q", text, Context(tr, -1))
	}
}
