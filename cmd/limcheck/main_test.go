package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/internal/walkthrough"
)

// TestRunExitStatus checks the documented exit statuses and output of run.
func TestRunExitStatus(t *testing.T) {
	tests := []struct {
		args       []string
		wantStatus int
		wantOut    string // a substring of stdout
		wantErr    string // a substring of stderr
		reason     string
	}{
		{nil, exitOK, "0 failed\n", "", "the default run walks every example and matches spec.md"},
		{[]string{"-q"}, exitOK, "passed, 0 failed\n", "", "quiet prints the closing line"},
		{[]string{"extra"}, exitUsage, "", `unexpected argument "extra"`, "a stray argument is a usage error"},
		{[]string{"-nope"}, exitUsage, "", "flag provided but not defined", "an unknown flag is a usage error"},
	}
	for _, tt := range tests {
		if tt.reason == "" {
			t.Fatalf("row %v has no reason", tt.args)
		}
		var out, errOut bytes.Buffer
		got := run(tt.args, &out, &errOut)
		if got != tt.wantStatus || !strings.Contains(out.String(), tt.wantOut) || !strings.Contains(errOut.String(), tt.wantErr) {
			t.Errorf("run(%q) = %d, stdout %q, stderr %q; want %d, stdout containing %q, stderr containing %q (%s)",
				tt.args, got, out.String(), errOut.String(), tt.wantStatus, tt.wantOut, tt.wantErr, tt.reason)
		}
	}
}

// TestQuietOmitsPassingSteps checks that -q prints no passing step.
func TestQuietOmitsPassingSteps(t *testing.T) {
	var out bytes.Buffer
	run([]string{"-q"}, &out, &bytes.Buffer{})
	if strings.Contains(out.String(), "  ok ") {
		t.Errorf("run(-q) printed passing steps:\n%s", out.String())
	}
}

// TestReportCountsFailures checks that a step differing from spec.md is
// printed as FAIL with got and want, and counted.
func TestReportCountsFailures(t *testing.T) {
	var out bytes.Buffer
	ex := []walkthrough.Example{{ID: "FIND-1", Title: "t", Steps: []walkthrough.Step{
		{Call: "f()", Got: "1", Want: "1"},
		{Call: "g()", Got: "2", Want: "3"},
	}}}
	if got := report(ex, true, &out); got != 1 {
		t.Errorf("report(...) = %d failed, want 1", got)
	}
	for _, want := range []string{"FAIL FIND-1 g()", "got  2", "want 3", "1 passed, 1 failed\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report output lacks %q:\n%s", want, out.String())
		}
	}
}
