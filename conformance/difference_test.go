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
