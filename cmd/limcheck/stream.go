package main

import (
	"sync"
	"syscall"
	"time"

	"github.com/limcheck/limcheck/conformance/report"
)

// live is a run's report while the run goes on (report.Live, whose
// mutex guards the fields here too), and a signal that stops limcheck
// prints what the run has so far (partial).
type live struct {
	*report.Live
	c      cli
	cmd    string
	rf     *reportFlags
	start  time.Time
	ended  bool              // emit is printing the report, or has: no signal prints another
	onStop func(*report.Run) // prints the report a signal stops, instead of emit
}

// current is the live report a signal prints, if any.
var current struct {
	sync.Mutex
	lv *live
}

// newLive begins the live report of j's run on the port rep describes,
// and prints the text report's head.
func (c cli) newLive(j checkJob, rep *report.Run, start time.Time) *live {
	opt := report.LiveOptions{Quiet: j.rf.quiet, Alone: j.alone, FailFast: j.rf.failFast}
	if j.stream && !j.rf.json {
		opt.Text = c.stdout
	}
	if c.tty && !j.rf.json {
		opt.Progress = c.stderr
	}
	lv := &live{Live: report.NewLive(rep, j.selected, opt), c: c, cmd: j.cmd, rf: j.rf, start: start, onStop: j.onStop}
	current.Lock()
	current.lv = lv
	current.Unlock()
	return lv
}

// end releases the report from the signals, its mutex held: the run is
// over, and a signal from now on prints no report of it.
func (lv *live) end() {
	lv.ended = true
	current.Lock()
	current.lv = nil
	current.Unlock()
	lv.ClearProgress()
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
	lv.Lock()
	if lv.ended {
		lv.Unlock()
		return nil
	}
	return lv
}

// partial prints the report of a run that sig stops, its mutex held
// (freeze) and every port stopped: the cases so far, the others NOT RUN,
// and the status 128 + sig. limcheck exits next.
func (lv *live) partial(sig syscall.Signal) {
	lv.Interrupt(sig, time.Since(lv.start))
	if lv.onStop != nil {
		lv.onStop(lv.Run)
		return
	}
	lv.c.emit(lv.cmd, lv.rf, lv.Run)
}
