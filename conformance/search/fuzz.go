package search

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// FuzzOptions bound and steer a Fuzz run. At least one of Duration and Ops
// must be positive.
type FuzzOptions struct {
	// Seed makes the run reproducible: trace i of a run is always
	// GenFuzzTrace(comps[i%len(comps)], Seed, i).
	Seed uint64
	// Duration stops generating after this long; 0 means no time bound.
	// Fuzz sizes its calls of the runner to the time left, so that a run
	// ends within about one trace's time of it, however slow the runner.
	Duration time.Duration
	// Deadline, if set, is the run's own budget (limcheck's --timeout,
	// which the runner's own deadline should be): a run it stops before
	// its bound is incomplete (FuzzReport.TimedOut), and shrinking stops
	// at it (ShrinkDeadline).
	Deadline time.Time
	// Ops stops the run once the traces sent carry this many ops, run or
	// skipped (the trace that reaches the bound runs whole); 0 means no
	// bound.
	Ops int
	// Components are the components to fuzz, in the order traces cycle
	// through them; nil means every component the runner implements.
	Components []oracle.Component
	// Isolation, when positive, makes every Isolation-th trace of each
	// component (trace i, the n-th of its component, n = i/len(comps),
	// when n%Isolation == Isolation-1) of a component whose instances
	// hold state (gate, throttle, throttle_faults) a twin trace
	// (oracle.Trace.Twin, spec VEC-15): it runs on two instances of its
	// config opened side by side, each op on the first and then on the
	// second, and both must agree with the model, so that a port sharing
	// state between instances (a process-wide store or table) fails. The
	// traces and their order do not change; a twin trace counts its ops
	// once for Ops. 0 means none.
	Isolation int
	// Batch is the most traces of a chunk, the traces handed to the
	// runner at once (a RunTraces call, or a slice of a
	// judge.Streamer's stream); 0 means 64. Under a time bound a chunk
	// carries fewer: as many as fit half the time left, at the time per
	// trace measured so far.
	Batch int
	// Progress, if non-nil, is called as each chunk is done, and when
	// the run stops.
	Progress func(FuzzStatus)
	// ShrinkTime bounds shrinking a counterexample; 0 means 30s.
	ShrinkTime time.Duration
	// ShrinkRuns bounds shrinking by the number of port runs, a bound
	// that does not depend on the machine's speed; 0 means none.
	ShrinkRuns int
	// Fresh, if non-nil, starts a fresh instance of the implementation
	// (for a port, a new process of the same command) and returns it with
	// the function that ends it. Fuzz runs a counterexample alone on one
	// before it offers it (Counterexample.Confirmation): a port that keeps
	// state from one instance to the next fails in a long conversation on
	// traces that pass alone.
	Fresh func() (judge.Runner, func() error, error)
	// Stop, if non-nil, is closed to stop the run at once (limcheck
	// closes it on a signal, then kills the port, so that a call of the
	// runner in progress breaks): a run it stops before a failing trace
	// returns Stopped and no error; a failing trace found is not lost:
	// shrinking stops (ShrinkInterrupted), no fresh runner is started
	// (ErrStopped), and Found holds the smallest failing trace reached.
	Stop <-chan struct{}
}

// ErrStopped is a counterexample's ConfirmErr when FuzzOptions.Stop
// stopped the run before it could run on a fresh runner.
var ErrStopped = errors.New("search: the run was stopped")

// stopped reports whether o.Stop is closed.
func (o FuzzOptions) stopped() bool {
	select {
	case <-o.Stop:
		return true
	default:
		return false
	}
}

// The defaults of FuzzOptions.
const (
	defaultBatch      = 64
	defaultShrinkTime = 30 * time.Second
)

// FuzzStatus is how far a Fuzz run has come.
type FuzzStatus struct {
	Traces     int // traces run (skipped ones included)
	Ops        int // the ops of the traces run and not skipped: checked against the model
	Skipped    int // traces the runner declined (PROTO-6 skipped)
	SkippedOps int // the ops of the skipped traces: sent, never checked
	// Twinned counts the twin traces run (FuzzOptions.Isolation), skipped
	// ones included, and TwinnedSkipped those the runner skipped: on them
	// instance isolation (spec PROTO-12) was not checked.
	Twinned, TwinnedSkipped int
	Elapsed                 time.Duration // since the run started
}

