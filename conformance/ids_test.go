package conformance_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/conformance"
)

// VEC-3: ids.txt's form, and the rules between it and the cases.
func TestIDsRules(t *testing.T) {
	bad := []struct{ clause, reason, text, want string }{
		{"VEC-3", "an ID listed twice", "lim-a-001\nlim-a-001 retired\n", "listed twice"},
		{"VEC-3", "a line that is no ID", "lim-a-001\nLIM-9\n", `"LIM-9" is not an ID`},
		{"VEC-3", "an unknown suffix", "lim-a-001 removed\n", "is not an ID"},
	}
	for _, b := range bad {
		if _, err := conformance.ParseIDs([]byte(b.text)); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: ParseIDs(%s) error %v, want one containing %q", b.clause, b.reason, err, b.want)
		}
	}
	ids, err := conformance.ParseIDs([]byte("lim-a-001\nlim-a-002 retired\nlim-a-003\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(conformance.FormatIDs(ids)); got != "lim-a-001\nlim-a-002 retired\nlim-a-003\n" {
		t.Errorf("FormatIDs(ParseIDs(x)) = %q, want x back", got)
	}
	cases := []conformance.Case{{ID: "lim-a-001"}, {ID: "lim-a-002"}, {ID: "lim-a-004"}}
	got := fmt.Sprint(conformance.CheckIDs(ids, cases))
	for _, want := range []string{"lim-a-002 has an ID ids.txt lists as retired", "lim-a-004 is not listed", "lists lim-a-003, which has no case file"} {
		if !strings.Contains(got, want) {
			t.Errorf("VEC-3: CheckIDs(...) = %s, want an error containing %q", got, want)
		}
	}
}
