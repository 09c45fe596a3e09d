package judge

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/oracle"
)

// CaseResult is what became of one case in a suite run.
type CaseResult struct {
	Case    conformance.Case
	Verdict Verdict // Pass, Fail, Skip, Broken or NotRun
	// Divergence is the first result that differs from the case's
	// expectation (Fail); nil when the failure is a fault. Twin says it
	// is on the second instance of a twin case: the first agreed.
	Divergence *oracle.Divergence
	Twin       bool
	// Why says in one line why the case failed, was skipped, broke or did
	// not run.
	Why string
	// Got is what the implementation returned: the outcome of open and
	// the results of the ops that ran (of a twin case's second instance
	// when that is where it diverged).
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
func RunCasesEach(r Runner, cases []conformance.Case, each func(CaseResult)) error {
	s := newSuite(r, cases, each)
	s.flush()
	err := r.RunTraces(s.traces, func(i int, run TraceRun) {
		k := s.index[i]
		s.results[k] = Judge(s.results[k].Case, s.traces[i], run)
		s.final[k] = true
		s.flush()
	})
	s.stopped(err)
	for i := range s.final {
		s.final[i] = true
	}
	s.flush()
	return err
}

// suite is a RunCasesEach in progress.
type suite struct {
	results []CaseResult
	final   []bool         // final[k]: results[k] is known
	traces  []oracle.Trace // the traces of the cases r implements
	index   []int          // index[i] is the case of traces[i]
	next    int            // the first case not handed to each
	last    time.Time      // when the case before next ended
	each    func(CaseResult)
}

// newSuite starts a run of cases on r: every case NotRun, but those of a
// component r does not implement, Skip.
func newSuite(r Runner, cases []conformance.Case, each func(CaseResult)) *suite {
	s := &suite{results: make([]CaseResult, len(cases)), final: make([]bool, len(cases)), each: each, last: time.Now()}
	for i, c := range cases {
		s.results[i] = CaseResult{Case: c, Verdict: NotRun, Why: "not run: the port broke before it"}
		if !r.Implements(c.Component) {
			s.results[i].Verdict, s.results[i].Why = Skip, fmt.Sprintf("%s does not implement %s", r.Name(), c.Component)
			s.final[i] = true
			continue
		}
		s.traces = append(s.traces, c.Trace())
		s.index = append(s.index, i)
	}
	return s
}

// flush hands each every result known, in order, up to the first not
// known.
func (s *suite) flush() {
	for ; s.next < len(s.results) && s.final[s.next]; s.next++ {
		now := time.Now()
		s.results[s.next].Elapsed, s.last = now.Sub(s.last), now
		s.each(s.results[s.next])
	}
}

// stopped records why the run stopped early: the deadline, or the break
// of the case in flight.
//
// spec PROTO-9: "reports the case in flight as broken ... reports every case not finished as not run"
func (s *suite) stopped(err error) {
	var late *DeadlineError
	if errors.As(err, &late) {
		for i := range s.results {
			if s.results[i].Verdict == NotRun {
				s.results[i].Why = "not run: the deadline passed before it finished"
			}
		}
	}
	var broken *BrokenError
	if !errors.As(err, &broken) || broken.Trace < 0 || broken.Trace >= len(s.index) {
		return
	}
	res := &s.results[s.index[broken.Trace]]
	res.Verdict, res.Stderr = Broken, broken.Stderr
	res.Why = broken.What
	if at := OpName(s.traces[broken.Trace], broken.Op); broken.Op >= -1 && !strings.Contains(broken.What, at) {
		res.Why = fmt.Sprintf("%s, at %s", broken.What, at)
	}
}
