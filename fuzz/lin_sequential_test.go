package fuzz

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/anishathalye/porcupine"
	ithrottle "github.com/limcheck/limcheck/impl/throttle"
)

// linSequential runs one client of body: a sequential history.
func linSequential(seed uint64, body func(*linClient, *rand.Rand)) []porcupine.Operation {
	return linRun(1, seed, body)
}

// TestLinSequentialHistoriesAreLinearizable checks the machinery on
// histories of one client, which are linearizable exactly when impl returns
// the model's results in program order: the gate, the throttle key by key
// and as a whole (purge over 64 shards and check_any over distinct keys
// included: one client makes them atomic), and the fault store.
func TestLinSequentialHistoriesAreLinearizable(t *testing.T) {
	n := linClients * linOpsPerClient
	for round := range 5 {
		seed := linSeed(t.Name(), round)
		what := fmt.Sprintf("sequential history %d", round)
		t.Run("gate", func(t *testing.T) {
			declineImplGate(t)
			linRequire(t, linGateModel(linGateMaxif), linSequential(seed, linGateClient(newLinImplGate(t, linGateMaxif), new(linClock), n)), "gate "+what)
		})
		thr := newLinImplThrottle(t, newLinMemStore(t, 0))
		linRequire(t, linThrModelByKey(), linSequential(seed, linThrClient(thr, new(linClock), linThrMix{}, n)), "throttle "+what)
		thr = newLinImplThrottle(t, newLinMemStore(t, 0))
		linRequire(t, linThrModelWhole(), linSequential(seed, linThrClient(thr, new(linClock), linThrMix{purge: true, crossKeys: true}, n)), "throttle "+what)
		fs := ithrottle.NewFaultStore(newLinMemStore(t, 0))
		linRequire(t, linStoreModel(), linSequential(seed, linStoreClient(fs, new(linClock), 1, n)), "fault store "+what)
	}
}
