package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/oracle"
)

// FuzzOptions bound and steer a Fuzz run. At least one of Duration and Ops
// must be positive.
type FuzzOptions struct {
	// Seed makes the run reproducible: trace i of a run is always
	// GenFuzzTrace(comps[i%len(comps)], Seed, i).
	Seed uint64
	// Duration stops generating after this long; 0 means no time bound.
	Duration time.Duration
	// Ops stops the run once the traces run carry this many ops (the
	// trace that reaches the bound runs whole); 0 means no bound.
	Ops int
	// Components are the components to fuzz, in the order traces cycle
	// through them; nil means every component the runner implements.
	Components []oracle.Component
	// Batch is the number of traces per RunTraces call; 0 means 64.
	Batch int
	// Progress, if non-nil, is called after each batch.
	Progress func(FuzzStatus)
	// ShrinkTime bounds shrinking a counterexample; 0 means 30s.
	ShrinkTime time.Duration
	// ShrinkRuns bounds shrinking by the number of port runs, a bound
	// that does not depend on the machine's speed; 0 means none.
	ShrinkRuns int
}

// The defaults of FuzzOptions.
const (
	defaultBatch      = 64
	defaultShrinkTime = 30 * time.Second
)

// FuzzStatus is how far a Fuzz run has come.
type FuzzStatus struct {
	Traces  int           // traces run (skipped ones included)
	Ops     int           // ops those traces carried (none for a config the model refuses)
	Skipped int           // traces the runner declined (PROTO-6 skipped)
	Elapsed time.Duration // since the run started
}

// FuzzReport is the result of a Fuzz run: how far it came and the
// counterexample it found, if any.
type FuzzReport struct {
	FuzzStatus
	Found *Counterexample // nil: every trace agreed with the model (or was skipped)
}

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

// GenFuzzTrace returns trace index of a fuzz run with seed on component c:
// oracle.GenTrace(c) drawn from a seed mixed from seed and index, so a
// trace depends on nothing else (not the batch size, not the duration).
// It panics only if the oracle's generator cannot draw a trace, a bug.
func GenFuzzTrace(c oracle.Component, seed uint64, index int) oracle.Trace {
	return oracle.GenTrace(c).Example(int(mix(seed, uint64(index))))
}

