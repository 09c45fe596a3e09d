package conformance

import (
	"slices"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/oracle"
)

// TestDifferingFieldsNamesEachKeyThatDiffers: a value that differs, a key
// on one side only, sorted; nothing for equal objects or non-objects.
func TestDifferingFieldsNamesEachKeyThatDiffers(t *testing.T) {
	tests := []struct {
		a, b   string
		want   []string
		reason string
	}{
		{`{"ok":"0","retry":"5"}`, `{"ok":"0","retry":"6"}`, []string{"retry"}, "one value differs"},
		{`{"tks":"1","ok":"1"}`, `{"ok":"0"}`, []string{"ok", "tks"}, "a missing key differs too; sorted"},
		{`{}`, `{"error":"config"}`, []string{"error"}, "a key on the got side only"},
		{`{"retry":"1000","verdict":"limited","set":"0","retry_after":"1"}`, `{"retry":"1000","verdict":"limited","set":"0","way":"0","retry_after":"1"}`, []string{"way"},
			"GATE-19: a port that names a way where the budget refused the eviction"},
		{`{"ok":"1"}`, `{"ok":"1"}`, nil, "equal objects"},
		{`(no result)`, `{"ok":"1"}`, nil, "not objects: nothing to compare"},
	}
	for _, tt := range tests {
		if got := differingFields(tt.a, tt.b); !slices.Equal(got, tt.want) {
			t.Errorf("differingFields(%s, %s) = %q, want %q (%s)", tt.a, tt.b, got, tt.want, tt.reason)
		}
	}
}

// TestDifferShowsTheOpsUpToTheDivergenceAndBothResults: the context ends
// at the marked op, the results are the JSON a port writes, and open's
// outcome renders for a divergence at open.
func TestDifferShowsTheOpsUpToTheDivergenceAndBothResults(t *testing.T) {
	rel := func(n int64) oracle.Op { return oracle.Op{Kind: oracle.LimRel, N: oracle.I(n)} }
	tr := oracle.Trace{Component: oracle.Lim, Ops: []oracle.Op{rel(1), rel(2), rel(3)}}
	want := oracle.Outcome{Results: []oracle.Result{{N: oracle.I(0)}, {N: oracle.I(1)}, {N: oracle.I(2)}}}
	got := oracle.Outcome{Results: []oracle.Result{{N: oracle.I(0)}, {N: oracle.I(2)}}}
	d := Differ(tr, 1, want, got)
	wantText := "lim, config {}\n" +
		`    0 {"op":"lim_rel","n":"1"}` + "\n" +
		`>   1 {"op":"lim_rel","n":"2"}` + "\n" +
		`model   {"n":"1"}` + "\n" +
		`port    {"n":"2"}` + "\n" +
		"differs n\n"
	if got := d.Text("model", "port"); got != wantText {
		t.Errorf("Text:\n%s\nwant:\n%s", got, wantText)
	}
	if d := Differ(tr, 2, want, got); d.Got != "(no result)" || !strings.HasSuffix(d.Context, `>   2 {"op":"lim_rel","n":"3"}`+"\n") {
		t.Errorf("a missing result: %+v", d)
	}
	if d := Differ(oracle.Trace{Component: oracle.Gate}, -1, oracle.Outcome{Open: oracle.ErrConfig}, oracle.Outcome{}); d.Want != `{"error":"config"}` || d.Got != "{}" || !strings.HasSuffix(d.Context, ">     open\n") || !slices.Equal(d.Fields, []string{"error"}) {
		t.Errorf("a divergence at open: %+v", d)
	}
}
