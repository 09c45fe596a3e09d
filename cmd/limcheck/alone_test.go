package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/conformance/judge"
)

// TestRestartProblemNamesTheTimeGiven checks that a re-run alone that
// outlives the re-runs' time is reported with the time they were given
// (as long as the run took, here 42 s), not only the floor.
func TestRestartProblemNamesTheTimeGiven(t *testing.T) {
	now := time.Now()
	pf := &portFlags{deadline: now.Add(time.Hour), timeout: time.Hour}
	budget := *pf
	budget.deadline = now.Add(42 * time.Second)
	err := fmt.Errorf("run: %w", &judge.DeadlineError{Deadline: budget.deadline, During: "the conversation", Trace: -1, Op: -2})
	got := restartProblem(err, pf, &budget, 42*time.Second)
	if want := "was still in the conversation when the re-runs' time was over (42s: as long as the run took, at least 15s and the handshake timeout)"; got != want {
		t.Errorf("restartProblem(deadline of the re-runs) = %q, want %q", got, want)
	}
	if got := restartProblem(err, pf, pf, 42*time.Second); !strings.Contains(got, "--timeout") {
		t.Errorf("restartProblem(deadline of the run) = %q, want the run's --timeout named", got)
	}
}
