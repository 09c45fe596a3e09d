package report

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestFitText: a counterexample's description, escaped, keeps to a
// vector's string limit (VEC-1) and says how much was cut.
func TestFitText(t *testing.T) {
	for _, tc := range []struct {
		clause, reason, s string
		limit             int
		want              string
	}{
		{"VEC-1", "short enough: unchanged", "abc", 3, "abc"},
		{"VEC-1", "cut with its note, within the limit", strings.Repeat("x", 100), 40, strings.Repeat("x", 20) + " ... (80 bytes cut)"},
		{"VEC-1", "cut at a rune boundary", strings.Repeat("é", 50), 40, strings.Repeat("é", 10) + " ... (80 bytes cut)"},
	} {
		if tc.reason == "" {
			t.Fatal("a row without a reason")
		}
		got := fitText(tc.s, tc.limit)
		if got != tc.want || len(got) > tc.limit || !utf8.ValidString(got) {
			t.Errorf("%s (%s): fitText(%d bytes, %d) = %q (%d bytes), want %q", tc.clause, tc.reason, len(tc.s), tc.limit, got, len(got), tc.want)
		}
	}
}
