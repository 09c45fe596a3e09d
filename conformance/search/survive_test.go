package search_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/search"
	"github.com/limcheck/limcheck/internal/slowdown"
	"github.com/limcheck/limcheck/oracle"
)

// slowRunner runs traces in process, each at least per late: a port that
// answers slowly, however fast the machine.
type slowRunner struct {
	judge.SubjectRunner
	per time.Duration
}

func (s slowRunner) RunTraces(ts []oracle.Trace, each func(int, judge.TraceRun)) error {
	return s.SubjectRunner.RunTraces(ts, func(i int, run judge.TraceRun) {
		time.Sleep(s.per)
		each(i, run)
	})
}

// A duration bounds the run within about a trace's time, however slow the
// runner: every trace takes at least 20ms, so a run of a second has room
// for about 50, never for the 64 of a whole batch (which it ran before the
// calls were paced). The duration is scaled, so that a machine too busy to
// generate the first traces within it still runs some.
func TestFuzzEndsWithinATraceOfItsDuration(t *testing.T) {
	per, duration := 20*time.Millisecond, slowdown.Scale(time.Second)
	r := slowRunner{judge.SubjectRunner{S: oracle.Model{}}, per}
	start := time.Now()
	rep, err := search.Fuzz(r, search.FuzzOptions{Seed: 1, Duration: duration})
	took := time.Since(start)
	if err != nil || rep.Found != nil || rep.Traces == 0 {
		t.Fatalf("Fuzz = %+v, %v", rep, err)
	}
	// Each call is sized to half the time left; the last, of one trace,
	// may start just before the end.
	if most := int(duration/per) + 2; rep.Traces > most {
		t.Errorf("Fuzz(duration %v, %v a trace) ran %d traces, want at most %d", duration, per, rep.Traces, most)
	}
	if bound := duration + slowdown.Scale(30*time.Second); took > bound {
		t.Errorf("Fuzz(duration %v) took %v, more than %v", duration, took, bound)
	}
	t.Logf("%d traces in %v", rep.Traces, took)
}

// A deadline that passes before the bound cuts the run short: TimedOut,
// no error, and what ran counted.
func TestFuzzStopsAtItsDeadlineIncomplete(t *testing.T) {
	per, within := 20*time.Millisecond, slowdown.Scale(time.Second)
	r := slowRunner{judge.SubjectRunner{S: oracle.Model{}}, per}
	rep, err := search.Fuzz(r, search.FuzzOptions{Seed: 1, Ops: 1 << 30, Deadline: time.Now().Add(within)})
	if most := int(within/per) + 2; err != nil || rep.Found != nil || !rep.TimedOut || rep.Traces == 0 || rep.Traces > most {
		t.Errorf("Fuzz past its deadline = %+v, %v; want TimedOut after 1 to %d traces, no error", rep, err, most)
	}
}

// deadlineBreaker breaks as a port does when its overall deadline passes
// (protocol.PortOptions.Deadline): on its call of one trace after the
// first after ones, it waits until then and returns a *BrokenError.
type deadlineBreaker struct {
	judge.Runner
	deadline time.Time
	singles  *int // calls of one trace (shrinking's) so far
	after    int  // break on the single call after this many
}

func (d deadlineBreaker) RunTraces(ts []oracle.Trace, each func(int, judge.TraceRun)) error {
	if len(ts) == 1 {
		if *d.singles++; *d.singles > d.after {
			time.Sleep(time.Until(d.deadline))
			return &judge.BrokenError{What: "the overall deadline passed", Trace: 0, Op: -1}
		}
	}
	return d.Runner.RunTraces(ts, each)
}

// A break while shrinking does not lose the divergence: Found holds the
// smallest failing trace reached, ShrinkStop says the runner broke (with
// its error), no error is returned, and the trace is confirmed on a fresh
// runner.
func TestFuzzKeepsTheDivergenceWhenTheRunnerBreaksWhileShrinking(t *testing.T) {
	singles := 0
	r := breakingShrink{judge.SubjectRunner{S: limRetryMutant}, &singles}
	fresh := func() (judge.Runner, func() error, error) {
		return judge.SubjectRunner{S: limRetryMutant}, nil, nil
	}
	rep, err := search.Fuzz(r, search.FuzzOptions{Seed: 1, Ops: 50_000, Fresh: fresh})
	if err != nil || rep.Found == nil {
		t.Fatalf("Fuzz = %+v, %v; want a counterexample", rep.Found, err)
	}
	ce := rep.Found
	var be *judge.BrokenError
	if ce.ShrinkStop != search.ShrinkBroken || !errors.As(ce.ShrinkErr, &be) || ce.ShrinkRuns != 4 {
		t.Errorf("ShrinkStop %q, ShrinkErr %v, ShrinkRuns %d; want the runner's break at run 4", ce.ShrinkStop, ce.ShrinkErr, ce.ShrinkRuns)
	}
	if ce.Confirmation != search.Confirmed || ce.ConfirmErr != nil {
		t.Errorf("Confirmation %q, %v; want confirmed on the fresh runner", ce.Confirmation, ce.ConfirmErr)
	}
	checkCounterexampleCase(t, ce, limRetryMutant)
}

