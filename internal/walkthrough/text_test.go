package walkthrough_test

import (
	"strings"
	"testing"

	"github.com/limcheck/limcheck/internal/walkthrough"
)

// The text forms print every step, or only the failed ones, with a
// closing count, and return the number of failed steps.
func TestTextFormsCountAndShowFailures(t *testing.T) {
	ex := []walkthrough.Example{{ID: "FIND-1", Title: "t", Steps: []walkthrough.Step{
		{Call: "a()", Got: "1", Want: "1"},
		{Call: "b()", Got: "2", Want: "3"},
	}}}
	for _, tt := range []struct {
		name  string
		write func(*strings.Builder) int
		want  string
	}{
		{"WriteText", func(b *strings.Builder) int { return walkthrough.WriteText(b, ex, false) },
			"FIND-1: t\n  ok   a() = 1\n  FAIL FIND-1 b()\n       got  2\n       want 3\n1 passed, 1 failed\n"},
		{"WriteText quiet", func(b *strings.Builder) int { return walkthrough.WriteText(b, ex, true) },
			"  FAIL FIND-1 b()\n       got  2\n       want 3\n1 passed, 1 failed\n"},
		{"WriteBrief", func(b *strings.Builder) int { return walkthrough.WriteBrief(b, ex) },
			"FAIL   FIND-1 b(): got 2, spec.md says 3\nspec.md worked example and findings, through the model: 2 steps: 1 passed, 1 failed\n"},
	} {
		var b strings.Builder
		if n := tt.write(&b); n != 1 || b.String() != tt.want {
			t.Errorf("%s = %d, %q; want 1, %q", tt.name, n, b.String(), tt.want)
		}
	}
}
