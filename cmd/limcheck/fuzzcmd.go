package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/conformance/search"
	"github.com/limcheck/limcheck/oracle"
)

func (c cli) fuzzCmd(args []string) int {
	fs := c.flags("fuzz", "[flags]", "Differential random testing: generated traces run on the port and on the model; the first\ndivergence is shrunk (re-running the port) to a small failing trace, printed, and written\nas a vector file. The same -seed generates the same traces.", "0 no divergence, 1 a divergence (shrunk and written), 2 usage or input error, 3 the port\nbroke the protocol")
	var pf portFlags
	var comps listFlag
	pf.register(fs, 10*time.Minute)
	seed := fs.Uint64("seed", 0, "the generator's seed (0: a random one, printed)")
	duration := fs.Duration("duration", 0, "generate for this long (default 10s unless -ops is given)")
	ops := fs.Int("ops", 0, "stop after this many operations")
	out := fs.String("out", "", "write the counterexample vector to `FILE` (default limcheck-counterexample-<component>-<seed>.json in the current directory)")
	shrinkTime := fs.Duration("shrink-time", 30*time.Second, "the longest shrinking may take")
	shrinkRuns := fs.Int("shrink-runs", 0, "stop shrinking after this many runs of the port (0: no bound; unlike -shrink-time, the result does not depend on the machine's speed)")
	jsonOut := fs.Bool("json", false, "print the result as JSON on stdout instead of text")
	fs.Var(&comps, "component", "fuzz only `COMPONENT` (lim, gate, throttle, throttle_faults; repeatable; default every one the port implements)")
	if _, st := c.parse(fs, args, 0, 0); st != proceed {
		return st
	}
	if !pf.check(c, fs) {
		return exitUsage
	}
	switch {
	case *duration < 0:
		fmt.Fprintf(c.stderr, "limcheck fuzz: -duration %v: must not be negative\n", *duration)
		return exitUsage
	case *ops < 0:
		fmt.Fprintf(c.stderr, "limcheck fuzz: -ops %d: must not be negative\n", *ops)
		return exitUsage
	case *shrinkTime <= 0:
		fmt.Fprintf(c.stderr, "limcheck fuzz: -shrink-time %v: must be positive\n", *shrinkTime)
		return exitUsage
	case *shrinkRuns < 0:
		fmt.Fprintf(c.stderr, "limcheck fuzz: -shrink-runs %d: must not be negative\n", *shrinkRuns)
		return exitUsage
	}
	repro := "limcheck fuzz"
	if pf.command != "" {
		repro += " --port " + shellQuote(pf.command)
	}
	if *ops > 0 {
		repro += fmt.Sprintf(" --ops %d", *ops)
	}
	if *duration > 0 {
		repro += " --duration " + duration.String()
	}
	if len(comps) > 0 {
		repro += " --component " + strings.Join(comps, ",")
	}
	if *duration == 0 && *ops == 0 {
		*duration = 10 * time.Second
	}
	var cs []oracle.Component
	for _, n := range comps {
		if !slices.Contains(oracle.Components(), oracle.Component(n)) {
			fmt.Fprintf(c.stderr, "limcheck fuzz: -component %q: not a component (want one of %v)\n", n, oracle.Components())
			return exitUsage
		}
		cs = append(cs, oracle.Component(n))
	}
	if *seed == 0 {
		*seed = rand.Uint64N(1<<53-1) + 1
	}
	repro += fmt.Sprintf(" --seed %d", *seed)
	tuneGC()
	port, err := pf.open()
	var broken *protocol.BrokenError
	if errors.As(err, &broken) && *jsonOut {
		return c.fuzzJSON(search.FuzzReport{}, "", "handshake: "+broken.What, broken.Stderr, repro, exitBroken)
	}
	if err != nil {
		return c.portProblem(&pf, err)
	}
	for _, comp := range cs {
		if !port.Implements(comp) {
			fmt.Fprintf(c.stderr, "limcheck fuzz: the port does not implement %s (its hello lists %v)\n", comp, port.Hello().Components)
			port.Close() //nolint:errcheck // a usage error is the news
			return exitUsage
		}
	}
	opt := search.FuzzOptions{Seed: *seed, Duration: *duration, Ops: *ops, Components: cs, ShrinkTime: *shrinkTime, ShrinkRuns: *shrinkRuns}
	if c.tty && !*jsonOut {
		var shown time.Duration
		opt.Progress = func(s search.FuzzStatus) {
			if s.Elapsed-shown < 100*time.Millisecond { // a terminal need not redraw more often
				return
			}
			shown = s.Elapsed
			fmt.Fprintf(c.stderr, "\rfuzz: %d traces, %d ops (%.0f ops/s), %d skipped, %v ", s.Traces, s.Ops, float64(s.Ops)/max(s.Elapsed.Seconds(), 1e-9), s.Skipped, s.Elapsed.Round(time.Second))
		}
	}
	if !*jsonOut {
		fmt.Fprintf(c.stdout, "limcheck fuzz: port %s %s, seed %d\n", port.Hello().Name, port.Hello().Version, *seed)
	}
	rep, fuzzErr := search.Fuzz(port, opt)
	closeErr := port.Close()
	if opt.Progress != nil {
		fmt.Fprint(c.stderr, "\r\033[K")
	}
	if errors.As(fuzzErr, &broken) || (fuzzErr == nil && errors.As(closeErr, &broken)) {
		if *jsonOut {
			return c.fuzzJSON(rep, "", broken.What, broken.Stderr, repro, exitBroken)
		}
		fmt.Fprintf(c.stdout, "the port broke the protocol after %d traces, %d ops: %s\n", rep.Traces, rep.Ops, broken.What)
		printStderr(c.stdout, broken.Stderr)
		fmt.Fprintf(c.stdout, "reproduce: %s\n", repro)
		return exitBroken
	}
	if errors.Is(fuzzErr, protocol.ErrDeadline) || (fuzzErr == nil && errors.Is(closeErr, protocol.ErrDeadline)) {
		fmt.Fprintf(c.stdout, "the run's --timeout (%v) passed after %d traces, %d ops\nreproduce: %s\n", pf.timeout, rep.Traces, rep.Ops, repro)
		return exitIncomplete
	}
	if fuzzErr != nil {
		fmt.Fprintf(c.stderr, "limcheck fuzz: %v\n", fuzzErr)
		return exitUsage
	}
	rate := float64(rep.Ops) / max(rep.Elapsed.Seconds(), 1e-9)
	if rep.Found == nil {
		if *jsonOut {
			return c.fuzzJSON(rep, "", "", "", repro, exitOK)
		}
		fmt.Fprintf(c.stdout, "no divergence: %d traces, %d ops, %d skipped in %v (%.0f ops/s)\n", rep.Traces, rep.Ops, rep.Skipped, rep.Elapsed.Round(time.Millisecond), rate)
		return exitOK
	}
	file := *out
	if file == "" {
		file = fmt.Sprintf("limcheck-counterexample-%s-%d.json", rep.Found.Trace.Component, *seed)
	}
	data, err := conformance.Encode(rep.Found.Case)
	if err == nil {
		err = os.WriteFile(file, data, 0o644)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck fuzz: write counterexample: %v\n", err)
		return exitUsage
	}
	if *jsonOut {
		return c.fuzzJSON(rep, file, "", "", repro, exitFailed)
	}
	printCounterexample(c, rep, file, &pf, repro)
	return exitFailed
}

