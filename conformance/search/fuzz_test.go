package search_test

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/conformance/search"
	"github.com/limcheck/limcheck/internal/slowdown"
	"github.com/limcheck/limcheck/oracle"
)

// mutant is oracle.Model with one planted bug, implementing one component:
// open rewrites the config the model is opened with, do rewrites the
// model's result of an op, or returns an error (a fault); fresh, when set,
// makes a do for each instance opened on a config (a bug with state of
// its own).
type mutant struct {
	name  string
	comp  oracle.Component
	open  func(oracle.Config) oracle.Config
	do    func(oracle.Op, oracle.Result) (oracle.Result, error)
	fresh func(oracle.Config) func(oracle.Op, oracle.Result) (oracle.Result, error)
}

func (m mutant) Name() string                       { return m.name }
func (m mutant) Implements(c oracle.Component) bool { return c == m.comp }

func (m mutant) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	if m.open != nil {
		cfg = m.open(cfg)
	}
	inst, class, err := oracle.Model{}.Open(c, cfg)
	do := m.do
	if m.fresh != nil {
		do = m.fresh(cfg)
	}
	if inst == nil || do == nil {
		return inst, class, err
	}
	return mutantInstance{inst, do}, class, err
}

type mutantInstance struct {
	inst oracle.Instance
	do   func(oracle.Op, oracle.Result) (oracle.Result, error)
}

func (i mutantInstance) Do(op oracle.Op) (oracle.Result, error) {
	r, err := i.inst.Do(op)
	if err != nil {
		return r, err
	}
	return i.do(op, r)
}

func num(n oracle.Num) int64   { v, _ := n.Int64(); return v }
func unum(n oracle.Num) uint64 { v, _ := n.Uint64(); return v }

// The mutants the fuzzer must find.
var (
	// lim_take's retry is one too many when the bucket came in empty.
	limRetryMutant = mutant{name: "lim retry+1 at tks 0", comp: oracle.Lim,
		do: func(op oracle.Op, r oracle.Result) (oracle.Result, error) {
			if op.Kind == oracle.LimTake && num(op.Tks) == 0 && num(r.OK) == 0 && num(r.Retry) > 0 && num(r.Retry) < math.MaxInt64 {
				r.Retry = oracle.I(num(r.Retry) + 1)
			}
			return r, nil
		}}
	// The throttle bans one failure late: it runs on threshold+1 and
	// reports the remaining quota of the real threshold.
	throttleLateMutant = mutant{name: "throttle bans late", comp: oracle.Throttle,
		open: func(cfg oracle.Config) oracle.Config {
			if cfg.Throttle != nil && unum(cfg.Throttle.Threshold) >= 1 && unum(cfg.Throttle.Threshold) < math.MaxUint64 {
				th := *cfg.Throttle
				th.Threshold = oracle.U(unum(th.Threshold) + 1)
				cfg.Throttle = &th
			}
			return cfg
		},
		do: func(_ oracle.Op, r oracle.Result) (oracle.Result, error) {
			if r.Verdict == oracle.VerdictAllow {
				r.Remaining = oracle.U(max(unum(r.Remaining), 1) - 1)
			}
			return r, nil
		}}
	// The throttle's ban ends one second late.
	throttleUntilMutant = mutant{name: "throttle ban ends late", comp: oracle.Throttle,
		do: func(_ oracle.Op, r oracle.Result) (oracle.Result, error) {
			if u := unum(r.Until); u > 0 && u < math.MaxUint64 {
				r.Until = oracle.U(u + 1)
			}
			return r, nil
		}}
	// The gate sheds at maxif-1 in flight (it runs on maxif-1).
	gateShedMutant = mutant{name: "gate sheds at maxif-1", comp: oracle.Gate,
		open: func(cfg oracle.Config) oracle.Config {
			if cfg.Gate != nil && num(cfg.Gate.Maxif) >= 2 {
				g := *cfg.Gate
				g.Maxif = oracle.I(num(g.Maxif) - 1)
				cfg.Gate = &g
			}
			return cfg
		}}
	// The gate takes a field < 1 of its config for 1.
	gateLaxMutant = mutant{name: "gate accepts a bad config", comp: oracle.Gate,
		open: func(cfg oracle.Config) oracle.Config {
			if cfg.Gate != nil {
				g := *cfg.Gate
				for _, f := range []*oracle.Num{&g.Cap, &g.Refil, &g.Ivl, &g.Maxif, &g.Sets, &g.Ways, &g.TickNanos} {
					if v, ok := f.Int64(); ok && v < 1 {
						*f = oracle.I(1)
					}
				}
				cfg.Gate = &g
			}
			return cfg
		}}
	// check_any of no key throws.
	checkAnyFaultMutant = mutant{name: "check_any([]) throws", comp: oracle.Throttle,
		do: func(op oracle.Op, r oracle.Result) (oracle.Result, error) {
			if op.Kind == oracle.CheckAny && len(op.Keys) == 0 {
				return oracle.Result{}, errors.New("index out of range")
			}
			return r, nil
		}}
)