// breakingShrink breaks on its fourth call of one trace (shrinking's).
type breakingShrink struct {
	judge.SubjectRunner
	singles *int
}

func (b breakingShrink) RunTraces(ts []oracle.Trace, each func(int, judge.TraceRun)) error {
	if len(ts) == 1 {
		if *b.singles++; *b.singles >= 4 {
			return &judge.BrokenError{What: "closed its stdout and exited (exit status 1)", Trace: 0, Op: -1, Stderr: "Traceback"}
		}
	}
	return b.SubjectRunner.RunTraces(ts, each)
}

// The deadline passing while shrinking stops it and keeps the divergence:
// ShrinkDeadline, no error, and no fresh run (the time is up).
func TestFuzzKeepsTheDivergenceWhenTheDeadlinePassesWhileShrinking(t *testing.T) {
	deadline := time.Now().Add(slowdown.Scale(2 * time.Second))
	singles := 0
	r := deadlineBreaker{judge.SubjectRunner{S: limRetryMutant}, deadline, &singles, 3}
	fresh := func() (judge.Runner, func() error, error) {
		t.Error("Fresh called after the deadline")
		return nil, nil, errors.New("no")
	}
	rep, err := search.Fuzz(r, search.FuzzOptions{Seed: 1, Ops: 50_000, Deadline: deadline, Fresh: fresh})
	if err != nil || rep.Found == nil || rep.TimedOut {
		t.Fatalf("Fuzz = %+v, %v; want a counterexample", rep, err)
	}
	ce := rep.Found
	if ce.ShrinkStop != search.ShrinkDeadline || ce.ShrinkRuns < 1 || ce.ShrinkRuns > 4 || ce.Confirmation != search.Unconfirmed || ce.ConfirmErr == nil {
		t.Errorf("ShrinkStop %q after %d runs, Confirmation %q (%v); want the deadline within 4 runs, unconfirmed", ce.ShrinkStop, ce.ShrinkRuns, ce.Confirmation, ce.ConfirmErr)
	}
	checkCounterexampleCase(t, ce, limRetryMutant)
}

// Limits that stop shrinking say which.
func TestFuzzSaysWhichLimitStoppedShrinking(t *testing.T) {
	tests := []struct {
		opt    search.FuzzOptions
		want   search.ShrinkStop
		reason string
	}{
		{search.FuzzOptions{ShrinkRuns: 3}, search.ShrinkRunLimit, "three runs are too few to finish"},
		{search.FuzzOptions{ShrinkTime: time.Nanosecond}, search.ShrinkTimeLimit, "no time to try a candidate"},
		{search.FuzzOptions{ShrinkRuns: 100_000}, search.ShrinkDone, "enough runs to finish"},
	}
	for _, tt := range tests {
		tt.opt.Seed, tt.opt.Ops = 1, 50_000
		rep, err := search.Fuzz(judge.SubjectRunner{S: limRetryMutant}, tt.opt)
		if err != nil || rep.Found == nil || rep.Found.ShrinkStop != tt.want || rep.Found.ShrinkErr != nil {
			t.Errorf("%s: Fuzz = %+v, %v; want ShrinkStop %q", tt.reason, rep.Found, err, tt.want)
		}
	}
}

// leaky is the model, lying (limRetryMutant's lie) once its state, kept
// across instances, says so: after afterOpens opens, or after afterOps
// ops in all.
type leaky struct {
	oracle.Model
	afterOpens, afterOps int
	opens, ops           *int
}

func newLeaky(afterOpens, afterOps int) leaky {
	return leaky{afterOpens: afterOpens, afterOps: afterOps, opens: new(int), ops: new(int)}
}

func (l leaky) Name() string                       { return "leaky" }
func (l leaky) Implements(c oracle.Component) bool { return c == oracle.Lim }

func (l leaky) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	honest, class, err := oracle.Model{}.Open(c, cfg)
	if *l.opens++; honest == nil || *l.opens <= l.afterOpens {
		return honest, class, err
	}
	lying, _, _ := limRetryMutant.Open(c, cfg)
	return leakyInstance{lying, honest, l}, class, err
}

type leakyInstance struct {
	lying, honest oracle.Instance
	l             leaky
}

func (i leakyInstance) Do(op oracle.Op) (oracle.Result, error) {
	r, err := i.lying.Do(op)
	h, _ := i.honest.Do(op)
	if *i.l.ops++; *i.l.ops <= i.l.afterOps {
		return h, err
	}
	return r, err
}

// freshLeaky is a Fresh for leaky subjects: a new one each time, its
// state as a new process's.
func freshLeaky(afterOpens, afterOps int) func() (judge.Runner, func() error, error) {
	return func() (judge.Runner, func() error, error) {
		return judge.SubjectRunner{S: newLeaky(afterOpens, afterOps)}, func() error { return nil }, nil
	}
}

