package main

import (
	"slices"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/conformance/report"
	"github.com/limcheck/limcheck/oracle"
)

// breaksInBatch is the model as a Runner that breaks at the third trace of
// its second RunTraces call.
type breaksInBatch struct {
	judge.SubjectRunner
	calls int
}

func (b *breaksInBatch) RunTraces(ts []oracle.Trace, each func(int, judge.TraceRun)) error {
	if b.calls++; b.calls < 2 {
		return b.SubjectRunner.RunTraces(ts, each)
	}
	b.SubjectRunner.RunTraces(ts[:2], each) //nolint:errcheck // a SubjectRunner never breaks
	return &judge.BrokenError{What: "no reply", Trace: 2, Op: -1}
}

// runInBatches reports what one RunCases would: every case once, in order;
// and when the port breaks in a later batch, the case in flight BROKEN and
// every later case NOT RUN.
func TestRunInBatches(t *testing.T) {
	var cases []conformance.Case
	for ops := 0; ops <= 2*report.BatchOps; {
		for _, c := range vectorCases(t) {
			cases = append(cases, c)
			ops += len(c.Ops)
		}
	}
	rep := report.Start(protocol.Hello{Name: "model"}, nil)
	if err := report.NewLive(rep, nil, report.LiveOptions{}).RunInBatches(judge.SubjectRunner{S: oracle.Model{}}, cases); err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != len(cases) || rep.Summary.Passed != len(cases) {
		t.Errorf("runInBatches(the model, %d cases) reports %d cases, %d passed; want every one passed", len(cases), len(rep.Cases), rep.Summary.Passed)
	}

	rep = report.Start(protocol.Hello{Name: "model"}, nil)
	if err := report.NewLive(rep, nil, report.LiveOptions{}).RunInBatches(&breaksInBatch{SubjectRunner: judge.SubjectRunner{S: oracle.Model{}}}, cases); err == nil {
		t.Fatal("runInBatches(a runner that breaks) = nil error, want the break")
	}
	i := slices.IndexFunc(rep.Cases, func(c report.Case) bool { return c.Verdict == string(judge.Broken) })
	if i < 0 || rep.Summary.Broken != 1 || rep.Summary.NotRun != len(cases)-i-1 || rep.Summary.Passed != i {
		t.Errorf("a break in the second batch: broken case %d, summary %+v; want every case before it passed, every one after not run", i, rep.Summary)
	}
}

// vectorCases is the built-in vectors.
func vectorCases(t *testing.T) []conformance.Case {
	t.Helper()
	cs, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
