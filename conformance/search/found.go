package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// Counterexample is a trace on which a runner disagreed with the model, as
// found and as shrunk, and how far it was confirmed.
type Counterexample struct {
	Seed  uint64 // the run's seed
	Index int    // the index of the trace in the run: GenFuzzTrace(Original.Component, Seed, Index) is Original

	Original oracle.Trace // the trace as generated
	// Trace is the trace offered as the counterexample: the shrunk trace,
	// or the trace as found when it did not fail again (Reproduced) or
	// when only it fails on a fresh runner (ConfirmedOriginal).
	Trace oracle.Trace
	// Shrunk is the smallest failing trace shrinking reached: Trace,
	// unless Confirmation is ConfirmedOriginal.
	Shrunk oracle.Trace

	// Divergence is Trace's first divergence from the model
	// (Want the model's, Got the runner's); nil when Fault is set. OnTwin says it is on the
	// second instance of a twin trace (Trace.Twin): the first agreed.
	Divergence *oracle.Divergence
	OnTwin     bool
	// Fault is set when the runner could not apply a request of Trace
	// (PROTO-6 fault): its message, cut to MaxText bytes. FaultOp is the
	// op's index, -1 for open.
	Fault   string
	FaultOp int

	// Run is the runner's run of Trace: on the fresh runner when
	// Confirmation is Confirmed or ConfirmedOriginal, else in the
	// conversation that found it. Its strings are cut to MaxText bytes;
	// Stderr shows what a port wrote while it ran.
	Run judge.TraceRun
	// ShrinkRuns is the number of candidate traces shrinking ran.
	ShrinkRuns int
	// ShrinkStop is why shrinking stopped: ShrinkDone, or the limit or
	// the break that cut it short; ShrinkErr is the runner's error when it
	// broke (ShrinkBroken, and ShrinkDeadline when the error came as the
	// deadline passed).
	ShrinkStop ShrinkStop
	ShrinkErr  error
	// FoundAfter is the time from the start of the run to the failing
	// trace's result; ShrinkTime is how long shrinking took after that.
	FoundAfter, ShrinkTime time.Duration
	// Reproduced is false when the trace as found did not fail again
	// when re-run in the same conversation (a flaky implementation): then
	// it was not shrunk.
	Reproduced bool
	// Confirmation is how the trace fared alone on a fresh runner
	// (FuzzOptions.Fresh). ConfirmErr says why it could not run there:
	// the runner did not start or broke, or the deadline had passed.
	Confirmation Confirmation
	ConfirmErr   error

	// Case is Trace as a conformance vector (TraceCase), ID
	// <component>-fuzz-<num>, ready to renumber and add to a suite.
	Case conformance.Case
}

// Confirmation is how a counterexample fared alone on a fresh runner: a
// port that keeps state across instances (breaking PROTO-4's fresh
// instance) fails in a long conversation on traces that pass alone.
type Confirmation string

// The confirmations.
const (
	// Unconfirmed: not run on a fresh runner (FuzzOptions.Fresh is nil,
	// or Counterexample.ConfirmErr says why).
	Unconfirmed Confirmation = ""
	// Confirmed: the trace fails alone on a fresh runner.
	Confirmed Confirmation = "confirmed"
	// ConfirmedOriginal: the shrunk trace passed alone on a fresh runner
	// and the trace as found failed there; it is the counterexample.
	ConfirmedOriginal Confirmation = "original"
	// NotReproducible: neither the shrunk trace nor the trace as found
	// failed alone on a fresh runner; the counterexample is the one that
	// failed in the conversation, and its case says so.
	NotReproducible Confirmation = "not reproducible"
)

// MaxText is the most bytes of one string the implementation controls (a
// fault or skip message, its stderr) that a Counterexample or a FuzzReport
// keeps: a longer one is cut and says how many bytes were cut.
const MaxText = 4 << 10

// cutTail returns the last MaxText bytes of s, starting "(N bytes cut)
// ...": the end of a stream is what says the most.
func cutTail(s string) string {
	if len(s) <= MaxText {
		return s
	}
	i := len(s) - MaxText
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return fmt.Sprintf("(%d bytes cut) ...", i) + strings.Clone(s[i:])
}

// cutRun returns run with its strings cut to MaxText.
func cutRun(run judge.TraceRun) judge.TraceRun {
	run.Fault, run.Skipped, run.Stderr = judge.CutText(run.Fault, MaxText), judge.CutText(run.Skipped, MaxText), cutTail(run.Stderr)
	return run
}