// plantedBugBudget bounds the planted-bug searches in ops and shrink runs,
// never seconds: trace i of a seed depends only on the seed and i, so a
// bug seed 1 finds within these ops is found within them on any machine,
// and shrinks to the same trace (the shrink time is only a backstop).
var plantedBugBudget = search.FuzzOptions{Seed: 1, Ops: 50_000, ShrinkRuns: 5_000, ShrinkTime: slowdown.Scale(time.Hour)}

// Fuzz finds every planted bug within plantedBugBudget and shrinks its
// trace to a handful of ops; the vector it writes fails on the mutant, passes on the
// model, and survives Encode and Parse; the counterexample names first the
// clause its differing field rests on, and its case lists it.
func TestFuzzFindsAndShrinksEveryPlantedBug(t *testing.T) {
	tests := []struct {
		m       mutant
		maxOps  int
		fault   bool
		wantOps int    // the minimal trace's length
		clause  string // the first of ce.Clauses(): the differing field's (the ops' for a fault)
	}{
		{limRetryMutant, 6, false, 1, "LIM-12"},
		{throttleLateMutant, 6, false, 1, "THR-12"},
		{throttleUntilMutant, 6, false, 1, "THR-3"},
		{gateShedMutant, 6, false, 2, "GATE-4"},
		{checkAnyFaultMutant, 6, true, 1, "THR-7"},
		{gateLaxMutant, 6, false, 0, "GATE-1"},
	}
	for _, tt := range tests {
		t.Run(tt.m.name, func(t *testing.T) {
			start := time.Now()
			rep, err := search.Fuzz(judge.SubjectRunner{S: tt.m}, plantedBugBudget)
			if err != nil {
				t.Fatalf("Fuzz = %v", err)
			}
			ce := rep.Found
			if ce == nil {
				t.Fatalf("Fuzz found nothing in %d traces, %d ops (%v)", rep.Traces, rep.Ops, rep.Elapsed)
			}
			t.Logf("found at trace %d after %d ops in %v; shrunk from %d to %d ops in %d runs (%v in all)\n%s",
				ce.Index, rep.Ops, rep.Elapsed, len(ce.Original.Ops), len(ce.Trace.Ops), ce.ShrinkRuns, time.Since(start), ce.Report(tt.m.name))
			if !ce.Reproduced {
				t.Error("Reproduced = false for a deterministic subject")
			}
			if n := len(ce.Trace.Ops); n > tt.maxOps || n != tt.wantOps {
				t.Errorf("shrunk trace has %d ops, want %d (at most %d)", n, tt.wantOps, tt.maxOps)
			}
			if len(ce.Original.Ops) > tt.maxOps && len(ce.Trace.Ops) >= len(ce.Original.Ops) {
				t.Errorf("shrinking did not reduce the original's %d ops", len(ce.Original.Ops))
			}
			if got := search.GenFuzzTrace(ce.Original.Component, ce.Seed, ce.Index); !reflect.DeepEqual(got, ce.Original) {
				t.Errorf("GenFuzzTrace(%s, %d, %d) is not the original", ce.Original.Component, ce.Seed, ce.Index)
			}
			if tt.fault {
				if ce.Fault == "" || ce.Divergence != nil || ce.FaultOp != len(ce.Trace.Ops)-1 {
					t.Errorf("Fault %q at %d, Divergence %v; want a fault at the last op and no divergence", ce.Fault, ce.FaultOp, ce.Divergence)
				}
			} else if ce.Fault != "" || ce.Divergence == nil || ce.Divergence.Index != len(ce.Trace.Ops)-1 {
				t.Errorf("Fault %q, Divergence %+v; want a divergence at the last op", ce.Fault, ce.Divergence)
			}
			checkCounterexampleCase(t, ce, tt.m)
			if cs := ce.Clauses(); len(cs) == 0 || cs[0] != tt.clause || !slices.Contains(ce.Case.Clauses, tt.clause) {
				t.Errorf("Clauses() = %v, case clauses %v; want %s first and in the case", cs, ce.Case.Clauses, tt.clause)
			}
		})
	}
}

