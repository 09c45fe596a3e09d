package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/oracle"
)

// TestReportRoomIsShared: a port whose every case fails with as much
// text as limcheck keeps (a 4 KiB fault-sized why, 1 KiB verdicts, 64 KiB
// of stderr) fills the report's maxPortText room with its first cases;
// every later failing case still keeps its ID, description, the first
// maxWhyKept bytes of its why and its first difference, and the report
// stays within the room plus what each case keeps (issue 27, item 1).
func TestReportRoomIsShared(t *testing.T) {
	all, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatal(err)
	}
	verdict := judge.CutText(strings.Repeat("\x01", 1<<20), conformance.MaxString) // escapes to 6 bytes a byte
	stderr := strings.Repeat("debug \x1b[2J noisy port\n", (64<<10)/23)
	var results []judge.CaseResult
	for _, c := range all {
		if c.ExpectOpen != "" || len(c.Ops) == 0 {
			continue
		}
		got := c.Expected()
		got.Results = got.Results[:1]
		got.Results[0] = oracle.Result{Verdict: verdict}
		d := oracle.Compare(c.Trace(), c.Expected(), got)
		if d == nil {
			continue
		}
		why := "result differs at op 0: " + strings.Repeat("w", 4<<10)
		results = append(results, judge.CaseResult{Case: c, Verdict: judge.Fail, Why: why, Divergence: d, Got: got, Stderr: stderr})
	}
	if len(results) < 200 {
		t.Fatalf("%d failing cases, want at least 200 to fill the room", len(results))
	}
	rep := New(protocol.Hello{Name: "filler", Version: "1"}, results, nil, 0)
	if rep.room != 0 {
		t.Fatalf("the report has %d bytes of room left, want the cases to fill it", rep.room)
	}
	for i, cr := range rep.Cases {
		r := results[i]
		if cr.ID != r.Case.ID || cr.Description != Clean(r.Case.Description) {
			t.Errorf("case %d: ID %q, description %q; want %q, %q, whole", i, cr.ID, cr.Description, r.Case.ID, Clean(r.Case.Description))
		}
		if !strings.HasPrefix(cr.Why, r.Why[:maxWhyKept]) {
			t.Errorf("%s: why %.60q..., want its first %d bytes kept", cr.ID, cr.Why, maxWhyKept)
		}
		if len(cr.Differences) == 0 || cr.Differences[0].Expected == nil && cr.Differences[0].Got == nil {
			t.Fatalf("%s: differences %v, want the first one with its values", cr.ID, cr.Differences)
		}
		f := cr.Differences[0]
		if text := cr.difference().Text("expected", "got"); !strings.Contains(text, "\nexpected ") || !strings.Contains(text, `"`+f.Field+`":`) {
			t.Errorf("%s: the text report shows %q, want a line of expected and the field %s", cr.ID, text, f.Field)
		}
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if most := maxPortText + len(rep.Cases)*16<<10; len(js) > most {
		t.Errorf("the JSON report has %d bytes, want at most %d (the room and 16 KiB a case)", len(js), most)
	}
}
