package gen

import (
	"fmt"
	"slices"

	"github.com/limcheck/limcheck/oracle"
	"pgregory.net/rapid"
)

// Config draws a config for component c: none for lim, else a gate or
// throttle config (invalid at a small rate).
func Config(c oracle.Component) *rapid.Generator[oracle.Config] {
	return rapid.Custom(func(t *rapid.T) oracle.Config {
		if c == oracle.Lim { // rapid needs a draw from every generator
			rapid.Just(c).Draw(t, "component without config")
		}
		return genConfig(rapidSrc{t}, c)
	})
}

// genConfig is Config's draw.
func genConfig(t src, c oracle.Component) oracle.Config {
	switch c {
	case oracle.Gate:
		g := genGateConfig(t)
		return oracle.Config{Gate: &g}
	case oracle.Throttle, oracle.ThrottleFaults:
		th := genThrottleConfig(t)
		return oracle.Config{Throttle: &th}
	}
	return oracle.Config{}
}

// Trace draws a trace of component c: a config from Config, then up
// to 64 ops (for a throttle threshold past a plausible fixed ring, see
// Ops's focus, the threshold and up to 16 more 3 times in 4, else up to
// 176; 1 gate trace in 16 opens with a bulk run of 17 to 65,538 passing
// admits at one time first, see drawBulk, and 1 in 32 of the others with
// 2 to 4 admits of one address and a read of its bucket whole steps
// later, see drawDrainRun, and 1 in 32 of the rest with 5 admits around
// a budget born again, see drawRebornRun; 1 throttle trace in 32 with 257 or 258
// failures of one key at one time, see drawFailureRun) drawn by an Ops
// that observes the model's result of each op, so that later ops sit on the edges earlier ones made (the bucket a take
// returned, a window's end after a failure, a ban's end).
func Trace(c oracle.Component) *rapid.Generator[oracle.Trace] {
	return custom(func(t src) oracle.Trace {
		tr, _ := genTrace(t, c)
		return tr
	})
}

// TraceSeeded returns the trace of component c that seed draws, and its
// outcome on the model, which generating it computed (it is Run(Model{},
// trace)). Its draws are Trace's, from a plain PRNG seeded with seed
// rather than through rapid: the same distributions, at a fraction of the
// cost, for limcheck fuzz. The trace depends only on c and seed. It panics
// only if the model refuses a drawn op, a bug in the generators.
func TraceSeeded(c oracle.Component, seed uint64) (oracle.Trace, oracle.Outcome) {
	return genTrace(newSeedSrc(seed), c)
}

// genTrace is Trace's draw, with the model's outcome of the trace.
func genTrace(t src, c oracle.Component) (oracle.Trace, oracle.Outcome) {
	cfg := genConfig(t, c)
	var bulk []oracle.Op
	switch c {
	case oracle.Gate:
		side := t.side()
		if bulk = drawBulk(side, cfg.Gate); bulk == nil {
			bulk = drawDrainRun(side, cfg.Gate)
		}
		if bulk == nil {
			bulk = drawRebornRun(side, cfg.Gate)
		}
	case oracle.Throttle, oracle.ThrottleFaults:
		bulk = drawFailureRun(t.side(), cfg.Throttle)
	}
	g := NewOps(c, cfg)
	inst, class, err := oracle.Model{}.Open(c, cfg)
	if err != nil {
		t.fatalf("Model{}.Open(%s, %#v): %v", c, cfg, err)
	}
	n := t.intRange(0, 64, "op count")
	if g.thr.focus { // 3 times in 4 past the threshold: enough failures on the focus key to count it full
		n = int(g.thr.threshold) + t.intRange(0, 16, "focused ops past the threshold")
		if rare(t, "focused op count below the threshold", 2) {
			n = t.intRange(0, maxFocus+16, "focused op count")
		}
	}
	ops := make([]oracle.Op, 0, n)
	if bulk != nil {
		ops = slices.Grow(bulk, n)
	}
	out := oracle.Outcome{Open: class}
	if inst != nil { // nil: the config was refused, no op runs
		out.Results = make([]oracle.Result, 0, len(ops)+n)
		for _, op := range ops {
			out.Results = append(out.Results, g.observeModel(t, inst, op))
		}
	}
	for range n {
		op := g.drawOp(t)
		ops = append(ops, op)
		if inst != nil {
			out.Results = append(out.Results, g.observeModel(t, inst, op))
		}
	}
	return oracle.Trace{Component: c, Config: cfg, Ops: ops}, out
}

// observeModel applies op to the model instance, feeds the result to g
// and returns it.
func (g *Ops) observeModel(t src, inst oracle.Instance, op oracle.Op) oracle.Result {
	r, err := inst.Do(op)
	if err != nil {
		t.fatalf("model Do(%#v) = %v: the generator drew a malformed op", op, err)
	}
	g.Observe(op, r)
	return r
}

// Ops draws the ops of one trace of its component, one at a time, biased
// to the edges that the trace has made so far. Feed it the reference
// result of every op it drew with Observe (Trace does; a state machine
// passes the model's result): lim takes then chain the bucket each take
// returned, gate times sit at whole steps from earlier admits, and throttle
// times at window ends of recorded failures and at ban ends. An Ops that
// is never fed still draws valid ops. Not safe for concurrent use.
type Ops struct {
	c    oracle.Component
	lim  limState
	gate gateState
	thr  thrState
}

// NewOps returns an Ops for a trace of component c on config cfg. An
// invalid or absent config is accepted: ops are drawn as for the nearest
// valid one.
func NewOps(c oracle.Component, cfg oracle.Config) *Ops {
	g := &Ops{c: c}
	switch c {
	case oracle.Gate:
		g.gate = newGateState(cfg)
	case oracle.Throttle, oracle.ThrottleFaults:
		g.thr = newThrState(cfg, c == oracle.ThrottleFaults)
	}
	return g
}