// checkCounterexampleCase checks that ce's vector fails on m, passes on the
// model and survives Encode and Parse.
func checkCounterexampleCase(t *testing.T, ce *search.Counterexample, m oracle.Subject) {
	t.Helper()
	if !reflect.DeepEqual(ce.Case.Trace(), ce.Trace) {
		t.Errorf("Case.Trace() = %#v, want the shrunk trace %#v", ce.Case.Trace(), ce.Trace)
	}
	if r := judge.Check(oracle.Model{}, ce.Case); r.Verdict != judge.Pass {
		t.Errorf("Check(model, case) = %s, %s; want %s", r.Verdict, r.Why, judge.Pass)
	}
	if r := judge.Check(m, ce.Case); r.Verdict != judge.Fail {
		t.Errorf("Check(mutant, case) = %s, want %s", r.Verdict, judge.Fail)
	}
	data, err := conformance.Encode(ce.Case)
	if err != nil {
		t.Fatal(err)
	}
	back, err := conformance.Parse(data)
	if err != nil || !reflect.DeepEqual(back, ce.Case) {
		t.Errorf("Parse(Encode(case)) = %+v, %v; want the case back\n%s", back, err, data)
	}
}

// A correct subject never diverges: Fuzz over the model finds nothing in
// 20,000 ops, of every component, none skipped.
func TestFuzzOfTheModelFindsNothing(t *testing.T) {
	var progress []search.FuzzStatus
	rep, err := search.Fuzz(judge.SubjectRunner{S: oracle.Model{}}, search.FuzzOptions{
		Seed: 7, Ops: 20_000, Progress: func(s search.FuzzStatus) { progress = append(progress, s) },
	})
	if err != nil || rep.Found != nil {
		t.Fatalf("Fuzz(model) = %+v, %v; want nothing found", rep.Found, err)
	}
	if rep.Ops < 20_000 || rep.Skipped != 0 || rep.Traces < 4 {
		t.Errorf("Fuzz(model) status %+v: want >= 20000 ops, nothing skipped", rep.FuzzStatus)
	}
	if len(progress) == 0 || progress[len(progress)-1] != rep.FuzzStatus {
		t.Errorf("Progress saw %d statuses ending %+v, want the last to be the report's %+v", len(progress), progress[len(progress)-1:], rep.FuzzStatus)
	}
	t.Logf("%+v: %.0f ops/s", rep.FuzzStatus, float64(rep.Ops)/rep.Elapsed.Seconds())
}

