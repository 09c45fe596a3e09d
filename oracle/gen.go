package oracle

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"
)

// This file holds the exported rapid generators of the oracle's vocabulary:
// configs, ops and whole traces of every component, biased to the edges of
// spec.md (time at step, window and ban boundaries, clock steps back, the
// ends of the int64 and uint64 domains, colliding keys, store faults) and
// to the structural extremes where real implementations cap or wrap: table
// sizes and thresholds at each power of two +-1 and at the 16/31/32/53/63/64
// bit edges, check_any lists of up to 100 keys, keys of 901 bytes sharing
// a 900-byte prefix, and more failures on one key than a ring of 128 holds.
// Those go past impl/'s limits (gate slots over implsubject's 2^20, a
// threshold over 16384) at a small rate, where the bundled port skips the
// trace (PROTO: a request it cannot serve is skipped, not failed). They are
// reused by limcheck fuzz against third-party ports.
//
//   - GenConfig, GenGateConfig, GenThrottleConfig: configs, invalid ones at
//     a small rate (every subject must refuse those with ErrConfig).
//   - GenTrace: a whole trace, its ops drawn by an OpGen that follows the
//     model's results.
//   - OpGen: the ops of one trace, one at a time (state machines draw from it
//     and feed it the model's results with Observe).
//   - GenInt64, GenPositive, GenUint64, GenIP, GenThrottleKey, GenFaults:
//     the scalar edges.

// GenConfig draws a config for component c: none for lim, else a gate or
// throttle config (invalid at a small rate).
func GenConfig(c Component) *rapid.Generator[Config] {
	return rapid.Custom(func(t *rapid.T) Config {
		switch c {
		case Gate:
			g := GenGateConfig().Draw(t, "gate config")
			return Config{Gate: &g}
		case Throttle, ThrottleFaults:
			th := GenThrottleConfig().Draw(t, "throttle config")
			return Config{Throttle: &th}
		}
		rapid.Just(c).Draw(t, "component without config")
		return Config{}
	})
}

// GenTrace draws a trace of component c: a config from GenConfig, then up
// to 64 ops (up to 176 for a throttle threshold past a plausible fixed ring,
// see OpGen's focus) drawn by an OpGen that observes the model's result of each op,
// so that later ops sit on the edges earlier ones made (the bucket a take
// returned, a window's end after a failure, a ban's end).
func GenTrace(c Component) *rapid.Generator[Trace] {
	return rapid.Custom(func(t *rapid.T) Trace {
		cfg := GenConfig(c).Draw(t, "config")
		g := NewOpGen(c, cfg)
		inst, _, err := Model{}.Open(c, cfg)
		if err != nil {
			t.Fatalf("Model{}.Open(%s, %s): %v", c, jsonLine(cfg), err)
		}
		n := rapid.IntRange(0, 64).Draw(t, "op count")
		if g.thr.focus {
			n = rapid.IntRange(0, maxFocus+16).Draw(t, "focused op count")
		}
		ops := make([]Op, 0, n)
		opGen := g.Op() // one generator for every op: the same draws, built once
		for range n {
			op := opGen.Draw(t, "op")
			ops = append(ops, op)
			if inst != nil { // nil: the config was refused, no op runs
				g.observeModel(t, inst, op)
			}
		}
		return Trace{Component: c, Config: cfg, Ops: ops}
	})
}

// observeModel applies op to the model instance and feeds the result to g.
func (g *OpGen) observeModel(t *rapid.T, inst Instance, op Op) {
	r, err := inst.Do(op)
	if err != nil {
		t.Fatalf("model Do(%s) = %v: the generator drew a malformed op", jsonLine(op), err)
	}
	g.Observe(op, r)
}

// OpGen draws the ops of one trace of its component, one at a time, biased
// to the edges that the trace has made so far. Feed it the reference
// result of every op it drew with Observe (GenTrace does; a state machine
// passes the model's result): lim takes then chain the bucket each take
// returned, gate times sit at whole steps from earlier admits, and throttle
// times at window ends of recorded failures and at ban ends. An OpGen that
// is never fed still draws valid ops. Not safe for concurrent use.
type OpGen struct {
	c    Component
	lim  limState
	gate gateState
	thr  thrState
}

// NewOpGen returns an OpGen for a trace of component c on config cfg. An
// invalid or absent config is accepted: ops are drawn as for the nearest
// valid one.
func NewOpGen(c Component, cfg Config) *OpGen {
	g := &OpGen{c: c}
	switch c {
	case Gate:
		g.gate = newGateState(cfg)
	case Throttle, ThrottleFaults:
		g.thr = newThrState(cfg, c == ThrottleFaults)
	}
	return g
}