// A counterexample is confirmed alone on a fresh runner before it is
// offered: shrunk inside a runner whose state leaks from one instance to
// the next, the shrunk trace may pass alone, and then the trace as found
// is tried; when neither fails alone, the one that failed is offered,
// marked.
func TestFuzzConfirmsTheCounterexampleOnAFreshRunner(t *testing.T) {
	tests := []struct {
		afterOpens, afterOps int
		want                 search.Confirmation
		reason               string
	}{
		{0, 0, search.Confirmed, "lies from the start: the shrunk trace fails alone"},
		{20, 0, search.NotReproducible, "lies only after 20 instances: nothing fails alone"},
		{0, 1, search.ConfirmedOriginal, "lies after its first op: the trace as found fails alone, its one-op shrink does not"},
	}
	for _, tt := range tests {
		r := judge.SubjectRunner{S: newLeaky(tt.afterOpens, tt.afterOps)}
		rep, err := search.Fuzz(r, search.FuzzOptions{Seed: 7, Ops: 50_000, Fresh: freshLeaky(tt.afterOpens, tt.afterOps)})
		if err != nil || rep.Found == nil {
			t.Fatalf("%s: Fuzz = %+v, %v", tt.reason, rep, err)
		}
		ce := rep.Found
		if ce.Confirmation != tt.want || ce.ConfirmErr != nil {
			t.Errorf("%s: Confirmation %q, %v; want %q\n%s", tt.reason, ce.Confirmation, ce.ConfirmErr, tt.want, ce.Report("leaky"))
			continue
		}
		switch tt.want {
		case search.ConfirmedOriginal:
			if !reflect.DeepEqual(ce.Trace, ce.Original) {
				t.Errorf("%s: the counterexample is not the trace as found", tt.reason)
			}
			if v := judge.Check(newLeaky(tt.afterOpens, tt.afterOps), ce.Case).Verdict; v != judge.Fail {
				t.Errorf("%s: Check(fresh leaky, case) = %s, want fail", tt.reason, v)
			}
		case search.NotReproducible:
			if !strings.Contains(ce.Case.Description, "NOT REPRODUCIBLE") {
				t.Errorf("%s: the case does not say it is not reproducible: %q", tt.reason, ce.Case.Description)
			}
		}
	}
}

// Skipped traces' ops are counted apart from the ops run, and a run that
// skipped every trace checked nothing.
func TestFuzzCountsSkippedOpsApart(t *testing.T) {
	r := skipper{judge.SubjectRunner{S: oracle.Model{}}, oracle.Gate}
	rep, err := search.Fuzz(r, search.FuzzOptions{Seed: 5, Ops: 5000})
	if err != nil || rep.Found != nil {
		t.Fatalf("Fuzz = %+v, %v", rep.Found, err)
	}
	if rep.SkippedOps == 0 || rep.Ops == 0 || rep.Ops+rep.SkippedOps < 5000 || !rep.Checked() || rep.FirstSkip != "not today" {
		t.Errorf("Fuzz = %+v, first skip %q; want ops run and skipped apart, together the bound", rep.FuzzStatus, rep.FirstSkip)
	}
	all := skipper{judge.SubjectRunner{S: limRetryMutant}, oracle.Lim}
	rep, err = search.Fuzz(all, search.FuzzOptions{Seed: 5, Ops: 2000})
	if err != nil || rep.Found != nil || rep.Ops != 0 || rep.SkippedOps < 2000 || rep.Checked() {
		t.Errorf("Fuzz(skips all) = %+v, %v; want 0 ops run, nothing checked", rep.FuzzStatus, err)
	}
}

// bigFaults faults every op with a message of 1 MiB.
var bigFaults = mutant{name: "big faults", comp: oracle.Lim,
	do: func(oracle.Op, oracle.Result) (oracle.Result, error) {
		return oracle.Result{}, errors.New("out of memory: " + strings.Repeat("x", 1<<20))
	}}

// A counterexample keeps at most MaxText bytes of a string the port
// controls, and says how much it cut.
func TestCounterexampleCutsLongPortText(t *testing.T) {
	rep, err := search.Fuzz(judge.SubjectRunner{S: bigFaults}, search.FuzzOptions{Seed: 1, Ops: 1000})
	if err != nil || rep.Found == nil {
		t.Fatalf("Fuzz = %+v, %v", rep, err)
	}
	f := rep.Found.Fault
	if len(f) > search.MaxText+40 || !strings.HasPrefix(f, "out of memory: xxx") || !strings.HasSuffix(f, "... (1044495 bytes cut)") {
		t.Errorf("Fault is %d bytes, ending %q; want %d and the bytes cut", len(f), f[max(len(f)-40, 0):], search.MaxText)
	}
	if n := len(rep.Found.Report("big")); n > 3*search.MaxText {
		t.Errorf("Report is %d bytes, want the fault cut", n)
	}
}
