package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/report"
	"github.com/limcheck/limcheck/conformance/search"
	"github.com/limcheck/limcheck/oracle"
)

// fuzzStatuses are fuzz's exit statuses, for its usage text.
const fuzzStatuses = "0 no divergence, 1 a divergence (shrunk and written), 2 usage or input error, 3 the port\n" +
	"broke the protocol, 4 incomplete: every trace, or every twinned one, was skipped (without -allow-empty) or -timeout passed"

// defaultIsolation is how often limcheck fuzz twins a trace (the
// -isolation flag, FuzzOptions.Isolation): one trace in 8 of each
// stateful component costs an eighth more port work, and a port that
// shares state between instances shows it within the first few dozen
// traces.
const defaultIsolation = 8

// fuzzFlags are fuzz's flags.
type fuzzFlags struct {
	pf         portFlags
	ci         ciFlags
	comps      listFlag
	seed       uint64
	duration   time.Duration
	ops        int
	out        string
	shrinkTime time.Duration
	shrinkRuns int
	json       bool
	html       string
	allowEmpty bool
	isolation  int
}

func (ff *fuzzFlags) register(fs *flag.FlagSet) {
	ff.pf.register(fs, 10*time.Minute)
	ff.ci.register(fs)
	fs.Uint64Var(&ff.seed, "seed", 0, "the generator's seed (0: a random one, printed)")
	fs.DurationVar(&ff.duration, "duration", 0, "generate for this long (default 10s unless -ops is given)")
	fs.IntVar(&ff.ops, "ops", 0, "stop after this many operations (run or skipped)")
	fs.StringVar(&ff.out, "out", "", "write the counterexample vector to `FILE` (default limcheck-counterexample-<component>-<seed>.json in the current directory)")
	fs.DurationVar(&ff.shrinkTime, "shrink-time", 30*time.Second, "the longest shrinking may take")
	fs.IntVar(&ff.shrinkRuns, "shrink-runs", 0, "stop shrinking after this many runs of the port (0: no bound; unlike -shrink-time, the result does not depend on the machine's speed)")
	fs.BoolVar(&ff.json, "json", false, "print the result as JSON on stdout instead of text")
	fs.StringVar(&ff.html, "html", "", "when a divergence is found, also write it as one self-contained HTML page, its trace drawn as a timeline, to `FILE`")
	fs.BoolVar(&ff.allowEmpty, "allow-empty", false, "exit 0, not 4, when the port skipped every trace (nothing was checked), or every twinned one (instance isolation was not)")
	fs.IntVar(&ff.isolation, "isolation", defaultIsolation, "run every `N`th trace of gate and throttle twinned: on two instances of its config opened side by side, each op on both, so that state shared between instances fails (0: never)")
	fs.Var(&ff.comps, "component", "fuzz only `COMPONENT` (lim, gate, throttle, throttle_faults; repeatable; default every one the port implements)")
}

// check returns the components ff names, or an error naming the flag
// that is out of range.
func (ff *fuzzFlags) check() ([]oracle.Component, error) {
	switch {
	case ff.duration < 0:
		return nil, fmt.Errorf("-duration %v: must not be negative", ff.duration)
	case ff.ops < 0:
		return nil, fmt.Errorf("-ops %d: must not be negative", ff.ops)
	case ff.shrinkTime <= 0:
		return nil, fmt.Errorf("-shrink-time %v: must be positive", ff.shrinkTime)
	case ff.shrinkRuns < 0:
		return nil, fmt.Errorf("-shrink-runs %d: must not be negative", ff.shrinkRuns)
	case ff.isolation < 0:
		return nil, fmt.Errorf("-isolation %d: must not be negative (0: never)", ff.isolation)
	}
	var cs []oracle.Component
	for _, n := range ff.comps {
		if !slices.Contains(oracle.Components(), oracle.Component(n)) {
			return nil, fmt.Errorf("-component %q: not a component (want one of %v)", n, oracle.Components())
		}
		cs = append(cs, oracle.Component(n))
	}
	return cs, nil
}

