package search_test

import (
	"errors"
	"testing"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/search"
	"github.com/limcheck/limcheck/oracle"
)

// stopper closes stop on its call of one trace after the first after
// ones (shrinking's), and breaks there, as a port limcheck kills on a
// signal does.
type stopper struct {
	judge.Runner
	stop    chan struct{}
	singles *int
	after   int
}

func (s stopper) RunTraces(ts []oracle.Trace, each func(int, judge.TraceRun)) error {
	if len(ts) == 1 {
		if *s.singles++; *s.singles > s.after {
			close(s.stop)
			return &judge.BrokenError{What: "killed"}
		}
	}
	return s.Runner.RunTraces(ts, each)
}

// A stop while shrinking loses nothing: shrinking stops as interrupted,
// not broken, no fresh runner starts, and the smallest failing trace so
// far is the counterexample, with its case.
func TestFuzzStoppedWhileShrinkingKeepsTheCounterexample(t *testing.T) {
	stop, singles := make(chan struct{}), 0
	r := stopper{judge.SubjectRunner{S: limRetryMutant}, stop, &singles, 20}
	fresh := func() (judge.Runner, func() error, error) {
		t.Error("a fresh runner started after the stop")
		return nil, nil, errors.New("no")
	}
	rep, err := search.Fuzz(r, search.FuzzOptions{Seed: 7, Ops: 5000, Components: []oracle.Component{oracle.Lim}, Stop: stop, Fresh: fresh})
	if err != nil || rep.Found == nil {
		t.Fatalf("Fuzz stopped while shrinking = %+v, %v; want Found, no error", rep, err)
	}
	f := rep.Found
	if f.ShrinkStop != search.ShrinkInterrupted || f.ShrinkErr != nil || f.ShrinkRuns != 21 || !errors.Is(f.ConfirmErr, search.ErrStopped) {
		t.Errorf("Found: ShrinkStop %q, ShrinkErr %v, ShrinkRuns %d, ConfirmErr %v; want %q, nil, 21, ErrStopped",
			f.ShrinkStop, f.ShrinkErr, f.ShrinkRuns, f.ConfirmErr, search.ShrinkInterrupted)
	}
	if f.Case.ID == "" || len(f.Trace.Ops) >= len(f.Original.Ops) {
		t.Errorf("Found: case %q, %d ops of %d; want a case, shrunk some", f.Case.ID, len(f.Trace.Ops), len(f.Original.Ops))
	}
}

// A stop before anything failed ends the run: Stopped, no error.
func TestFuzzStoppedBeforeAFailure(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	rep, err := search.Fuzz(judge.SubjectRunner{S: oracle.Model{}}, search.FuzzOptions{Seed: 1, Ops: 1 << 30, Stop: stop})
	if err != nil || !rep.Stopped || rep.Found != nil {
		t.Errorf("Fuzz, stopped = %+v, %v; want Stopped, no error", rep, err)
	}
}