// Checked reports whether the run checked anything: some trace ran and
// was not skipped.
func (s FuzzStatus) Checked() bool { return s.Traces > s.Skipped }

// IsolationChecked reports whether a twin trace ran and was not skipped;
// true when the run had none to run (FuzzOptions.Isolation 0, or no
// component whose instances hold state).
//
// spec PROTO-12: "two instances open at once, of the same component and config, are independent"
func (s FuzzStatus) IsolationChecked() bool {
	return s.Twinned == 0 || s.Twinned > s.TwinnedSkipped
}

// FuzzReport is the result of a Fuzz run: how far it came and the
// counterexample it found, if any.
type FuzzReport struct {
	FuzzStatus
	Found *Counterexample // nil: every trace agreed with the model (or was skipped)
	// TimedOut is set when FuzzOptions.Deadline passed before the run
	// reached its bound and found nothing: the run is incomplete, and
	// FuzzStatus counts what it did.
	TimedOut bool
	// Stopped is set when FuzzOptions.Stop stopped the run before it
	// found anything: FuzzStatus counts what it did.
	Stopped bool
	// FirstSkip is the runner's reason for the first trace it skipped
	// (cut to MaxText bytes); empty when it skipped none.
	FirstSkip string
}

// Fuzz runs random traces through r and compares every outcome with the
// model's (oracle.Model): trace i is GenFuzzTrace(comps[i%len(comps)],
// opt.Seed, i), sent in chunks of at most opt.Batch traces. A trace the
// runner skips is counted apart, not failed; a divergence or a fault is a
// failure. The first failing trace, in index order, is shrunk (Shrink,
// re-running candidates through r, within opt.ShrinkTime, opt.ShrinkRuns
// and opt.Deadline), confirmed alone on a fresh runner (opt.Fresh) and
// reported in Found; the run stops there.
//
// Generation runs ahead of the runner, on parallel workers, and each
// trace's expected outcome is computed where it is generated. A runner
// that is a judge.Streamer (a port) gets the chunks as one stream,
// the next sent while the last is still being answered and checked, as
// long as the pacer allows whole chunks; it never waits between them. Trace i
// depends only on the seed and i, so the traces an ops bound runs, and the
// counterexample found, do not depend on the batch size, the time bound
// or the machine.
//
// A failing trace is never lost: when r breaks or the deadline passes
// while shrinking, or in the call that ran it, Found holds the smallest
// failing trace reached and says why shrinking stopped, and the error is
// nil. Otherwise a *judge.BrokenError from r is returned wrapped
// (errors.As finds it), with the report so far; a run opt.Deadline cuts
// short returns TimedOut and no error.
func Fuzz(r judge.Runner, opt FuzzOptions) (FuzzReport, error) {
	comps, err := fuzzComponents(r, opt)
	if err != nil {
		return FuzzReport{}, err
	}
	batch := opt.Batch
	if batch <= 0 {
		batch = defaultBatch
	}
	start := time.Now()
	g := startGenerator(comps, opt.Seed, batch, max(opt.Isolation, 0), opt.Ops)
	defer g.stop()
	f := &fuzzRun{r: r, opt: opt, g: g, start: start, pace: pacer{max: batch, end: opt.timeEnd(start)}}
	for {
		if opt.stopped() {
			f.rep.Stopped, f.rep.Elapsed = true, time.Since(start)
			return f.rep, nil
		}
		if stop, timedOut := f.over(time.Now()); stop {
			f.rep.TimedOut = timedOut
			return f.rep, nil
		}
		inFlight, err := f.stream()
		if len(f.chunks) > 0 || err != nil || f.genErr != nil { // the stream stopped in a chunk: each did not tell it
			f.rep.Elapsed = time.Since(start)
			f.progress()
		}
		if ft := f.fail; ft != nil {
			g.stop() // shrinking needs the CPUs more
			ft.start, ft.err = start, err
			f.rep.Found, err = counterexample(r, opt, *ft)
			f.rep.Elapsed = time.Since(start)
			return f.rep, err
		}
		switch {
		case f.genErr != nil:
			return f.rep, f.genErr
		case err != nil && opt.stopped():
			f.rep.Stopped = true // the port was killed: no break of its own
			return f.rep, nil
		case errors.Is(err, judge.ErrDeadline) || err != nil && opt.pastDeadline(time.Now()):
			// the port's own deadline, or a runner that does not tell its
			// deadline from a break, stopped by the run's
			f.rep.TimedOut = true
			return f.rep, nil
		case err != nil:
			return f.rep, fmt.Errorf("search: fuzz %s: trace %d: %w", r.Name(), f.traceAt(inFlight), err)
		}
	}
}

