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

// TestCounterexampleReportsAValueThatDoesNotFitBesideTheModels: a result
// whose ban end does not fit its field is reported as what the port sent
// for that field beside the model's value, not as the port's fault.
func TestCounterexampleReportsAValueThatDoesNotFitBesideTheModels(t *testing.T) {
	key := oracle.Bytes("k")
	th := &oracle.ThrottleConfig{Threshold: oracle.U(1), WindowSecs: oracle.U(1), BanSecs: oracle.U(5)}
	tr := oracle.Trace{Component: oracle.Throttle, Config: oracle.Config{Throttle: th},
		Ops: []oracle.Op{{Kind: oracle.RecordFailure, Key: &key, Now: oracle.U(1)}}}
	c, err := search.TraceCase(tr, 1, "a test")
	if err != nil {
		t.Fatal(err)
	}
	f := &search.Counterexample{Trace: tr, Case: c, Fault: "the port sent ...", FaultOp: 0}
	f.Run.Undecodable, f.Run.BadField, f.Run.BadValue = true, "until", `"18446744073709551616"`
	want := `the port sent "18446744073709551616" for until, which does not fit it (want "6")`
	if got := misfit(f); got != want {
		t.Errorf("misfit = %q, want %q", got, want)
	}
	var b strings.Builder
	WriteCounterexample(&b, &Fuzz{Report: search.FuzzReport{Found: f}, File: "cx.json"}, "")
	if !strings.Contains(b.String(), "  at op 0 "+want+"\n") || strings.Contains(b.String(), "faulted") {
		t.Errorf("WriteCounterexample:\n%s\nwant the line %q and no fault", b.String(), "  at op 0 "+want)
	}
	f.Run.BadField = ""
	if got := misfit(f); got != "" {
		t.Errorf("misfit without a field = %q, want \"\"", got)
	}
}