// mix is splitmix64's output function applied to the index-th state of a
// generator seeded with seed.
func mix(seed, index uint64) uint64 {
	z := seed + (index+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Fuzz runs random traces through r and compares every outcome with the
// model's (oracle.Model): trace i is GenFuzzTrace(comps[i%len(comps)],
// opt.Seed, i), sent in batches of opt.Batch. A trace the runner skips is
// counted, not failed; a divergence or a fault is a failure. The first
// failing trace, in index order, is shrunk (Shrink, re-running candidates
// through r, for at most opt.ShrinkTime and opt.ShrinkRuns) and reported in Found; the run
// stops there.
//
// Generation runs ahead of the runner, on parallel workers, and each
// trace's expected outcome is computed where it is generated. Trace i
// depends only on the seed and i, so the traces an ops bound runs, and the
// counterexample found, do not depend on the batch size or the machine.
//
// A *protocol.BrokenError from r is returned wrapped (errors.As finds it),
// with the report so far; if the runner broke while shrinking, Found holds
// the smallest failing trace shrinking had reached.
func Fuzz(r protocol.Runner, opt FuzzOptions) (FuzzReport, error) {
	comps, err := fuzzComponents(r, opt)
	if err != nil {
		return FuzzReport{}, err
	}
	batch := opt.Batch
	if batch <= 0 {
		batch = defaultBatch
	}
	start := time.Now()
	g := startGenerator(comps, opt.Seed, batch)
	defer g.stop()

	var rep FuzzReport
	for {
		if opt.Duration > 0 && time.Since(start) >= opt.Duration || opt.Ops > 0 && rep.Ops >= opt.Ops {
			return rep, nil
		}
		b := g.next()
		if b.err != nil {
			return rep, b.err
		}
		n := b.cut(opt.Ops - rep.Ops)
		fail, failRun, err := runBatch(r, b, n, &rep)
		rep.Elapsed = time.Since(start)
		if err != nil {
			return rep, fmt.Errorf("search: fuzz %s: trace %d: %w", r.Name(), b.start+brokenTrace(err), err)
		}
		if opt.Progress != nil {
			opt.Progress(rep.FuzzStatus)
		}
		if fail >= 0 {
			g.stop() // shrinking needs the CPUs more
			shrinkTime := opt.ShrinkTime
			if shrinkTime <= 0 {
				shrinkTime = defaultShrinkTime
			}
			found := time.Now()
			lim := ShrinkLimits{Deadline: found.Add(shrinkTime), Runs: opt.ShrinkRuns}
			ce, err := counterexample(r, opt.Seed, b.start+fail, b.traces[fail], b.sent[fail], failRun, lim)
			if ce != nil {
				ce.FoundAfter, ce.ShrinkTime = found.Sub(start), time.Since(found)
			}
			rep.Found = ce
			rep.Elapsed = time.Since(start)
			return rep, err
		}
	}
}

// fuzzComponents returns the components to fuzz and checks the bounds.
func fuzzComponents(r protocol.Runner, opt FuzzOptions) ([]oracle.Component, error) {
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

// brokenTrace returns the index within its batch of the trace a
// *protocol.BrokenError names (0 when it names none).
func brokenTrace(err error) int {
	var be *protocol.BrokenError
	if errors.As(err, &be) && be.Trace >= 0 {
		return be.Trace
	}
	return 0
}

// runBatch runs the first n traces of b through r, counting them in rep,
// and returns the first failing one (-1 for none) with its run.
func runBatch(r protocol.Runner, b *genBatch, n int, rep *FuzzReport) (int, protocol.TraceRun, error) {
	fail, calls := -1, 0
	var failRun protocol.TraceRun
	err := r.RunTraces(b.sent[:n], func(i int, run protocol.TraceRun) {
		if i != calls || i >= n {
			return // a runner breaking its contract; caught below
		}
		calls++
		rep.Traces++
		rep.Ops += len(b.want[i].Results)
		switch {
		case run.Skipped != "":
			rep.Skipped++
		case fail < 0 && fails(b.sent[i], b.want[i], run):
			fail, failRun = i, run
		}
	})
	if err == nil && calls != n {
		err = fmt.Errorf("search: %s ran %d of %d traces without an error", r.Name(), calls, n)
	}
	return fail, failRun, err
}

// fails reports whether run, not skipped, faulted or differs from want.
func fails(t oracle.Trace, want oracle.Outcome, run protocol.TraceRun) bool {
	if run.Skipped != "" {
		return false
	}
	return run.Fault != "" || !outcomeEqual(want, run.Outcome) && oracle.Compare(t, want, run.Outcome) != nil
}

// outcomeEqual is a fast check that a and b are equal as oracle.Compare
// sees them (Compare, through cmp.Diff, is the slow path for a difference).
func outcomeEqual(a, b oracle.Outcome) bool {
	if a.Open != b.Open || len(a.Results) != len(b.Results) {
		return false
	}
	for i := range a.Results {
		if !resultEqual(a.Results[i], b.Results[i]) {
			return false
		}
	}
	return true
}

// resultEqual compares two results, pointers by what they point to.
func resultEqual(a, b oracle.Result) bool {
	if !ptrEqual(a.Response, b.Response) || !ptrEqual(a.Touched, b.Touched) {
		return false
	}
	a.Response, b.Response, a.Touched, b.Touched = nil, nil, nil, nil
	return a == b
}

func ptrEqual[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
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

// genBatch is a batch of generated traces with the model's outcomes.
type genBatch struct {
	start  int
	traces []oracle.Trace   // as generated
	sent   []oracle.Trace   // as sent: no ops when the model refuses the config
	want   []oracle.Outcome // the model's outcomes
	err    error            // a generator or model bug
	done   chan struct{}    // closed once the fields are set
}

// cut returns how many traces of b to run: up to the one whose ops bring
// the count to left, or all of them when left <= 0 (no bound).
func (b *genBatch) cut(left int) int {
	if left <= 0 {
		return len(b.sent)
	}
	for i, w := range b.want {
		left -= len(w.Results)
		if left <= 0 {
			return i + 1
		}
	}
	return len(b.sent)
}

// generator generates batches ahead of the runner on parallel workers and
// hands them out in order.
type generator struct {
	ordered chan *genBatch
	quit    chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
}

// startGenerator starts generating batches of size traces, trace i of
// component comps[i%len(comps)].
func startGenerator(comps []oracle.Component, seed uint64, size int) *generator {
	workers := max(runtime.GOMAXPROCS(0), 1)
	g := &generator{ordered: make(chan *genBatch, workers+1), quit: make(chan struct{})}
	jobs := make(chan *genBatch)
	g.wg.Add(1 + workers)
	go func() { // the dispatcher: batches in order, at most cap(ordered) ahead
		defer g.wg.Done()
		defer close(jobs)
		for start := 0; ; start += size {
			b := &genBatch{start: start, done: make(chan struct{})}
			select {
			case g.ordered <- b:
			case <-g.quit:
				return
			}
			select {
			case jobs <- b:
			case <-g.quit:
				return
			}
		}
	}()
	for range workers {
		go func() {
			defer g.wg.Done()
			for b := range jobs {
				b.generate(comps, seed, size)
				close(b.done)
			}
		}()
	}
	return g
}

// next returns the next batch, once generated.
func (g *generator) next() *genBatch {
	b := <-g.ordered
	<-b.done
	return b
}

// stop stops the workers and waits for them.
func (g *generator) stop() {
	g.once.Do(func() {
		close(g.quit)
		g.wg.Wait()
	})
}

// generate fills b with size traces from b.start and their outcomes.
func (b *genBatch) generate(comps []oracle.Component, seed uint64, size int) {
	defer func() {
		if p := recover(); p != nil {
			b.err = fmt.Errorf("search: fuzz: generating trace %d of seed %d: %v (a bug in the oracle's generators)", b.start+len(b.traces), seed, p)
		}
	}()
	b.traces = make([]oracle.Trace, 0, size)
	b.sent = make([]oracle.Trace, 0, size)
	b.want = make([]oracle.Outcome, 0, size)
	for i := b.start; i < b.start+size; i++ {
		c := comps[i%len(comps)]
		t := GenFuzzTrace(c, seed, i)
		want, err := oracle.Run(oracle.Model{}, t)
		if err != nil {
			b.err = fmt.Errorf("search: fuzz: the model refuses trace %d of seed %d (a bug in the oracle's generators or the model): %w", i, seed, err)
			return
		}
		sent := t
		if want.Open != "" {
			sent.Ops = []oracle.Op{} // a refused config runs no op (VEC-11)
		}
		b.traces = append(b.traces, t)
		b.sent = append(b.sent, sent)
		b.want = append(b.want, want)
	}
}