// timeEnd is the instant a run started at start must end by: the end of
// its duration or its deadline, whichever comes first; zero for none.
func (o FuzzOptions) timeEnd(start time.Time) time.Time {
	end := o.Deadline
	if o.Duration > 0 && (end.IsZero() || start.Add(o.Duration).Before(end)) {
		end = start.Add(o.Duration)
	}
	return end
}

// pastDeadline reports whether o.Deadline is set and now is not before it.
func (o FuzzOptions) pastDeadline(now time.Time) bool {
	return !o.Deadline.IsZero() && !now.Before(o.Deadline)
}

// pacer sizes the chunks under a time bound: a chunk may carry as many
// traces as fit half the time left, at the mean time per trace so far,
// and at most twice the last chunk's; the first carries one. A chunk
// cannot be stopped once sent, so this is what keeps a slow runner (half
// a second a trace) from running a whole batch of 64 past its end; and a
// stream takes a further chunk only while the pacer allows a whole one,
// so what is in flight is bounded alike.
type pacer struct {
	max   int           // the most traces a call carries
	end   time.Time     // the time bound; zero: none, every call carries max
	last  int           // traces in the last chunk done
	spent time.Duration // time in the chunks so far
	timed int           // traces those chunks carried
}

// size returns the number of traces the next chunk, sent at now, carries.
func (p *pacer) size(now time.Time) int {
	if p.end.IsZero() {
		return p.max
	}
	if p.timed == 0 {
		return 1
	}
	per := max(p.spent/time.Duration(p.timed), time.Nanosecond)
	fit := p.end.Sub(now) / (2 * per)
	return max(1, int(min(fit, time.Duration(p.max), time.Duration(2*p.last))))
}

// ran records that a chunk of n traces took d.
func (p *pacer) ran(n int, d time.Duration) {
	p.last, p.spent, p.timed = n, p.spent+d, p.timed+n
}

// fuzzComponents returns the components to fuzz and checks the bounds.
func fuzzComponents(r judge.Runner, opt FuzzOptions) ([]oracle.Component, error) {
	switch {
	case opt.Duration < 0 || opt.Ops < 0:
		return nil, fmt.Errorf("search: fuzz: negative bound (duration %v, ops %d)", opt.Duration, opt.Ops)
	case opt.Duration == 0 && opt.Ops == 0:
		return nil, errors.New("search: fuzz: no bound: set a duration or a number of ops")
	}
	if opt.Components == nil {
		var comps []oracle.Component
		for _, c := range oracle.Components() {
			if r.Implements(c) {
				comps = append(comps, c)
			}
		}
		if len(comps) == 0 {
			return nil, fmt.Errorf("search: fuzz: %s implements no component", r.Name())
		}
		return comps, nil
	}
	if len(opt.Components) == 0 {
		return nil, errors.New("search: fuzz: no component to fuzz")
	}
	for _, c := range opt.Components {
		switch {
		case !slices.Contains(oracle.Components(), c):
			return nil, fmt.Errorf("search: fuzz: unknown component %q (want one of %v)", c, oracle.Components())
		case !r.Implements(c):
			return nil, fmt.Errorf("search: fuzz: %s does not implement %s", r.Name(), c)
		}
	}
	return slices.Clone(opt.Components), nil
}
