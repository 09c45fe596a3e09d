package fuzz

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	igate "github.com/limcheck/limcheck/impl/gate"
	ilim "github.com/limcheck/limcheck/impl/lim"
)

// The checks must not be vacuous: the same histories, models and checking
// code must report Illegal for subjects that are not linearizable.

// linNegativeRounds bounds the rounds a broken subject may survive. Each
// round is a fresh history from a deterministic seed; the subjects below
// are caught in the first few.
const linNegativeRounds = 40

// linRacyGate is impl's gate with a broken in-flight count: it reads the
// count, yields, then writes what it read plus or minus one (a lost update
// when clients interleave), and sheds on what it read. Its buckets are
// impl's, from a gate whose own in-flight gate never sheds.
type linRacyGate struct {
	inner *igate.Gate
	maxif int64
	n     atomic.Int64 // atomic, so the race detector sees no data race: the bug is the read-yield-write
}

func newLinRacyGate(t *testing.T) *linRacyGate {
	return &linRacyGate{inner: newLinImplGate(t, 1<<40), maxif: linGateMaxif}
}

func (g *linRacyGate) Admit(ip string, now int64) igate.Decision {
	n := g.n.Load()
	runtime.Gosched()
	if n >= g.maxif {
		return igate.Decision{Verdict: igate.Shed, Slot: g.inner.SlotOf(ip), RetryAfter: 1}
	}
	d := g.inner.Admit(ip, now)
	if d.Verdict == igate.Pass {
		g.n.Store(n + 1)
	}
	return d
}

func (g *linRacyGate) Release(igate.Decision) {
	n := g.n.Load()
	runtime.Gosched()
	g.n.Store(max(n-1, 0))
}

func (g *linRacyGate) InFlight() int64 { return g.n.Load() }

func (g *linRacyGate) Bucket(slot int64) (ilim.Bucket, bool) { return g.inner.Bucket(slot) }

// linRequireCaught runs up to linNegativeRounds histories made by round and
// fails t unless linCheck reports one of them Illegal against m. A round
// porcupine cannot decide proves nothing either way and the search goes
// on; if none was Illegal and some were undecided, the test is
// inconclusive, not passed. It logs the round that was caught.
func linRequireCaught(t *testing.T, m porcupine.Model, what string, round func(int) []porcupine.Operation) {
	t.Helper()
	undecided, ops := 0, 0
	var budget time.Duration
	for r := range linNegativeRounds {
		h := round(r)
		switch res, b := linCheck(m, h); res {
		case porcupine.Illegal:
			t.Logf("%s: history %d is Illegal", what, r)
			return
		case porcupine.Unknown:
			undecided, ops, budget = undecided+1, len(h), b
		}
	}
	if undecided > 0 {
		linInconclusive(t, fmt.Sprintf("%d of %d %s histories (none of the others Illegal)", undecided, linNegativeRounds, what), ops, budget)
	}
	t.Fatalf("CheckOperationsTimeout(model, %s histories) = Ok for all %d, want Illegal for one: the check is vacuous", what, linNegativeRounds)
}

// TestLinCheckerRejectsRacyInFlightCount checks that the gate check catches
// a gate whose in-flight count is read and written non-atomically: its
// clients over-admit and lose releases, and the same generator, model and
// checking code as TestLinGateAdmitReleaseIsLinearizable report a history
// Illegal within linNegativeRounds deterministic rounds.
func TestLinCheckerRejectsRacyInFlightCount(t *testing.T) {
	declineImplGate(t)
	linRequireCaught(t, linGateModel(linGateMaxif), "racy gate", func(round int) []porcupine.Operation {
		return linRun(linClients, linSeed(t.Name(), round), linGateClient(newLinRacyGate(t), new(linClock), linOpsPerClient))
	})
}

// TestLinCheckerRejectsTwoStepThrottle checks that the throttle check, key
// by key, catches a throttle whose check and record_failure are two store
// operations each: impl's throttle over a store without fused paths (here
// its MemStore behind a wrapper that yields before each operation), which
// impl/throttle's doc says another client may interleave. The same
// generator, model and checking code as TestLinThrottleKeyOpsAreLinearizable
// report a history Illegal within linNegativeRounds deterministic rounds.
func TestLinCheckerRejectsTwoStepThrottle(t *testing.T) {
	linRequireCaught(t, linThrModelByKey(), "two-step throttle", func(round int) []porcupine.Operation {
		thr := newLinImplThrottle(t, linYieldStore{newLinMemStore(t, 0)})
		return linRun(linClients, linSeed(t.Name(), round), linThrClient(thr, new(linClock), linThrMix{}, linOpsPerClient))
	})
}