// printCounterexample prints a found divergence for people.
func printCounterexample(c cli, rep search.FuzzReport, file string, pf *portFlags, repro string) {
	f := rep.Found
	fmt.Fprintf(c.stdout, "DIVERGENCE after %d traces, %d ops (%v): trace %d of seed %d, %d ops, shrunk to %d ops in %d runs (%v)\n",
		rep.Traces, rep.Ops, f.FoundAfter.Round(time.Millisecond), f.Index, f.Seed, len(f.Original.Ops), len(f.Trace.Ops), f.ShrinkRuns, f.ShrinkTime.Round(time.Millisecond))
	if !f.Reproduced {
		fmt.Fprintln(c.stdout, "warning: the trace did not fail again when re-run, so it was not shrunk: the port answers the same ops differently (state leaking between instances, time, randomness?)")
	}
	fmt.Fprintf(c.stdout, "clauses: %s\n", strings.Join(f.Case.Clauses, " "))
	if f.Divergence != nil {
		fmt.Fprint(c.stdout, divergenceText(f, "port"))
	} else {
		fmt.Fprint(c.stdout, indent(conformance.Differ(f.Trace, f.FaultOp, oracle.Outcome{}, oracle.Outcome{}).Context, "  "))
		fmt.Fprintf(c.stdout, "  the port faulted at op %d: %s\n", f.FaultOp, f.Fault)
	}
	if f.Run.Stderr != "" {
		fmt.Fprintln(c.stdout, "port stderr while it ran:")
		fmt.Fprint(c.stdout, indent(lastLines(f.Run.Stderr, 20), "  | "))
	}
	fmt.Fprintf(c.stdout, "wrote %s (add it to a vector set: conformance/vectors/%s/%s.json)\n", file, f.Case.Component, f.Case.ID)
	portArg := ""
	if pf.command != "" {
		portArg = " --port " + shellQuote(pf.command)
	}
	fmt.Fprintf(c.stdout, "replay: limcheck replay%s %s\n", portArg, file)
	fmt.Fprintf(c.stdout, "reproduce: %s\n", repro)
}

