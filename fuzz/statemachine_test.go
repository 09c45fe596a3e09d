package fuzz

import (
	"testing"

	"github.com/limcheck/limcheck/internal/subject"
	"github.com/limcheck/limcheck/oracle"
	"github.com/limcheck/limcheck/oracle/gen"
	"pgregory.net/rapid"
)

// machine is the differential state machine of component c: it draws a
// config, opens the model and impl on it, and repeats actions, one per op
// kind, each drawing an op from the gen.Ops (fed the model's results, so a lim
// take chains the bucket the last take returned, and times sit on step,
// window and ban boundaries), applying it to both and comparing the results;
// after every action it compares the observable state (checkState).
func machine(c oracle.Component) func(*rapid.T) {
	return machineOn(subject.Impl{}, c)
}

// machineOn is machine with subject in impl's place.
func machineOn(subject oracle.Subject, c oracle.Component) func(*rapid.T) {
	return func(t *rapid.T) {
		d := openDifferentialOn(t, subject, c, gen.Config(c).Draw(t, "config"))
		if d == nil {
			return // both refused the config, the same way
		}
		actions := map[string]func(*rapid.T){"": func(t *rapid.T) { d.checkState(t) }}
		for _, k := range d.gen.Kinds() {
			ops := d.gen.OpOf(k)
			actions[string(k)] = func(t *rapid.T) { d.step(t, ops.Draw(t, "op")) }
		}
		t.Repeat(actions)
	}
}

// TestPropImplLimEqualsModel checks the property that impl's lim functions
// return the model's results, bit for bit, on every op of a chained history
// (each take fed the bucket the last one returned, lim_acq and lim_rel the
// count the last one returned), edges and out-of-contract inputs included.
func TestPropImplLimEqualsModel(t *testing.T) {
	rapid.Check(t, machine(oracle.Lim))
}

// TestPropImplGateEqualsModel checks the property that impl's gate gives
// the model's decisions, responses, in-flight counts and slot buckets for
// every sequential history of admits, releases and reads, and refuses the
// same configs.
func TestPropImplGateEqualsModel(t *testing.T) {
	rapid.Check(t, machine(oracle.Gate))
}

// TestPropImplThrottleEqualsModel checks the property that impl's throttle,
// over its MemStore (the fused paths), gives the model's results for every
// sequential history, and check of every pool key agrees after each op.
func TestPropImplThrottleEqualsModel(t *testing.T) {
	rapid.Check(t, machine(oracle.Throttle))
}

// TestPropImplThrottleFaultsEqualsModel checks the property that impl's
// throttle over a fault-injecting store gives the model's results for every
// sequential history with fault rules set and cleared over every store op.
func TestPropImplThrottleFaultsEqualsModel(t *testing.T) {
	rapid.Check(t, machine(oracle.ThrottleFaults))
}

// TestPropImplRunsGeneratedTracesLikeModel checks the property that for
// every trace gen.Trace draws, of every component, oracle.Run gives
// impl's outcome equal to the model's (oracle.Compare finds no divergence).
func TestPropImplRunsGeneratedTracesLikeModel(t *testing.T) {
	for _, c := range oracle.Components() {
		t.Run(string(c), rapid.MakeCheck(func(t *rapid.T) {
			checkTrace(t, gen.Trace(c).Draw(t, "trace"))
		}))
	}
}

// TestPropImplTakesAnyInt64sLikeModel checks the property that impl's
// lim_take returns the model's result on any eight int64 arguments, each
// drawn over the whole domain with its edges (no chaining, no contract).
func TestPropImplTakesAnyInt64sLikeModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := openDifferential(t, oracle.Lim, oracle.Config{})
		v := func(label string) oracle.Num { return oracle.I(gen.Int64().Draw(t, label)) }
		d.step(t, oracle.Op{Kind: oracle.LimTake, Tks: v("tks"), Last: v("last"), Cap: v("cap"), Refil: v("refil"),
			Ivl: v("ivl"), Maxif: v("maxif"), Now: v("now"), Cost: v("cost")})
	})
}