// foundTrace is the first failing trace of a run, as Fuzz found it.
type foundTrace struct {
	index      int
	orig, sent oracle.Trace   // as generated and as sent
	run        judge.TraceRun // its run, cut
	start      time.Time      // the start of the run
	err        error          // the runner's error in the call that ran it
}

// counterexample shrinks ft on r (unless r broke in the call that found
// it), confirms it on a fresh runner and builds its report. Its error is
// a bug: the model refusing the trace it shrank to.
func counterexample(r judge.Runner, opt FuzzOptions, ft foundTrace) (*Counterexample, error) {
	found := time.Now()
	ce := &Counterexample{Seed: opt.Seed, Index: ft.index, Original: ft.orig, Trace: ft.sent, Run: ft.run,
		Reproduced: true, FoundAfter: found.Sub(ft.start)}
	if ft.err == nil && ft.sent.Twin {
		ft.err = ce.untwin(r)
	}
	if ft.err != nil {
		ce.stopped(opt, ShrinkBroken, ft.err)
	} else {
		ce.shrink(r, opt, found)
	}
	ce.ShrinkTime, ce.Shrunk = time.Since(found), ce.Trace
	ce.confirm(opt, ft.sent)
	if err := ce.finish(r.Name()); err != nil {
		return ce, fmt.Errorf("search: fuzz %s: trace %d: %w", r.Name(), ft.index, err)
	}
	return ce, nil
}

// untwin offers c's twin trace on one instance when that fails too: the
// bug is not one of isolation, and the smaller case says so. The error is
// r's, when it broke.
func (c *Counterexample) untwin(r judge.Runner) error {
	single := c.Trace
	single.Twin = false
	want, err := oracle.Run(oracle.Model{}, single)
	if err != nil {
		return nil // the shrink's own run of the model reports it
	}
	run, err := runOne(r, single)
	if err == nil && judge.Fails(single, want, run) {
		c.Trace, c.Run = single, cutRun(run)
	}
	return err
}

// shrink shrinks c's trace on r within opt's limits from found on.
func (c *Counterexample) shrink(r judge.Runner, opt FuzzOptions, found time.Time) {
	shrinkTime := opt.ShrinkTime
	if shrinkTime <= 0 {
		shrinkTime = defaultShrinkTime
	}
	lim := ShrinkLimits{Deadline: found.Add(shrinkTime), Runs: opt.ShrinkRuns, Stop: opt.Stop}
	if !opt.Deadline.IsZero() && opt.Deadline.Before(lim.Deadline) {
		lim.Deadline = opt.Deadline
	}
	pred := func(t oracle.Trace, got judge.TraceRun) bool {
		want, err := oracle.Run(oracle.Model{}, t)
		if err != nil || !judge.Fails(t, want, got) {
			return false
		}
		c.Trace, c.Run = t, cutRun(got) // Shrink keeps every candidate that fails
		return true
	}
	s := shrinkTrace(r, c.Trace, pred, lim)
	c.ShrinkRuns = s.runs
	if errors.Is(s.err, ErrNotReproduced) {
		c.Reproduced = false // c.Trace and c.Run are still as found
		return
	}
	c.stopped(opt, s.stop, s.err)
}

// stopped records why shrinking stopped: a stop (opt.Stop), when it
// came, names the break of the port it killed, and the deadline, when it
// has passed, a limit or a break it caused.
func (c *Counterexample) stopped(opt FuzzOptions, stop ShrinkStop, err error) {
	c.ShrinkStop, c.ShrinkErr = stop, err
	if stop != ShrinkDone && opt.stopped() {
		c.ShrinkStop, c.ShrinkErr = ShrinkInterrupted, nil
		return
	}
	if stop != ShrinkDone && (errors.Is(err, judge.ErrDeadline) || opt.pastDeadline(time.Now())) {
		// the port's deadline (or, for a runner that does not tell it
		// from a break, the run's clock)
		c.ShrinkStop = ShrinkDeadline
	}
}

// errDeadline is a counterexample's ConfirmErr when the run's deadline
// passed before it could run on a fresh runner.
var errDeadline = errors.New("search: the run's deadline passed")

