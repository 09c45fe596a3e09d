package slowdown

import (
	"testing"
	"time"
)

// TestParseAcceptsOnlyFactorsFromOneUp: the knob is a number >= 1; anything
// else is an error that names the variable, never a silent default.
func TestParseAcceptsOnlyFactorsFromOneUp(t *testing.T) {
	for _, tt := range []struct {
		in     string
		want   float64
		ok     bool
		reason string
	}{
		{"", 1, true, "unset means no scaling"},
		{"1", 1, true, "the smallest factor"},
		{"2.5", 2.5, true, "fractions scale too"},
		{"0.5", 0, false, "a factor below 1 would shorten the generous bases"},
		{"0", 0, false, "zero would make every limit zero"},
		{"-3", 0, false, "negative"},
		{"NaN", 0, false, "not a number"},
		{"fast", 0, false, "not a number"},
		{"1e9", 0, false, "an overflowing duration"},
	} {
		got, err := parse(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parse(%q) = %v, %v; want %v, ok %v (%s)", tt.in, got, err, tt.want, tt.ok, tt.reason)
		}
	}
}

// TestScaleMultipliesByTheFactor: Scale(d) is d times the factor.
func TestScaleMultipliesByTheFactor(t *testing.T) {
	t.Setenv(Env, "3")
	if got := Scale(2 * time.Second); got != 6*time.Second {
		t.Errorf("Scale(2s) with %s=3 = %v, want 6s", Env, got)
	}
	t.Setenv(Env, "")
	if got := Scale(2 * time.Second); got != 2*time.Second {
		t.Errorf("Scale(2s) with %s unset = %v, want 2s", Env, got)
	}
}
