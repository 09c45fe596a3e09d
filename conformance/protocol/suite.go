package protocol

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/oracle"
)

// The verdicts of a case a port broke on, and of the cases it never
// reached, beside conformance.Check's Pass, Fail and Skip.
const (
	Broken conformance.Verdict = "broken"  // the port broke the protocol during this case (PROTO-9)
	NotRun conformance.Verdict = "not_run" // the port broke before this case ran
)

// CaseResult is what became of one case in a suite run.
type CaseResult struct {
	Case    conformance.Case
	Verdict conformance.Verdict
	// Divergence is the first result that differs from the case's
	// expectation (Fail); nil when the failure is a fault.
	Divergence *oracle.Divergence
	// Why says in one line why the case failed, was skipped, broke or did
	// not run.
	Why string
	// Got is what the port returned: the outcome of open and the results
	// of the ops that ran (of a twin case's second instance when that is
	// where it diverged).
	Got oracle.Outcome
	// Stderr is what the port wrote on stderr while the case ran.
	Stderr string
	// Elapsed is the time from the end of the case before (or the start
	// of the run) to the end of this one: with requests pipelined, the
	// case's share of the run's time.
	Elapsed time.Duration
}

// RunCases runs every case on r, pipelined, and returns one result per
// case, in the order of cases. A case of a component r does not implement
// is skipped without a request. When r breaks, the case in flight is
// Broken, every later case NotRun, and the *BrokenError is returned too.
// When a port's deadline passes, the case in flight and every later case
// are NotRun, and the *DeadlineError is returned too.
func RunCases(r Runner, cases []conformance.Case) ([]CaseResult, error) {
	results := make([]CaseResult, 0, len(cases))
	err := RunCasesEach(r, cases, func(res CaseResult) { results = append(results, res) })
	return results, err
}

// RunCasesEach is RunCases calling each with every case's result, in the
// order of cases, as soon as it and every case before it are known: a
// reporter prints a case as it finishes. each runs on the caller's
// goroutine, between the port's replies: it must not block for long.
//
// spec VEC-12: "A subject that does not implement a case's component ... skips it"
// spec PROTO-9: "reports the case in flight as broken ... reports every case not finished as not run"
func RunCasesEach(r Runner, cases []conformance.Case, each func(CaseResult)) error {
	results := make([]CaseResult, len(cases))
	final := make([]bool, len(cases))
	var traces []oracle.Trace
	var index []int // index[i] is the case of traces[i]
	for i, c := range cases {
		results[i] = CaseResult{Case: c, Verdict: NotRun, Why: "not run: the port broke before it"}
		if !r.Implements(c.Component) {
			results[i].Verdict, results[i].Why = conformance.Skip, fmt.Sprintf("%s does not implement %s", r.Name(), c.Component)
			final[i] = true
			continue
		}
		traces = append(traces, c.Trace())
		index = append(index, i)
	}
	next, last := 0, time.Now()
	flush := func() {
		for ; next < len(cases) && final[next]; next++ {
			now := time.Now()
			results[next].Elapsed, last = now.Sub(last), now
			each(results[next])
		}
	}
	flush()
	err := r.RunTraces(traces, func(i int, run TraceRun) {
		res := &results[index[i]]
		*res = judge(res.Case, traces[i], run)
		final[index[i]] = true
		flush()
	})
	var late *DeadlineError
	if errors.As(err, &late) {
		for i := range results {
			if results[i].Verdict == NotRun {
				results[i].Why = "not run: the deadline passed before it finished"
			}
		}
	}
	var broken *BrokenError
	if errors.As(err, &broken) && broken.Trace >= 0 && broken.Trace < len(index) {
		res := &results[index[broken.Trace]]
		res.Verdict, res.Stderr = Broken, broken.Stderr
		res.Why = broken.What
		if at := describe(traces[broken.Trace], broken.Op); broken.Op >= -1 && !strings.Contains(broken.What, at) {
			res.Why = fmt.Sprintf("%s, at %s", broken.What, at)
		}
	}
	for i := range final {
		final[i] = true
	}
	flush()
	return err
}

// twinDivergence returns the first divergence of the second instance of
// twin trace t from want; nil when t is not a twin, its config was
// refused, or the second instance agrees.
//
// spec VEC-15: "each instance's results must equal expect"
func twinDivergence(t oracle.Trace, want oracle.Outcome, run TraceRun) *oracle.Divergence {
	if !t.Twin || want.Open != "" {
		return nil
	}
	return oracle.Compare(t, want, oracle.Outcome{Results: run.Twin})
}

// judge compares a case's run with its expectations.
//
// spec VEC-10: "It passes iff every op's result equals its expect exactly"
func judge(c conformance.Case, t oracle.Trace, run TraceRun) CaseResult {
	res := CaseResult{Case: c, Got: run.Outcome, Stderr: run.Stderr}
	switch {
	case run.Skipped != "":
		res.Verdict, res.Why = conformance.Skip, "skipped by the port: "+run.Skipped
	case run.Fault != "":
		res.Verdict, res.Why = conformance.Fail, run.FaultAt(describe(t, run.FaultOp))
	default:
		if d := oracle.Compare(t, c.Expected(), run.Outcome); d != nil {
			res.Verdict, res.Divergence = conformance.Fail, d
			res.Why = "result differs at " + describe(t, d.Index)
		} else if d := twinDivergence(t, c.Expected(), run); d != nil {
			res.Verdict, res.Divergence = conformance.Fail, d
			res.Got = oracle.Outcome{Results: run.Twin} // what diverged: the second instance's
			res.Why = "result differs on the second instance (open beside the first) at " + describe(t, d.Index)
		} else {
			res.Verdict = conformance.Pass
		}
	}
	return res
}