// divergenceText renders a counterexample's divergence: its ops up to
// the diverging one, then the model's and the subject's result there.
func divergenceText(f *search.Counterexample, name string) string {
	d := conformance.Differ(f.Trace, f.Divergence.Index, f.Case.Expected(), f.Run.Outcome)
	return indent(d.Text("model", name), "  ")
}

// fuzzJSON prints the fuzz result as JSON.
func (c cli) fuzzJSON(rep search.FuzzReport, file, broken, stderr, repro string, status int) int {
	type found struct {
		Seed       uint64           `json:"seed"`
		Index      int              `json:"index"`
		Original   int              `json:"original_ops"`
		ShrinkRuns int              `json:"shrink_runs"`
		FoundMS    int64            `json:"found_after_ms"`
		ShrinkMS   int64            `json:"shrink_ms"`
		File       string           `json:"file"`
		Case       conformance.Case `json:"case"`
		Diff       string           `json:"diff,omitempty"`
		Fault      string           `json:"fault,omitempty"`
		Stderr     string           `json:"stderr,omitempty"`
	}
	out := struct {
		Traces    int     `json:"traces"`
		Ops       int     `json:"ops"`
		Skipped   int     `json:"skipped"`
		ElapsedMS int64   `json:"elapsed_ms"`
		OpsPerSec float64 `json:"ops_per_second"`
		Found     *found  `json:"found,omitempty"`
		Broken    string  `json:"broken,omitempty"`
		Stderr    string  `json:"broken_stderr,omitempty"`
		Reproduce string  `json:"reproduce"`
	}{rep.Traces, rep.Ops, rep.Skipped, rep.Elapsed.Milliseconds(), float64(rep.Ops) / max(rep.Elapsed.Seconds(), 1e-9), nil, broken, stderr, repro}
	if f := rep.Found; f != nil {
		out.Found = &found{Seed: f.Seed, Index: f.Index, Original: len(f.Original.Ops), ShrinkRuns: f.ShrinkRuns,
			FoundMS: f.FoundAfter.Milliseconds(), ShrinkMS: f.ShrinkTime.Milliseconds(), File: file, Case: f.Case, Fault: f.Fault, Stderr: f.Run.Stderr}
		if f.Divergence != nil {
			out.Found.Diff = f.Divergence.Diff
		}
	}
	if err := writeJSON(c.stdout, &out); err != nil {
		fmt.Fprintf(c.stderr, "limcheck fuzz: %v\n", err)
	}
	return status
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