// repro is the command line that repeats the run: its port, bounds,
// components, isolation and seed.
func (ff *fuzzFlags) repro() string {
	repro := "limcheck fuzz"
	if ff.pf.command != "" {
		repro += " --port " + report.ShellQuote(ff.pf.command)
	}
	if ff.ops > 0 {
		repro += fmt.Sprintf(" --ops %d", ff.ops)
	}
	if ff.duration > 0 {
		repro += " --duration " + ff.duration.String()
	}
	if len(ff.comps) > 0 {
		repro += " --component " + strings.Join(ff.comps, ",")
	}
	if ff.isolation != defaultIsolation {
		repro += fmt.Sprintf(" --isolation %d", ff.isolation)
	}
	return repro + fmt.Sprintf(" --seed %d", ff.seed)
}

func (c cli) fuzzCmd(args []string) (status int) {
	fs := c.flags("fuzz", "[flags]", "Differential random testing: generated traces run on the port and on the model; the first\ndivergence is shrunk (re-running the port) to a small failing trace, confirmed alone in a\nfresh port process, printed, and written as a vector file. The same -seed generates the same traces.", fuzzStatuses)
	var ff fuzzFlags
	ff.register(fs)
	if _, st := c.parse(fs, args, 0, 0); st != proceed {
		return st
	}
	if !ff.pf.check(c, fs) {
		return report.ExitUsage
	}
	cs, err := ff.check()
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck fuzz: %v\n", err)
		return report.ExitUsage
	}
	if ff.seed == 0 {
		ff.seed = rand.Uint64N(1<<53-1) + 1
	}
	res := report.Fuzz{Repro: ff.repro(), JSONOut: ff.json}
	if ff.duration == 0 && ff.ops == 0 {
		ff.duration = 10 * time.Second
	}
	defer func() { status = c.fuzzCI(&ff.ci, &res, status) }() // after endFuzzStop (deferred in fuzzPort): the final status
	tuneGC()
	return c.fuzzPort(&ff, cs, &res)
}

// fuzzPort starts the port, fuzzes it over the components cs (every one
// it implements when none) and reports what it found in res.
func (c cli) fuzzPort(ff *fuzzFlags, cs []oracle.Component, res *report.Fuzz) (status int) {
	port, err := ff.pf.open()
	var broken *judge.BrokenError
	if errors.As(err, &broken) && ff.json {
		res.Broken = &judge.BrokenError{What: "handshake: " + broken.What, Stderr: broken.Stderr}
		return c.fuzzJSON(res)
	}
	if err != nil {
		return report.PortProblem(c.stderr, ff.pf.command, ff.pf.timeout, err)
	}
	for _, comp := range cs {
		if !port.Implements(comp) {
			fmt.Fprintf(c.stderr, "limcheck fuzz: the port does not implement %s (its hello lists %s)\n", comp, report.Clean(fmt.Sprint(port.Hello().Components)))
			port.Close() //nolint:errcheck // a usage error is the news
			return report.ExitUsage
		}
	}
	opt := search.FuzzOptions{Seed: ff.seed, Duration: ff.duration, Ops: ff.ops, Components: cs, ShrinkTime: ff.shrinkTime, ShrinkRuns: ff.shrinkRuns,
		Deadline: ff.pf.deadline, Fresh: ff.pf.fresh, Isolation: ff.isolation}
	if c.tty && !ff.json {
		opt.Progress = report.FuzzProgress(c.stderr)
	}
	if !ff.json {
		fmt.Fprintf(c.stdout, "limcheck fuzz: port %s %s, seed %d\n", report.Clean(port.Hello().Name), report.Clean(port.Hello().Version), ff.seed)
	}
	// From here a signal stops the run rather than limcheck (stop waits):
	// what it found is written and printed, and the status is the signal's.
	opt.Stop = startFuzzStop()
	defer func() { status = endFuzzStop(status) }()
	rep, fuzzErr := search.Fuzz(port, opt)
	closeErr := port.Close()
	if opt.Progress != nil {
		fmt.Fprint(c.stderr, "\r\033[K")
	}
	res.Report, res.StoppedBy = rep, fuzzStoppedBy()
	if res.StoppedBy != "" {
		closeErr = nil // the port limcheck killed
	}
	if rep.Found != nil {
		res.Hello = port.Hello()
		return c.fuzzDivergence(ff, res, closeErr, fuzzErr)
	}
	if st, done := c.fuzzEnd(ff, res, closeErr, fuzzErr); done {
		return st
	}
	if ff.json {
		return c.fuzzJSON(res)
	}
	return report.WriteFuzzText(c.stdout, res)
}

