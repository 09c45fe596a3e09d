package walkthrough_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/limcheck/limcheck/internal/walkthrough"
)

// TestExamplesMatchSpec runs every example and fails on any step whose model
// result differs from the value spec.md states.
func TestExamplesMatchSpec(t *testing.T) {
	for _, e := range walkthrough.All() {
		for _, s := range e.Steps {
			if !s.OK() {
				t.Errorf("%s: %s = %s, want %s", e.ID, s.Call, s.Got, s.Want)
			}
		}
		if len(e.Steps) == 0 {
			t.Errorf("%s has no steps", e.ID)
		}
	}
}

// TestEveryFindingWalked checks that each finding of spec.md (FIND-1 ..
// FIND-11) has an example, so limcheck's default run shows all of them.
func TestEveryFindingWalked(t *testing.T) {
	spec, err := os.ReadFile("../../spec.md")
	if err != nil {
		t.Fatal(err)
	}
	walked := map[string]bool{}
	for _, e := range walkthrough.All() {
		walked[e.ID] = true
	}
	defs := regexp.MustCompile(`(?m)^- \*\*(FIND-[0-9]+)\*\*`).FindAllSubmatch(spec, -1)
	if len(defs) == 0 {
		t.Fatal("spec.md defines no finding")
	}
	for _, d := range defs {
		if !walked[string(d[1])] {
			t.Errorf("finding %s of spec.md has no walkthrough example", d[1])
		}
	}
}

// TestFailedCountsMismatches checks Example.Failed on a hand-made example.
func TestFailedCountsMismatches(t *testing.T) {
	e := walkthrough.Example{ID: "x", Steps: []walkthrough.Step{
		{Call: "a", Got: "1", Want: "1"},
		{Call: "b", Got: "1", Want: "2"},
	}}
	if got := e.Failed(); got != 1 {
		t.Errorf("Failed() = %d, want 1", got)
	}
}

// TestBudgetFindingsShowARefusal: the walks of FIND-16 and FIND-27 each
// reach an admit the set's budget refuses (GATE-19): limited, with no way.
func TestBudgetFindingsShowARefusal(t *testing.T) {
	for _, e := range walkthrough.All() {
		if e.ID != "FIND-16" && e.ID != "FIND-27" {
			continue
		}
		refused := false
		for _, s := range e.Steps {
			refused = refused || regexp.MustCompile(`^limited set=\d+ way=none retry=1000 `).MatchString(s.Got)
		}
		if !refused {
			t.Errorf("%s's walk has no admit refused by the budget (limited, way=none, retry 1000)", e.ID)
		}
	}
}