// A run is reproducible from its seed: the same seed and index give the
// same trace, whatever the batch size, and the same counterexample.
func TestFuzzIsReproducibleFromItsSeed(t *testing.T) {
	for _, c := range oracle.Components() {
		for i := range 50 {
			a, b := search.GenFuzzTrace(c, 42, i), search.GenFuzzTrace(c, 42, i)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("GenFuzzTrace(%s, 42, %d) differs between calls", c, i)
			}
		}
		if reflect.DeepEqual(search.GenFuzzTrace(c, 42, 0), search.GenFuzzTrace(c, 43, 0)) &&
			reflect.DeepEqual(search.GenFuzzTrace(c, 42, 1), search.GenFuzzTrace(c, 43, 1)) {
			t.Errorf("GenFuzzTrace(%s) ignores the seed", c)
		}
	}
	var found []*search.Counterexample
	for _, batch := range []int{1, 5, 64} {
		rep, err := search.Fuzz(judge.SubjectRunner{S: limRetryMutant}, search.FuzzOptions{Seed: 99, Ops: 1 << 20, Batch: batch})
		if err != nil || rep.Found == nil {
			t.Fatalf("Fuzz(batch %d) = %+v, %v", batch, rep, err)
		}
		found = append(found, rep.Found)
	}
	for _, ce := range found[1:] {
		if ce.Index != found[0].Index || !reflect.DeepEqual(ce.Trace, found[0].Trace) || ce.ShrinkRuns != found[0].ShrinkRuns ||
			!reflect.DeepEqual(ce.Case, found[0].Case) {
			t.Errorf("counterexamples of one seed differ with the batch size:\n%+v\n%+v", ce, found[0])
		}
	}
}

// The ops bound is a bound on traces in index order: the traces run do not
// depend on the batch size.
func TestFuzzOpsBoundDoesNotDependOnTheBatch(t *testing.T) {
	var want search.FuzzStatus
	for i, batch := range []int{1, 7, 64, 500} {
		rep, err := search.Fuzz(judge.SubjectRunner{S: oracle.Model{}}, search.FuzzOptions{Seed: 3, Ops: 3000, Batch: batch})
		if err != nil || rep.Found != nil {
			t.Fatalf("Fuzz(batch %d) = %+v, %v", batch, rep.Found, err)
		}
		rep.Elapsed = 0
		if i == 0 {
			want = rep.FuzzStatus
		} else if rep.FuzzStatus != want {
			t.Errorf("Fuzz(batch %d) ran %+v, batch 1 ran %+v", batch, rep.FuzzStatus, want)
		}
	}
	if want.Ops < 3000 {
		t.Errorf("Fuzz ran %d ops, want at least 3000", want.Ops)
	}
}

// A duration bounds the run.
func TestFuzzStopsAfterItsDuration(t *testing.T) {
	start := time.Now()
	rep, err := search.Fuzz(judge.SubjectRunner{S: oracle.Model{}}, search.FuzzOptions{Seed: 1, Duration: 200 * time.Millisecond})
	if err != nil || rep.Found != nil || rep.Traces == 0 {
		t.Fatalf("Fuzz = %+v, %v", rep, err)
	}
	if d, bound := time.Since(start), slowdown.Scale(time.Minute); d > bound {
		t.Errorf("Fuzz with a 200ms duration ran %v, longer than %v: the duration does not bound it", d, bound)
	}
}

// skipper skips every trace of one component.
type skipper struct {
	judge.SubjectRunner
	skip oracle.Component
}

func (s skipper) RunTraces(ts []oracle.Trace, each func(int, judge.TraceRun)) error {
	return s.SubjectRunner.RunTraces(ts, func(i int, run judge.TraceRun) {
		if ts[i].Component == s.skip {
			run = judge.TraceRun{Skipped: "not today", FaultOp: -1}
		}
		each(i, run)
	})
}