// fuzzDivergence writes and reports the divergence res found (and its
// HTML page, with --html).
func (c cli) fuzzDivergence(ff *fuzzFlags, res *report.Fuzz, closeErr, fuzzErr error) int {
	if errors.As(res.Report.Found.ShrinkErr, new(*judge.BrokenError)) {
		closeErr = nil // the break shrinking reports
	}
	res.File = ff.out
	st := c.fuzzFound(res, &ff.pf, closeErr, fuzzErr)
	if ff.html != "" {
		if err := report.WriteFoundHTML(ff.html, res.Hello, res.Report.Found); err != nil {
			fmt.Fprintf(c.stderr, "limcheck fuzz: %v\n", err)
		}
	}
	return st
}

// fuzzEnd sets how a run that found no divergence ended: stopped,
// timed out, broken or incomplete. An error of no such kind is printed,
// and its status returned, done.
func (c cli) fuzzEnd(ff *fuzzFlags, res *report.Fuzz, closeErr, fuzzErr error) (status int, done bool) {
	rep := res.Report
	var broken *judge.BrokenError
	switch {
	case rep.Stopped || res.StoppedBy != "" && fuzzErr != nil:
		res.Incomplete = res.StoppedBy
	case rep.TimedOut || errors.Is(fuzzErr, judge.ErrDeadline) || (fuzzErr == nil && errors.Is(closeErr, judge.ErrDeadline)):
		// a budget that ran out, not a break (a port the deadline stopped
		// says so again as it closes)
		res.Incomplete = fmt.Sprintf("the --timeout (%v) passed", ff.pf.timeout)
	case errors.As(fuzzErr, &broken) || (fuzzErr == nil && errors.As(closeErr, &broken)):
		res.Broken = broken
	case fuzzErr != nil:
		fmt.Fprintf(c.stderr, "limcheck fuzz: %v\n", fuzzErr)
		return report.ExitUsage, true
	case !rep.Checked() && !ff.allowEmpty:
		res.Incomplete = "nothing was checked: the port skipped every trace"
		if rep.Traces == 0 {
			res.Incomplete = "nothing was checked: no trace ran"
		}
	case !rep.IsolationChecked() && !ff.allowEmpty:
		// spec PROTO-12: "two instances open at once, of the same component and config, are independent"
		res.Incomplete = noIsolation
	}
	return 0, false
}

// noIsolation is why a run whose twinned traces were all skipped is
// incomplete: a port may skip a trace (PROTO-6), but then a port that
// shares state between instances passes.
const noIsolation = "instance isolation (PROTO-12) was never checked: the port skipped every twinned trace"

// fresh starts another port of the same command (or the bundled
// implementation), under the same deadline: search.FuzzOptions.Fresh.
func (pf *portFlags) fresh() (judge.Runner, func() error, error) {
	p, err := pf.open()
	if err != nil {
		return nil, nil, err
	}
	return p, p.Close, nil
}

// fuzzFound writes the counterexample rep found to res.file (--out, or by
// default limcheck-counterexample-COMPONENT-SEED.json) and reports it; the
// status is 1 whatever else went wrong (a break while shrinking, a file
// that cannot be written, a port that broke at its end): the divergence
// is the news, and the rest is reported beside it.
//
// caseErr is why the counterexample could not be made a vector (its Case
// is then empty): it is printed, not written.
func (c cli) fuzzFound(res *report.Fuzz, pf *portFlags, closeErr, caseErr error) int {
	err := caseErr
	if err == nil {
		err = report.SaveCounterexample(res)
	}
	if err != nil {
		res.WriteErr, res.File = err, ""
		fmt.Fprintf(c.stderr, "limcheck fuzz: write counterexample: %v\n", err)
	}
	var broken *judge.BrokenError
	if errors.As(closeErr, &broken) {
		res.Broken = broken
	}
	if res.JSONOut {
		c.fuzzJSON(res)
	} else {
		report.WriteCounterexample(c.stdout, res, pf.command)
	}
	return report.ExitFailed
}

// fuzzJSON prints the fuzz result res as JSON and returns its status.
func (c cli) fuzzJSON(res *report.Fuzz) int {
	if err := report.WriteFuzzJSON(c.stdout, res); err != nil {
		fmt.Fprintf(c.stderr, "limcheck fuzz: %v\n", err)
		return max(res.Status(), report.ExitUsage) // a worse outcome's status wins
	}
	return res.Status()
}
