package main

import (
	"bufio"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/report"
)

// live is a run's report while the run goes on: the text report prints
// each case as soon as it and the cases before it are final, a terminal
// shows a progress line on stderr, and a signal that stops limcheck
// prints what the run has so far (partial).
//
// A failing case that run --alone re-runs alone for its own stderr is
// final only after that re-run, at the end of the run: from it on the
// text waits for the end. Every field but the streams is guarded by mu.
type live struct {
	mu       sync.Mutex
	c        cli
	cmd      string
	rf       *reportFlags
	rep      *report.Run
	cases    []conformance.Case // the cases of the run, in order
	out      *bufio.Writer      // the text report as it streams; nil with --json
	progress *progress          // nil unless stderr is a terminal
	start    time.Time
	alone    int  // run --alone: the first failing cases that wait for a re-run alone
	failed   int  // the failing cases so far
	ended    bool // emit is printing the report, or has: no signal prints another
	held     bool // a case may wait for its re-run alone: the text waits too
	stop     bool // --fail-fast saw a failure: no further batch runs
	failFast bool
	onStop   func(*report.Run) // prints the report a signal stops, instead of emit
}

// current is the live report a signal prints, if any.
var current struct {
	sync.Mutex
	lv *live
}

// newLive begins the live report of j's run on the port rep describes,
// and prints the text report's head.
func (c cli) newLive(j checkJob, rep *report.Run, start time.Time) *live {
	rf, cases := j.rf, j.selected
	lv := &live{c: c, cmd: j.cmd, rf: rf, rep: rep, cases: cases, alone: j.alone, start: start, failFast: rf.failFast, onStop: j.onStop}
	if j.stream && !rf.json {
		lv.out = bufio.NewWriter(c.stdout)
		report.WriteHead(lv.out, rep, len(cases))
		rep.HeadShown = true
		lv.out.Flush() //nolint:errcheck // emit reports a write error
	}
	if c.tty && !rf.json {
		lv.progress = &progress{w: c.stderr, total: len(cases)}
	}
	current.Lock()
	current.lv = lv
	current.Unlock()
	return lv
}

// add takes in the result of the next case and prints what is final.
func (lv *live) add(r judge.CaseResult) {
	lv.mu.Lock()
	defer lv.mu.Unlock()
	lv.rep.Add([]judge.CaseResult{r})
	cr := &lv.rep.Cases[len(lv.rep.Cases)-1]
	if report.Failing(cr.Verdict) {
		lv.failed++
		lv.stop = lv.failFast
		// Whether the port wrote stderr for this case may not be known
		// yet (its stderr is read apart from its replies, and can come
		// after them), so the text waits from the first case that may be
		// re-run; the end of the run decides (checkPort).
		if cr.Verdict == string(judge.Fail) && lv.failed <= lv.alone {
			lv.held = true
		}
	}
	if !lv.held {
		lv.flush()
	}
	lv.progress.show(len(lv.rep.Cases), cr.ID)
}

// addAll is add of every result of rs.
func (lv *live) addAll(rs []judge.CaseResult) {
	for _, r := range rs {
		lv.add(r)
	}
}

// flush prints the cases not printed yet; lv.mu is held.
func (lv *live) flush() {
	if lv.out == nil {
		return
	}
	lv.progress.clear()
	for ; lv.rep.Streamed < len(lv.rep.Cases); lv.rep.Streamed++ {
		report.WriteCase(lv.out, lv.rep.Cases[lv.rep.Streamed], lv.rf.quiet)
	}
	lv.out.Flush() //nolint:errcheck // emit reports a write error
}

// stopped reports whether --fail-fast stops the run.
func (lv *live) stopped() bool {
	lv.mu.Lock()
	defer lv.mu.Unlock()
	return lv.stop
}

// end releases the report from the signals, lv.mu held: the run is over,
// and a signal from now on prints no report of it.
func (lv *live) end() {
	lv.ended = true
	current.Lock()
	current.lv = nil
	current.Unlock()
	lv.progress.clear()
}

// freeze holds the live report, if any, for partial: a run that sig
// stops must not end on its own while its ports are killed (the main
// goroutine then sees a broken port). It returns nil for a signal that
// prints no report (SIGHUP: the terminal is gone; SIGQUIT; SIGPIPE: the
// output is), and when no run is going on.
func freeze(sig syscall.Signal) *live {
	if sig != syscall.SIGINT && sig != syscall.SIGTERM {
		return nil
	}
	current.Lock()
	lv := current.lv
	current.Unlock()
	if lv == nil {
		return nil
	}
	lv.mu.Lock()
	if lv.ended {
		lv.mu.Unlock()
		return nil
	}
	return lv
}

// partial prints the report of a run that sig stops, lv.mu held (freeze)
// and every port stopped: the cases so far, the others NOT RUN, and the
// status 128 + sig. limcheck exits next.
func (lv *live) partial(sig syscall.Signal) {
	rep := lv.rep
	done := len(rep.Cases)
	rest := make([]judge.CaseResult, 0, len(lv.cases)-done)
	for _, cs := range lv.cases[done:] {
		rest = append(rest, judge.CaseResult{Case: cs, Verdict: judge.NotRun, Why: "not run: limcheck was stopped before it"})
	}
	rep.Add(rest)
	rep.Finish(time.Since(lv.start))
	rep.Signal = int(sig)
	rep.StoppedBy = fmt.Sprintf("limcheck was stopped (%v)", sig)
	rep.Incomplete = fmt.Sprintf("%s after %d of %s", rep.StoppedBy, done, report.Plural(len(lv.cases), "case"))
	lv.progress.clear()
	if lv.onStop != nil {
		lv.onStop(rep)
		return
	}
	lv.c.emit(lv.cmd, lv.rf, rep)
}

// progress is the line a terminal shows on stderr while a run goes on,
// redrawn at most every 100ms.
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