// A skipped trace is counted apart, never a failure.
func TestFuzzCountsSkippedTracesApart(t *testing.T) {
	r := skipper{judge.SubjectRunner{S: oracle.Model{}}, oracle.Gate}
	rep, err := search.Fuzz(r, search.FuzzOptions{Seed: 5, Ops: 5000})
	if err != nil || rep.Found != nil {
		t.Fatalf("Fuzz = %+v, %v; want nothing found", rep.Found, err)
	}
	if want := (rep.Traces + 2) / 4; rep.Skipped < want-1 || rep.Skipped > want+1 {
		t.Errorf("Skipped = %d of %d traces, want the gate's quarter", rep.Skipped, rep.Traces)
	}
}

// breakingRunner runs its first call, then breaks at trace 2 of the
// second.
type breakingRunner struct {
	judge.SubjectRunner
	calls *int
}

func (b breakingRunner) RunTraces(ts []oracle.Trace, each func(int, judge.TraceRun)) error {
	*b.calls++
	if *b.calls < 2 {
		return b.SubjectRunner.RunTraces(ts, each)
	}
	if err := b.SubjectRunner.RunTraces(ts[:2], each); err != nil {
		return err
	}
	return &judge.BrokenError{What: "no reply within 10s (hung?)", Trace: 2, Op: 1, Stderr: "panic: boom"}
}

// A runner that breaks ends the run with its *BrokenError, wrapped, and
// the report so far.
func TestFuzzReturnsABrokenRunnersError(t *testing.T) {
	calls := 0
	r := breakingRunner{judge.SubjectRunner{S: oracle.Model{}}, &calls}
	rep, err := search.Fuzz(r, search.FuzzOptions{Seed: 1, Ops: 100_000, Batch: 10})
	var be *judge.BrokenError
	if !errors.As(err, &be) || !errors.Is(err, judge.ErrBroken) || be.Stderr != "panic: boom" {
		t.Fatalf("Fuzz = %v, want the *BrokenError", err)
	}
	if rep.Traces != 12 || rep.Found != nil {
		t.Errorf("report %+v, want 12 traces run and nothing found", rep)
	}
	t.Log(err)
}

// Fuzz refuses options it cannot run.
func TestFuzzRefusesBadOptions(t *testing.T) {
	model := judge.SubjectRunner{S: oracle.Model{}}
	tests := []struct {
		r      judge.Runner
		opt    search.FuzzOptions
		reason string
	}{
		{model, search.FuzzOptions{}, "no bound"},
		{model, search.FuzzOptions{Ops: -1}, "a negative bound"},
		{model, search.FuzzOptions{Ops: 10, Components: []oracle.Component{"nope"}}, "an unknown component"},
		{model, search.FuzzOptions{Ops: 10, Components: []oracle.Component{}}, "no component"},
		{judge.SubjectRunner{S: limRetryMutant}, search.FuzzOptions{Ops: 10, Components: []oracle.Component{oracle.Gate}}, "a component the runner lacks"},
		{judge.SubjectRunner{S: mutant{name: "nothing"}}, search.FuzzOptions{Ops: 10}, "a runner implementing nothing"},
	}
	for _, tt := range tests {
		if _, err := search.Fuzz(tt.r, tt.opt); err == nil {
			t.Errorf("Fuzz with %s = no error", tt.reason)
		}
	}
}

// waits returns port options whose time limits are all a minute times
// LIMCHECK_TEST_SLOWDOWN: a healthy port on a busy machine never counts as
// hung.
func waits() protocol.PortOptions {
	d := slowdown.Scale(time.Minute)
	return protocol.PortOptions{HandshakeTimeout: d, RequestTimeout: d, ExitTimeout: d}
}

// Fuzz speaks the port protocol: against the gate mutant behind Serve, it
// finds and shrinks the bug as in process.
func TestFuzzFindsABugThroughAPort(t *testing.T) {
	p, err := protocol.ServePipe(gateShedMutant, protocol.Hello{Protocol: protocol.Protocol, Name: "mutant", Version: "0", Components: []oracle.Component{oracle.Gate}}, waits())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	rep, err := search.Fuzz(p, plantedBugBudget)
	if err != nil || rep.Found == nil {
		t.Fatalf("Fuzz(port) = %+v, %v", rep, err)
	}
	if n := len(rep.Found.Trace.Ops); n != 2 {
		t.Errorf("shrunk to %d ops, want 2\n%s", n, rep.Found.Report(p.Name()))
	}
	t.Logf("%d ops in %v, shrunk in %d runs", rep.Ops, rep.Elapsed, rep.Found.ShrinkRuns)
}

