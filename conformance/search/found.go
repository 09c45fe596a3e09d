package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/oracle"
)

// Counterexample is a trace on which a runner disagreed with the model, as
// found and as shrunk.
type Counterexample struct {
	Seed  uint64 // the run's seed
	Index int    // the index of the trace in the run: GenFuzzTrace(Original.Component, Seed, Index) is Original

	Original oracle.Trace // the trace as generated
	Trace    oracle.Trace // the shrunk trace

	// Divergence is the shrunk trace's first divergence from the model
	// (-model +runner); nil when Fault is set.
	Divergence *oracle.Divergence
	// Fault is set when the runner could not apply a request of the shrunk
	// trace (PROTO-6 fault): its message. FaultOp is the op's index, -1
	// for open.
	Fault   string
	FaultOp int

	// Run is the runner's run of the shrunk trace (Stderr shows what a
	// port wrote while it ran).
	Run protocol.TraceRun
	// ShrinkRuns is the number of candidate traces shrinking ran.
	ShrinkRuns int
	// FoundAfter is the time from the start of the run to the failing
	// trace's result; ShrinkTime is how long shrinking took after that.
	FoundAfter, ShrinkTime time.Duration
	// Reproduced is false when the trace as found did not fail again
	// when re-run (a flaky implementation): then Trace is Original and
	// Run the run that failed.
	Reproduced bool

	// Case is the shrunk trace as a conformance vector (TraceCase), ID
	// <component>-fuzz-<Index>, ready to renumber and add to a suite.
	Case conformance.Case
}

// Report renders c for people: the shrunk trace, the divergence or fault,
// and what the implementation wrote on stderr while it ran.
func (c *Counterexample) Report(gotName string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "counterexample: seed %d, trace %d (%s), shrunk from %d to %d ops in %d runs\n",
		c.Seed, c.Index, c.Original.Component, len(c.Original.Ops), len(c.Trace.Ops), c.ShrinkRuns)
	if !c.Reproduced {
		b.WriteString("warning: the trace did not fail again when re-run (flaky?); it is shown as found\n")
	}
	if c.Divergence != nil {
		b.WriteString(conformance.Differ(c.Trace, c.Divergence.Index, c.Case.Expected(), c.Run.Outcome).Text("model", gotName))
	} else {
		b.WriteString(conformance.Differ(c.Trace, c.FaultOp, oracle.Outcome{}, oracle.Outcome{}).Context)
		fmt.Fprintf(&b, "%s faulted at %s: %s\n", gotName, fuzzOpName(c.Trace, c.FaultOp), c.Fault)
	}
	if c.Run.Stderr != "" {
		fmt.Fprintf(&b, "\nstderr of %s while the trace ran:\n%s", gotName, c.Run.Stderr)
		if !strings.HasSuffix(c.Run.Stderr, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// counterexample shrinks the failing trace sent (trace index of the run,
// generated as orig) whose run was run, and builds its report.
func counterexample(r protocol.Runner, seed uint64, index int, orig, sent oracle.Trace, run protocol.TraceRun, lim ShrinkLimits) (*Counterexample, error) {
	ce := &Counterexample{Seed: seed, Index: index, Original: orig, Trace: sent, Run: run, Reproduced: true}
	pred := func(t oracle.Trace, got protocol.TraceRun) bool {
		want, err := oracle.Run(oracle.Model{}, t)
		if err != nil || !fails(t, want, got) {
			return false
		}
		ce.Trace, ce.Run = t, got // Shrink keeps every candidate that fails
		return true
	}
	shrunk, runs, err := Shrink(r, sent, pred, lim)
	ce.ShrinkRuns = runs
	if errors.Is(err, ErrNotReproduced) {
		ce.Trace, ce.Run, ce.Reproduced, err = sent, run, false, nil
	} else {
		ce.Trace = shrunk // ce.Run is its run, recorded by pred
	}
	if err2 := ce.finish(r.Name()); err2 != nil && err == nil {
		err = err2
	}
	if err != nil {
		err = fmt.Errorf("search: fuzz %s: shrinking trace %d: %w", r.Name(), index, err)
	}
	return ce, err
}

// finish fills in the divergence or fault and the case of c's trace.
func (c *Counterexample) finish(name string) error {
	want, err := oracle.Run(oracle.Model{}, c.Trace)
	if err != nil {
		return fmt.Errorf("the model refuses the shrunk trace: %w", err)
	}
	c.Fault, c.FaultOp = c.Run.Fault, c.Run.FaultOp
	what := ""
	if c.Fault != "" {
		what = fmt.Sprintf("fault at %s", fuzzOpName(c.Trace, c.FaultOp))
	} else {
		c.Divergence = oracle.Compare(c.Trace, want, c.Run.Outcome)
		if c.Divergence != nil {
			what = fmt.Sprintf("first divergence at %s", fuzzOpName(c.Trace, c.Divergence.Index))
		}
	}
	desc := fmt.Sprintf("limcheck fuzz --seed %d, trace %d, against %s, shrunk from %d to %d ops: %s",
		c.Seed, c.Index, name, len(c.Original.Ops), len(c.Trace.Ops), what)
	if !c.Reproduced {
		desc += " (did not fail again when re-run)"
	}
	c.Case, err = TraceCase(c.Trace, traceNumber(c.Trace), desc)
	return err
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
