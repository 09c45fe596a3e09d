package judge_test

import (
	"testing"

	"github.com/limcheck/limcheck/conformance/judge"
)

// Listed turns a judgement into its verdict against an expect-fail list,
// and Failing says which verdicts fail a run.
func TestVerdictListedFailing(t *testing.T) {
	rows := []struct {
		reason      string
		v, listed   judge.Verdict
		failing     bool
		listedFails bool
	}{
		{"a listed pass is an unexpected pass, which fails", judge.Pass, judge.XPass, false, true},
		{"a listed failure is expected, which does not fail", judge.Fail, judge.XFail, true, false},
		{"a skip stays a skip", judge.Skip, judge.Skip, false, false},
		{"a break fails, listed or not", judge.Broken, judge.Broken, true, true},
		{"a case not run does not fail on its own", judge.NotRun, judge.NotRun, false, false},
	}
	for _, r := range rows {
		if got := r.v.Listed(); got != r.listed {
			t.Errorf("%s: %s.Listed() = %s, want %s", r.reason, r.v, got, r.listed)
		}
		if got := r.v.Failing(); got != r.failing {
			t.Errorf("%s: %s.Failing() = %v, want %v", r.reason, r.v, got, r.failing)
		}
		if got := r.v.Listed().Failing(); got != r.listedFails {
			t.Errorf("%s: %s.Listed().Failing() = %v, want %v", r.reason, r.v, got, r.listedFails)
		}
	}
}