// BenchmarkGenFuzzTrace measures generation: GenFuzzTrace (rapid's
// Example, with the model run gen.Trace does inside) per component.
func BenchmarkGenFuzzTrace(b *testing.B) {
	for _, c := range oracle.Components() {
		b.Run(string(c), func(b *testing.B) {
			ops := 0
			for i := 0; b.Loop(); i++ {
				ops += len(search.GenFuzzTrace(c, 1, i).Ops)
			}
			b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "ops/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(ops, 1)), "ns/genop")
		})
	}
}

// BenchmarkFuzz measures Fuzz against the model in process, per component
// and all together: generation, the model's expected outcomes, the run and
// the comparison.
func BenchmarkFuzz(b *testing.B) {
	cases := map[string][]oracle.Component{"all": nil}
	for _, c := range oracle.Components() {
		cases[string(c)] = []oracle.Component{c}
	}
	for _, name := range []string{"lim", "gate", "throttle", "throttle_faults", "all"} {
		b.Run(name, func(b *testing.B) {
			ops := 0
			for b.Loop() {
				rep, err := search.Fuzz(judge.SubjectRunner{S: oracle.Model{}}, search.FuzzOptions{Seed: 1, Ops: 100_000, Components: cases[name]})
				if err != nil || rep.Found != nil {
					b.Fatal(rep, err)
				}
				ops += rep.Ops
			}
			b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// BenchmarkFuzzPort measures Fuzz against the model behind Serve, through
// the protocol in memory.
func BenchmarkFuzzPort(b *testing.B) {
	p, err := protocol.ServePipe(oracle.Model{}, protocol.Hello{Protocol: protocol.Protocol, Name: "model", Version: "0", Components: oracle.Components()}, protocol.PortOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	ops := 0
	for b.Loop() {
		rep, err := search.Fuzz(p, search.FuzzOptions{Seed: 1, Ops: 100_000})
		if err != nil || rep.Found != nil {
			b.Fatal(rep, err)
		}
		ops += rep.Ops
	}
	b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "ops/s")
}

// lateMutant is the lim model until it has run after ops (over all its
// instances), then wrong on every take: its first failing trace is far
// into a run, whatever ran in between, and every trace with a take fails
// from then on.
func lateMutant(after int64) mutant {
	var ran atomic.Int64
	return mutant{name: "lim wrong after " + strconv.FormatInt(after, 10) + " ops", comp: oracle.Lim,
		do: func(op oracle.Op, r oracle.Result) (oracle.Result, error) {
			if ran.Add(1) > after && op.Kind == oracle.LimTake {
				r.OK = oracle.I(1 - num(r.OK))
			}
			return r, nil
		}}
}

// Through a port, the chunks go as one stream (judge.Streamer), later
// traces in flight while earlier ones are checked; the run is still the
// same as in process, one call a chunk: the first failing trace in index
// order is the one found, with the same counts before it and the same
// shrunk counterexample, for every batch size.
func TestFuzzThroughAStreamFindsWhatOneCallAChunkFinds(t *testing.T) {
	hello := protocol.Hello{Protocol: protocol.Protocol, Name: "mutant", Version: "0", Components: []oracle.Component{oracle.Lim}}
	opt := search.FuzzOptions{Seed: 99, Ops: 1 << 20, ShrinkRuns: 2_000, ShrinkTime: slowdown.Scale(time.Hour)}
	for _, batch := range []int{1, 5, 64} {
		opt.Batch = batch
		want, err := search.Fuzz(judge.SubjectRunner{S: lateMutant(5000)}, opt)
		if err != nil || want.Found == nil {
			t.Fatalf("Fuzz(in process, batch %d) = %+v, %v", batch, want, err)
		}
		p, err := protocol.ServePipe(lateMutant(5000), hello, waits())
		if err != nil {
			t.Fatal(err)
		}
		got, err := search.Fuzz(p, opt)
		p.Close() //nolint:errcheck // in process
		if err != nil || got.Found == nil {
			t.Fatalf("Fuzz(port, batch %d) = %+v, %v", batch, got, err)
		}
		if got.Found.Index < 2*batch {
			t.Errorf("batch %d: found trace %d, want one past the second chunk, found with later chunks in flight", batch, got.Found.Index)
		}
		want.Elapsed, got.Elapsed = 0, 0
		if got.FuzzStatus != want.FuzzStatus || got.Found.Index != want.Found.Index || !reflect.DeepEqual(got.Found.Trace, want.Found.Trace) {
			t.Errorf("batch %d: through a port %+v found trace %d, shrunk to %v; in process %+v, trace %d, %v",
				batch, got.FuzzStatus, got.Found.Index, got.Found.Trace.Ops, want.FuzzStatus, want.Found.Index, want.Found.Trace.Ops)
		}
	}
}

// breaksInStream is a Streamer that runs a subject, taking each slice
// before it runs the last one's traces, as a port does, and breaks at
// trace at of the stream.
type breaksInStream struct {
	judge.SubjectRunner
	at int
}

func (b breaksInStream) RunStream(next func() []oracle.Trace, each func(int, judge.TraceRun)) error {
	i := 0
	for cur := next(); len(cur) > 0; {
		ahead := next()
		for j := range cur {
			if i == b.at {
				return &judge.BrokenError{What: "no reply within 10s (hung?)", Trace: i, Op: -1}
			}
			b.SubjectRunner.RunTraces(cur[j:j+1], func(_ int, run judge.TraceRun) { each(i, run) }) //nolint:errcheck // a SubjectRunner never breaks
			i++
		}
		cur = ahead
	}
	return nil
}

// A Streamer that breaks on a trace of a later chunk, after the first
// failing one, loses nothing: the failing trace is found (the one found
// in process, one call a chunk), not shrunk (the runner broke in the
// stream that found it), and the run's error is nil.
func TestFuzzStreamKeepsTheFailingTraceWhenTheRunnerThenBreaks(t *testing.T) {
	opt := search.FuzzOptions{Seed: 99, Ops: 1 << 20, Batch: 2, ShrinkRuns: 100}
	want, err := search.Fuzz(judge.SubjectRunner{S: lateMutant(5000)}, opt)
	if err != nil || want.Found == nil {
		t.Fatalf("Fuzz(in process) = %+v, %v", want, err)
	}
	r := breaksInStream{judge.SubjectRunner{S: lateMutant(5000)}, 0}
	for _, after := range []int{1, 2} { // in the chunk after the failing trace's, taken before that one was done
		r.at = want.Found.Index + after
		got, err := search.Fuzz(r, opt)
		if err != nil || got.Found == nil {
			t.Fatalf("Fuzz(a runner that breaks %d traces after the failing one) = %+v, %v; want the failing trace found, no error", after, got, err)
		}
		if got.Found.Index != want.Found.Index || got.Found.ShrinkStop != search.ShrinkBroken || got.Found.ShrinkRuns != 0 || !errors.Is(got.Found.ShrinkErr, judge.ErrBroken) {
			t.Errorf("break %d after: found trace %d, shrinking stopped %v after %d runs (%v); want trace %d, not shrunk: the runner broke in the stream that found it",
				after, got.Found.Index, got.Found.ShrinkStop, got.Found.ShrinkRuns, got.Found.ShrinkErr, want.Found.Index)
		}
		r.SubjectRunner.S = lateMutant(5000)
	}
}