// confirm runs c's trace alone on a fresh runner, and sent, the trace as
// found, when that passes: a counterexample that fails only in a long
// conversation is not one a vector reproduces.
func (c *Counterexample) confirm(opt FuzzOptions, sent oracle.Trace) {
	if opt.Fresh == nil {
		return
	}
	switch {
	case opt.stopped():
		c.ConfirmErr = ErrStopped // no port may start now
		return
	case opt.pastDeadline(time.Now()):
		c.ConfirmErr = errDeadline
		return
	}
	run, failed, err := freshRun(opt.Fresh, c.Trace)
	switch {
	case err != nil && opt.stopped():
		c.ConfirmErr = ErrStopped
		return
	case err != nil:
		c.ConfirmErr = err
		return
	case failed:
		c.Confirmation, c.Run = Confirmed, run
		return
	}
	c.Confirmation = NotReproducible
	if traceKey(c.Trace) == traceKey(sent) {
		return
	}
	run, failed, err = freshRun(opt.Fresh, sent)
	switch {
	case err != nil && opt.stopped():
		c.ConfirmErr = ErrStopped
	case err != nil:
		c.ConfirmErr = fmt.Errorf("the trace as found: %w", err)
	case failed:
		c.Trace, c.Run, c.Confirmation = sent, run, ConfirmedOriginal
	}
}

// freshRun runs t alone on a runner fresh starts and reports whether it
// fails there.
func freshRun(fresh func() (judge.Runner, func() error, error), t oracle.Trace) (judge.TraceRun, bool, error) {
	want, err := oracle.Run(oracle.Model{}, t)
	if err != nil {
		return judge.TraceRun{}, false, fmt.Errorf("search: the model refuses the trace: %w", err)
	}
	r, end, err := fresh()
	if err != nil {
		return judge.TraceRun{}, false, fmt.Errorf("search: starting a fresh runner: %w", err)
	}
	run, err := runOne(r, t)
	if end != nil {
		end() //nolint:errcheck // the run is the news; a port that breaks at its end is killed
	}
	if err != nil {
		return judge.TraceRun{}, false, fmt.Errorf("search: %s, fresh: %w", r.Name(), err)
	}
	return cutRun(run), judge.Fails(t, want, run), nil
}

// maxDescName is the most bytes of the runner's name a counterexample's
// description quotes: a port's name may take 4 KiB (PROTO-2), and the
// description must keep to a vector's MaxString with room to spare for
// the rest of it, and for escapes a report adds.
//
// spec VEC-1: "a string over 1 KiB"
const maxDescName = 128

// finish fills in the divergence or fault and the case of c's trace, whose
// description names the runner (name, cut to maxDescName).
func (c *Counterexample) finish(name string) error {
	want, err := oracle.Run(oracle.Model{}, c.Trace)
	if err != nil {
		return fmt.Errorf("the model refuses the shrunk trace: %w", err)
	}
	c.Fault, c.FaultOp = c.Run.Fault, c.Run.FaultOp
	what := ""
	if c.Fault != "" {
		what = fmt.Sprintf("fault at %s", fuzzOpName(c.Trace, c.FaultOp))
		if c.Run.Undecodable {
			what = fmt.Sprintf("result of %s does not decode", fuzzOpName(c.Trace, c.FaultOp))
			if c.Run.BadField != "" {
				what = fmt.Sprintf("the result of %s holds a value that does not fit %s", fuzzOpName(c.Trace, c.FaultOp), c.Run.BadField)
			}
		}
	} else {
		c.Divergence, c.OnTwin = judge.Diverge(c.Trace, want, c.Run)
		switch {
		case c.OnTwin:
			what = fmt.Sprintf("first divergence at %s on the second instance of the config, open beside the first (state shared between instances)", fuzzOpName(c.Trace, c.Divergence.Index))
		case c.Divergence != nil:
			what = fmt.Sprintf("first divergence at %s", fuzzOpName(c.Trace, c.Divergence.Index))
		}
	}
	name = judge.CutText(name, maxDescName)
	desc := fmt.Sprintf("limcheck fuzz --seed %d, trace %d, against %s, shrunk from %d to %d ops: %s",
		c.Seed, c.Index, name, len(c.Original.Ops), len(c.Trace.Ops), what)
	switch {
	case c.Confirmation == ConfirmedOriginal:
		desc = fmt.Sprintf("limcheck fuzz --seed %d, trace %d, against %s, as found (the shrunk trace passes alone in a fresh process): %s",
			c.Seed, c.Index, name, what)
	case c.Confirmation == NotReproducible:
		desc += " (NOT REPRODUCIBLE: it passes alone in a fresh process; the port keeps state across instances)"
	case !c.Reproduced:
		desc += " (did not fail again when re-run)"
	}
	if c.Case, err = TraceCase(c.Trace, traceNumber(c.Trace), desc); err != nil {
		return err
	}
	// The case names the clauses its differing fields rest on, which the
	// ops' clauses can miss (THR-3 under record_failure's until).
	c.Case.Clauses = sortClauses(append(c.Case.Clauses, DivergenceClauses(c.Trace, c.Divergence)...))
	return nil
}

