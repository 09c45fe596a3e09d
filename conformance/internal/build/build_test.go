package build

import (
	"regexp"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/conformance"
)

// Every draft is well formed before the model sees it: an area for its ID,
// at least one clause, a one-line description.
func TestDraftsAreWellFormed(t *testing.T) {
	area := regexp.MustCompile(`^[a-z0-9]+$`)
	for _, d := range All() {
		switch {
		case !area.MatchString(d.Area):
			t.Errorf("%s %q: area %q is not [a-z0-9]+", d.Component, d.Description, d.Area)
		case len(d.Clauses) == 0:
			t.Errorf("%s %q: no clauses", d.Component, d.Description)
		case d.Description == "" || strings.ContainsAny(d.Description, "\r\n"):
			t.Errorf("%s: description %q is not one line", d.Component, d.Description)
		}
	}
}

// VEC-11, VEC-13: Fill takes expectations from the model, and refuses a
// refused config that carries ops (they would never run).
func TestFill(t *testing.T) {
	c, err := Fill(limCase("key", "k", on("LIM-16"), ipKey("a")))
	if err != nil || len(c.Ops) != 1 || c.Ops[0].Expect.Key.String() != "97" {
		t.Errorf("Fill(lim_ip_key(a)) = %+v, %v; want one op expecting key 97", c, err)
	}
	c, err = Fill(gateCase("config", gcfg(1, 1, 1, 1, 0, 1), "slots 0", on("GATE-1")))
	if err != nil || c.ExpectOpen != "config" || c.Level != conformance.Core {
		t.Errorf("Fill(slots 0) = %+v, %v; want expect_open config", c, err)
	}
	if _, err := Fill(gateCase("config", gcfg(1, 1, 1, 1, 0, 1), "slots 0", on("GATE-1"), inFlight())); err == nil {
		t.Error("Fill(slots 0 with an op) = no error, want the ops refused")
	}
}
