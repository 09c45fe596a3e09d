package report

import (
	"strings"
	"testing"

	"github.com/limcheck/limcheck/conformance/search"
	"github.com/limcheck/limcheck/oracle"
)

// TestDivergenceTextShowsEachOpsResultFromBothSides: a counterexample's
// text shows, under every op before the diverging one, what the model and
// the port answered there, so a reader sees what the earlier ops did.
func TestDivergenceTextShowsEachOpsResultFromBothSides(t *testing.T) {
	acq := oracle.Op{Kind: oracle.LimAcq, N: oracle.I(0), Maxif: oracle.I(1)}
	rel := oracle.Op{Kind: oracle.LimRel, N: oracle.I(1)}
	tr := oracle.Trace{Component: oracle.Lim, Ops: []oracle.Op{acq, rel, acq}}
	c, err := search.TraceCase(tr, 1, "a test")
	if err != nil {
		t.Fatal(err)
	}
	want := oracle.Outcome{}
	for _, s := range c.Ops {
		want.Results = append(want.Results, s.Expect)
	}
	got := oracle.Outcome{Results: append([]oracle.Result(nil), want.Results...)}
	got.Results[2].N = oracle.I(7)
	f := &search.Counterexample{Trace: tr, Case: c, Divergence: oracle.Compare(tr, want, got)}
	f.Run.Outcome = got
	text := DivergenceText(f, "port")
	for i, op := range []string{`    0 {"op":"lim_acq","maxif":"1","n":"0"}`, `    1 {"op":"lim_rel","n":"1"}`} {
		line := "  " + op + "\n          model, port " + string(fieldJSON(want.Results[i])) + "\n"
		if !strings.Contains(text, line) {
			t.Errorf("DivergenceText lacks op %d's results %q:\n%s", i, line, text)
		}
	}
	if !strings.Contains(text, "  >   2 ") || strings.Count(text, "model, port") != 2 {
		t.Errorf("DivergenceText: want ops 0 and 1 with their results, then op 2 marked:\n%s", text)
	}
}