// Clauses returns the case's clauses, those the differing fields rest on
// first (DivergenceClauses, the defining clause of each first), then the
// rest in spec order.
func (c *Counterexample) Clauses() []string {
	ids := slices.Clone(DivergenceClauses(c.Trace, c.Divergence))
	for _, id := range c.Case.Clauses {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// resultsContext renders c's trace up to op at, each op before it with
// the model's result (the case's expectation) and the runner's.
func (c *Counterexample) resultsContext(at int, gotName string) string {
	var want []oracle.Result
	for _, s := range c.Case.Ops {
		want = append(want, s.Expect)
	}
	return conformance.ResultsContext(c.Trace, at, want, c.Got().Results, "model", gotName, func(s string) string { return s })
}

// Got is the outcome c's divergence is on: the run's, or on a twin
// trace the second instance's results (OnTwin).
func (c *Counterexample) Got() oracle.Outcome {
	if c.OnTwin {
		return oracle.Outcome{Results: c.Run.Twin}
	}
	return c.Run.Outcome
}

// Report renders c for people: the trace, the divergence or fault, how
// shrinking and the fresh run went, and what the implementation wrote on
// stderr while it ran.
func (c *Counterexample) Report(gotName string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "counterexample: seed %d, trace %d (%s), shrunk from %d to %d ops in %d runs\n",
		c.Seed, c.Index, c.Original.Component, len(c.Original.Ops), len(c.Shrunk.Ops), c.ShrinkRuns)
	if c.ShrinkStop != ShrinkDone {
		fmt.Fprintf(&b, "shrinking stopped: %s", c.ShrinkStop)
		if c.ShrinkErr != nil {
			fmt.Fprintf(&b, ": %v", c.ShrinkErr)
		}
		b.WriteByte('\n')
	}
	if !c.Reproduced {
		b.WriteString("warning: the trace did not fail again when re-run (flaky?); it is shown as found\n")
	}
	if c.Confirmation != Unconfirmed || c.ConfirmErr != nil {
		fmt.Fprintf(&b, "on a fresh runner: %q %v\n", c.Confirmation, c.ConfirmErr)
	}
	if c.Divergence != nil {
		if c.OnTwin {
			b.WriteString("the trace ran on two instances of its config opened side by side (VEC-15); the second diverged:\n")
		}
		d := conformance.Differ(c.Trace, c.Divergence)
		d.Context = c.resultsContext(c.Divergence.Index, gotName)
		b.WriteString(d.Text("model", gotName))
	} else {
		b.WriteString(c.resultsContext(c.FaultOp, gotName))
		if c.Run.Undecodable {
			fmt.Fprintf(&b, "the result %s gave for %s does not decode: %s\n", gotName, fuzzOpName(c.Trace, c.FaultOp), c.Fault)
		} else {
			fmt.Fprintf(&b, "%s faulted at %s: %s\n", gotName, fuzzOpName(c.Trace, c.FaultOp), c.Fault)
		}
	}
	if c.Run.Stderr != "" {
		fmt.Fprintf(&b, "\nstderr of %s while the trace ran:\n%s", gotName, c.Run.Stderr)
		if !strings.HasSuffix(c.Run.Stderr, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// traceNumber numbers a counterexample's case by its content (six digits of
// an FNV-1a hash of its JSON), so that the same counterexample always gets
// the same ID and different ones, found by different seeds or ports,
// rarely collide in a suite.
func traceNumber(t oracle.Trace) uint64 {
	b, _ := json.Marshal(t) // a Trace always marshals
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64() % 1_000_000
}

// fuzzOpName names op i of t: "open", "op 3 (lim_take)".
func fuzzOpName(t oracle.Trace, i int) string {
	if i < 0 {
		return "open"
	}
	if i < len(t.Ops) {
		return fmt.Sprintf("op %d (%s)", i, t.Ops[i].Kind)
	}
	return fmt.Sprintf("op %d", i)
}