// Component returns the component g draws ops of.
func (g *OpGen) Component() Component { return g.c }

// Kinds returns the kinds of op g draws, in spec order.
func (g *OpGen) Kinds() []Kind {
	switch g.c {
	case Lim:
		return []Kind{LimCfg, LimBktNew, LimTake, LimAcq, LimRel, LimIPKey, LimResp503}
	case Gate:
		return []Kind{Admit, Release, InFlight, Bucket}
	case ThrottleFaults:
		return []Kind{Check, CheckAny, RecordFailure, RecordSuccess, Reset, PurgeExpired, SetFaults}
	}
	return []Kind{Check, CheckAny, RecordFailure, RecordSuccess, Reset, PurgeExpired}
}

// weighted lists the kinds with repeats, so that SampledFrom draws the ops
// that move state more often than the reads. The lists are shared: never
// write to one.
func (g *OpGen) weighted() []Kind {
	switch g.c {
	case Lim:
		return weightedLim
	case Gate:
		return weightedGate
	case ThrottleFaults:
		return weightedThrottleFaults
	}
	return weightedThrottle
}

// The lists weighted returns, built once: an OpGen draws a kind per op.
var (
	weightedLim            = []Kind{LimTake, LimTake, LimTake, LimTake, LimTake, LimTake, LimAcq, LimAcq, LimRel, LimRel, LimCfg, LimBktNew, LimIPKey, LimResp503}
	weightedGate           = []Kind{Admit, Admit, Admit, Admit, Admit, Admit, Release, Release, Release, InFlight, Bucket}
	weightedThrottle       = []Kind{Check, Check, Check, CheckAny, CheckAny, RecordFailure, RecordFailure, RecordFailure, RecordFailure, RecordFailure, RecordFailure, RecordSuccess, Reset, PurgeExpired, PurgeExpired}
	weightedThrottleFaults = append(slices.Clip(weightedThrottle), SetFaults, SetFaults)
)

// Op draws the next op, of any kind of g's component.
func (g *OpGen) Op() *rapid.Generator[Op] {
	kinds := rapid.SampledFrom(g.weighted())
	return rapid.Custom(func(t *rapid.T) Op {
		return g.draw(t, kinds.Draw(t, "kind"))
	})
}

// OpOf draws the next op of kind k, which must be one of g.Kinds().
func (g *OpGen) OpOf(k Kind) *rapid.Generator[Op] {
	if !slices.Contains(g.Kinds(), k) {
		panic(fmt.Sprintf("oracle: OpOf(%s) on an OpGen of %s", k, g.c))
	}
	if k == Release || k == InFlight {
		return rapid.Just(Op{Kind: k}) // no argument to draw
	}
	return rapid.Custom(func(t *rapid.T) Op { return g.draw(t, k) })
}

// draw draws an op of kind k.
func (g *OpGen) draw(t *rapid.T, k Kind) Op {
	switch g.c {
	case Lim:
		return g.drawLim(t, k)
	case Gate:
		return g.drawGate(t, k)
	}
	return g.drawThrottle(t, k)
}

// Observe feeds g the reference result r of op, an op g drew.
func (g *OpGen) Observe(op Op, r Result) {
	switch g.c {
	case Lim:
		g.lim.observe(op, r)
	case Gate:
		g.gate.observe(op, r)
	default:
		g.thr.observe(op, r)
	}
}

// Touched returns the addresses that observed admits touched (GATE-10),
// in the order they were first touched.
func (g *OpGen) Touched() []string { return slices.Clone(g.gate.touched) }

// GateNow returns the latest gate time an observed admit carried (0 before
// any).
func (g *OpGen) GateNow() int64 { return g.gate.now }

// Keys returns the keys a throttle OpGen draws from (ThrottleKeys).
func (g *OpGen) Keys() []string { return ThrottleKeys() }

// ThrottleNow returns the latest throttle time an observed op carried (0
// before any).
func (g *OpGen) ThrottleNow() uint64 { return g.thr.now }

// pick draws one of vals.
func pick[V any](t *rapid.T, label string, vals ...V) V {
	return vals[rapid.IntRange(0, len(vals)-1).Draw(t, label)]
}

// rare reports true with probability 2^-k: k fair coins, all heads. rapid
// biases integer draws to both ends of their range, so a rate drawn with
// IntRange is not the rate written; coins are exact, and shrink to false.
func rare(t *rapid.T, label string, k int) bool {
	for range k {
		if !rapid.Bool().Draw(t, label) {
			return false
		}
	}
	return true
}
