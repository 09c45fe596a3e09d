package report

import (
	"bufio"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
)

// Live is a run's report while the run goes on: the text report prints
// each case as soon as it and the cases before it are final, and a
// terminal shows a progress line.
//
// A failing case that run --alone re-runs alone for its own stderr is
// final only after that re-run, at the end of the run: from it on the
// text waits for the end (Held). The embedded Mutex guards every field
// but the streams; Add, AddAll, Stopped and RunInBatches take it, the
// other methods want it held.
type Live struct {
	sync.Mutex
	Run      *Run
	Cases    []conformance.Case // the cases of the run, in order
	Held     bool               // a case may wait for its re-run alone: the text waits too
	out      *bufio.Writer      // the text report as it streams; nil without one
	progress *progress          // nil without a terminal
	opt      LiveOptions
	failed   int  // the failing cases so far
	stop     bool // --fail-fast saw a failure: no further batch runs
}

// LiveOptions say what a Live report shows.
type LiveOptions struct {
	Text     io.Writer // where the text report streams; nil: nowhere (--json)
	Progress io.Writer // where the progress line is drawn (a terminal); nil: none
	Quiet    bool      // the text shows only the cases that do not pass or skip
	Alone    int       // the first failing cases that wait for a re-run alone
	FailFast bool      // the run stops at the first failure
}

// NewLive begins the live report of a run of cases, rep, and prints the
// text report's head.
func NewLive(rep *Run, cases []conformance.Case, opt LiveOptions) *Live {
	l := &Live{Run: rep, Cases: cases, opt: opt}
	if opt.Text != nil {
		l.out = bufio.NewWriter(opt.Text)
		WriteHead(l.out, rep, len(cases))
		rep.HeadShown = true
		l.out.Flush() //nolint:errcheck // the final report reports a write error
	}
	if opt.Progress != nil {
		l.progress = &progress{w: opt.Progress, total: len(cases)}
	}
	return l
}

// Add takes in the result of the next case and prints what is final.
func (l *Live) Add(r judge.CaseResult) {
	l.Lock()
	defer l.Unlock()
	l.Run.Add([]judge.CaseResult{r})
	cr := &l.Run.Cases[len(l.Run.Cases)-1]
	if Failing(cr.Verdict) {
		l.failed++
		l.stop = l.opt.FailFast
		// Whether the port wrote stderr for this case may not be known
		// yet (its stderr is read apart from its replies, and can come
		// after them), so the text waits from the first case that may be
		// re-run; the end of the run decides.
		if cr.Verdict == string(judge.Fail) && l.failed <= l.opt.Alone {
			l.Held = true
		}
	}
	if !l.Held {
		l.flush()
	}
	l.progress.show(len(l.Run.Cases), cr.ID)
}

// AddAll is Add of every result of rs.
func (l *Live) AddAll(rs []judge.CaseResult) {
	for _, r := range rs {
		l.Add(r)
	}
}

// flush prints the cases not printed yet; the mutex is held.
func (l *Live) flush() {
	if l.out == nil {
		return
	}
	l.progress.clear()
	for ; l.Run.Streamed < len(l.Run.Cases); l.Run.Streamed++ {
		WriteCase(l.out, l.Run.Cases[l.Run.Streamed], l.opt.Quiet)
	}
	l.out.Flush() //nolint:errcheck // the final report reports a write error
}

// Stopped reports whether --fail-fast stops the run.
func (l *Live) Stopped() bool {
	l.Lock()
	defer l.Unlock()
	return l.stop
}

// ClearProgress erases the progress line, so that what follows is plain.
func (l *Live) ClearProgress() { l.progress.clear() }

// Interrupt closes the report of a run that sig stopped after elapsed:
// the cases so far, the others NOT RUN, and the status 128 + sig.
func (l *Live) Interrupt(sig syscall.Signal, elapsed time.Duration) {
	rep := l.Run
	done := len(rep.Cases)
	rest := make([]judge.CaseResult, 0, len(l.Cases)-done)
	for _, cs := range l.Cases[done:] {
		rest = append(rest, judge.CaseResult{Case: cs, Verdict: judge.NotRun, Why: "not run: limcheck was stopped before it"})
	}
	rep.Add(rest)
	rep.Finish(elapsed)
	rep.Signal = int(sig)
	rep.StoppedBy = fmt.Sprintf("limcheck was stopped (%v)", sig)
	rep.Incomplete = fmt.Sprintf("%s after %d of %s", rep.StoppedBy, done, Plural(len(l.Cases), "case"))
	l.progress.clear()
}

// BatchOps is about how many ops one RunCases call of RunInBatches runs.
const BatchOps = 4096

// RunInBatches runs cases on r, about BatchOps ops at a time (one case
// at a time with FailFast, which stops after the first that fails), and
// adds the results as they come: the report keeps little of a case
// (nothing of the port's results unless it failed), so a long vector set
// never holds every result at once. When r breaks, the cases after the
// batch are not run.
func (l *Live) RunInBatches(r judge.Runner, cases []conformance.Case) error {
	for len(cases) > 0 {
		n, ops := 0, 0
		for n < len(cases) && (n == 0 || (!l.opt.FailFast && ops+len(cases[n].Ops) <= BatchOps)) {
			ops += len(cases[n].Ops)
			n++
		}
		err := judge.RunCasesEach(r, cases[:n], l.Add)
		cases = cases[n:]
		if err != nil {
			l.AddAll(notRun(r, cases))
			return err
		}
		if l.Stopped() && len(cases) > 0 {
			rest := notRun(r, cases)
			for i := range rest {
				if rest[i].Verdict == judge.NotRun {
					rest[i].Why = "not run: --fail-fast stopped the run at the first failure"
				}
			}
			l.AddAll(rest)
			l.Lock()
			l.Run.StoppedBy = "--fail-fast stopped the run at the first failure"
			l.Unlock()
			return nil
		}
	}
	return nil
}

// notRun is the results of cases that did not run because r broke before
// them: as RunCases reports them, a case r does not implement skipped.
func notRun(r judge.Runner, cases []conformance.Case) []judge.CaseResult {
	out := make([]judge.CaseResult, len(cases))
	for i, c := range cases {
		out[i] = judge.CaseResult{Case: c, Verdict: judge.NotRun, Why: "not run: the port broke before it"}
		if !r.Implements(c.Component) {
			out[i].Verdict, out[i].Why = judge.Skip, fmt.Sprintf("%s does not implement %s", r.Name(), c.Component)
		}
	}
	return out
}

// progress is the line a terminal shows while a run goes on, redrawn at
// most every 100ms.
type progress struct {
	w     io.Writer
	total int
	shown time.Time
	drawn bool
}

// show draws the progress after done cases, the last one id.
func (p *progress) show(done int, id string) {
	if p == nil || time.Since(p.shown) < 100*time.Millisecond {
		return
	}
	p.shown, p.drawn = time.Now(), true
	fmt.Fprintf(p.w, "\r\033[Krun: %d of %d cases, last %s ", done, p.total, id)
}

// clear erases the progress line, so that the report's lines are plain.
func (p *progress) clear() {
	if p == nil || !p.drawn {
		return
	}
	p.drawn = false
	fmt.Fprint(p.w, "\r\033[K")
}