// Component returns the component g draws ops of.
func (g *Ops) Component() oracle.Component { return g.c }

// Kinds returns the kinds of op g draws, in spec order.
func (g *Ops) Kinds() []oracle.Kind {
	switch g.c {
	case oracle.Lim:
		return []oracle.Kind{oracle.LimCfg, oracle.LimBktNew, oracle.LimTake, oracle.LimAcq, oracle.LimRel, oracle.LimIPKey, oracle.LimResp503}
	case oracle.Gate:
		return []oracle.Kind{oracle.Admit, oracle.Release, oracle.InFlight, oracle.Bucket}
	case oracle.ThrottleFaults:
		return []oracle.Kind{oracle.Check, oracle.CheckAny, oracle.RecordFailure, oracle.RecordSuccess, oracle.Reset, oracle.PurgeExpired, oracle.SetFaults}
	}
	return []oracle.Kind{oracle.Check, oracle.CheckAny, oracle.RecordFailure, oracle.RecordSuccess, oracle.Reset, oracle.PurgeExpired}
}

// weighted lists the kinds with repeats, so that SampledFrom draws the ops
// that move state more often than the reads. The lists are shared: never
// write to one.
func (g *Ops) weighted() []oracle.Kind {
	switch g.c {
	case oracle.Lim:
		return weightedLim
	case oracle.Gate:
		return weightedGate
	case oracle.ThrottleFaults:
		return weightedThrottleFaults
	}
	return weightedThrottle
}

// The lists weighted returns, built once: an Ops draws a kind per op.
var (
	weightedLim            = []oracle.Kind{oracle.LimTake, oracle.LimTake, oracle.LimTake, oracle.LimTake, oracle.LimTake, oracle.LimTake, oracle.LimAcq, oracle.LimAcq, oracle.LimRel, oracle.LimRel, oracle.LimCfg, oracle.LimBktNew, oracle.LimIPKey, oracle.LimResp503}
	weightedGate           = []oracle.Kind{oracle.Admit, oracle.Admit, oracle.Admit, oracle.Admit, oracle.Admit, oracle.Admit, oracle.Release, oracle.Release, oracle.Release, oracle.InFlight, oracle.Bucket}
	weightedThrottle       = []oracle.Kind{oracle.Check, oracle.Check, oracle.Check, oracle.CheckAny, oracle.CheckAny, oracle.RecordFailure, oracle.RecordFailure, oracle.RecordFailure, oracle.RecordFailure, oracle.RecordFailure, oracle.RecordFailure, oracle.RecordSuccess, oracle.Reset, oracle.PurgeExpired, oracle.PurgeExpired}
	weightedThrottleFaults = append(slices.Clip(weightedThrottle), oracle.SetFaults, oracle.SetFaults)
)

// Op draws the next op, of any kind of g's component.
func (g *Ops) Op() *rapid.Generator[oracle.Op] { return custom(g.drawOp) }

// drawOp is Op's draw.
func (g *Ops) drawOp(t src) oracle.Op { return g.draw(t, pick(t, "kind", g.weighted()...)) }

// OpOf draws the next op of kind k, which must be one of g.Kinds().
func (g *Ops) OpOf(k oracle.Kind) *rapid.Generator[oracle.Op] {
	if !slices.Contains(g.Kinds(), k) {
		panic(fmt.Sprintf("gen: OpOf(%s) on an Ops of %s", k, g.c))
	}
	if k == oracle.Release || k == oracle.InFlight {
		return rapid.Just(oracle.Op{Kind: k}) // no argument to draw
	}
	return custom(func(t src) oracle.Op { return g.draw(t, k) })
}

// draw draws an op of kind k.
func (g *Ops) draw(t src, k oracle.Kind) oracle.Op {
	switch g.c {
	case oracle.Lim:
		return g.drawLim(t, k)
	case oracle.Gate:
		return g.drawGate(t, k)
	}
	return g.drawThrottle(t, k)
}

// Observe feeds g the reference result r of op, an op g drew.
func (g *Ops) Observe(op oracle.Op, r oracle.Result) {
	switch g.c {
	case oracle.Lim:
		g.lim.observe(op, r)
	case oracle.Gate:
		g.gate.observe(op, r)
	default:
		g.thr.observe(op, r)
	}
}

// Touched returns the addresses that observed admits touched (GATE-10),
// in the order they were first touched.
func (g *Ops) Touched() []string { return slices.Clone(g.gate.touched) }

// GateNow returns the latest gate time an observed admit carried (0 before
// any).
func (g *Ops) GateNow() int64 { return g.gate.now }

// Keys returns the keys a throttle Ops draws from (ThrottleKeys).
func (g *Ops) Keys() []string { return ThrottleKeys() }

// ThrottleNow returns the latest throttle time an observed op carried (0
// before any).
func (g *Ops) ThrottleNow() uint64 { return g.thr.now }

// pick draws one of vals.
func pick[V any](t src, label string, vals ...V) V {
	return vals[t.intRange(0, len(vals)-1, label)]
}

// randomBytes draws a string of 0..n bytes, any values.
func randomBytes(t src, n int, label string) string {
	b := make([]byte, t.intRange(0, n, label))
	for i := range b {
		b[i] = byte(t.intRange(0, 255, label))
	}
	return string(b)
}

// rare reports true with probability 2^-k: k fair coins, all heads. rapid
// biases integer draws to both ends of their range, so a rate drawn with
// IntRange is not the rate written; coins are exact, and shrink to false.
func rare(t src, label string, k int) bool {
	for range k {
		if !t.bool(label) {
			return false
		}
	}
	return true
}
