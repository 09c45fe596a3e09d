package fuzz

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/anishathalye/porcupine"
	ithrottle "github.com/limcheck/limcheck/impl/throttle"
	mthrottle "github.com/limcheck/limcheck/model/throttle"
	"github.com/limcheck/limcheck/oracle"
)

// Over a FaultStore a throttle makes the model's two store operations for
// check and record_failure, and another client may act on the key between
// them (impl/throttle's doc says so), so throttle calls over it are not
// atomic. What is claimed atomic is each store operation and each rule
// change; that is what the fault check records.

// linFaultSets are the rule lists clients install with set_faults: none, a
// key's count, every add_failure, bans and one key's ban_until, purge and
// clear_failures, two keys' clear.
var linFaultSets = [][]ithrottle.Fault{
	nil,
	{{Op: ithrottle.OpCount, Keys: []string{linThrKeys[1]}}},
	{{Op: ithrottle.OpAddFailure}},
	{{Op: ithrottle.OpBan}, {Op: ithrottle.OpBanUntil, Keys: []string{linThrKeys[2]}}},
	{{Op: ithrottle.OpPurge}, {Op: ithrottle.OpClearFailures}},
	{{Op: ithrottle.OpClear, Keys: []string{linThrKeys[0], linThrKeys[2]}}},
}

// linStoreIn is one operation on a fault store: one of the seven store
// operations, or set_faults of linFaultSets[faults].
type linStoreIn struct {
	op                 string
	key                string
	now, window, until uint64
	faults             int
}

func (in linStoreIn) String() string {
	switch in.op {
	case string(oracle.SetFaults):
		return fmt.Sprintf("set_faults(%+q)", linFaultSets[in.faults])
	case string(ithrottle.OpCount), string(ithrottle.OpAddFailure):
		return fmt.Sprintf("%s(%q, %d, %d)", in.op, in.key, in.now, in.window)
	case string(ithrottle.OpBan):
		return fmt.Sprintf("%s(%q, %d)", in.op, in.key, in.until)
	case string(ithrottle.OpPurge):
		return fmt.Sprintf("%s(%d, %d)", in.op, in.now, in.window)
	}
	return fmt.Sprintf("%s(%q)", in.op, in.key)
}

// linStoreOut is what a store operation returned: a value (ban-until,
// count, purge's count; 0 for the others) or a store error.
type linStoreOut struct {
	Value  uint64
	Failed bool
}

// describe describes the operation with its output.
func (in linStoreIn) describe(out any) string {
	o := out.(linStoreOut)
	switch {
	case o.Failed:
		return fmt.Sprintf("%v -> store error", in)
	case in.op == string(oracle.SetFaults), in.op == string(ithrottle.OpClearFailures), in.op == string(ithrottle.OpClear):
		return in.String()
	}
	return fmt.Sprintf("%v -> %d", in, o.Value)
}

// linStoreMachine is model/throttle's FaultStore over its exact MemStore.
// impl's MemStore keeps the threshold largest stamps per key and reports
// min(count, k) (PROP-17), so the model's counts are cut at k.
type linStoreMachine struct {
	faults *mthrottle.FaultStore
	mem    *mthrottle.MemStore
}

// linStoreSnap is a fault store's whole state: the keys and the rules.
type linStoreSnap struct {
	keys  linKeysSnap
	rules string
}

func newLinStoreMachine() linMachine[linStoreIn, linStoreOut, linStoreSnap] {
	mem := mthrottle.NewMemStore()
	return linStoreMachine{faults: mthrottle.NewFaultStore(mem), mem: mem}
}

func (m linStoreMachine) apply(in linStoreIn) linStoreOut {
	s := m.faults
	switch in.op {
	case string(oracle.SetFaults):
		s.SetFaults(linModelFaults(linFaultSets[in.faults])...)
		return linStoreOut{}
	case string(ithrottle.OpBanUntil):
		return linStoreResult(s.BanUntil(in.key))
	case string(ithrottle.OpCount):
		n, err := s.Count(in.key, in.now, in.window)
		return linStoreResult(min(n, linThrThreshold), err)
	case string(ithrottle.OpAddFailure):
		n, err := s.AddFailure(in.key, in.now, in.window)
		return linStoreResult(min(n, linThrThreshold), err)
	case string(ithrottle.OpBan):
		return linStoreResult(s.Ban(in.key, in.until))
	case string(ithrottle.OpClearFailures):
		return linStoreResult(0, s.ClearFailures(in.key))
	case string(ithrottle.OpClear):
		return linStoreResult(0, s.Clear(in.key))
	}
	return linStoreResult(s.Purge(in.now, in.window))
}

func (m linStoreMachine) snapshot() linStoreSnap {
	return linStoreSnap{keys: linSnapStore(m.mem), rules: fmt.Sprint(m.faults.Faults())}
}

// linStoreResult is the output of a store operation: its value, or a
// failure (whose value is dropped).
func linStoreResult(v uint64, err error) linStoreOut {
	if err != nil {
		return linStoreOut{Failed: true}
	}
	return linStoreOut{Value: v}
}

// linModelFaults translates impl fault rules to the model's.
func linModelFaults(fs []ithrottle.Fault) []mthrottle.Fault {
	out := make([]mthrottle.Fault, len(fs))
	for i, f := range fs {
		out[i] = mthrottle.Fault{Op: mthrottle.Op(f.Op), Keys: f.Keys}
	}
	return out
}

// linStoreModel is the porcupine model of a fault store, not partitioned:
// rule changes and purge touch every key.
func linStoreModel() porcupine.Model { return linModel(newLinStoreMachine, nil) }

// linRecStore is a Store that records every operation it passes to inner as
// an operation of client c. It has no fused paths, so a throttle over it
// makes the seven operations.
type linRecStore struct {
	inner ithrottle.Store
	c     *linClient
}

// record runs op as the operation in and returns its results.
func (s linRecStore) record(in linStoreIn, op func() (uint64, error)) (uint64, error) {
	var err error
	out := linDo(s.c, in, func() linStoreOut {
		var v uint64
		v, err = op()
		return linStoreResult(v, err)
	})
	return out.Value, err
}

func (s linRecStore) BanUntil(key string) (uint64, error) {
	return s.record(linStoreIn{op: string(ithrottle.OpBanUntil), key: key}, func() (uint64, error) { return s.inner.BanUntil(key) })
}

func (s linRecStore) Count(key string, now, window uint64) (uint64, error) {
	in := linStoreIn{op: string(ithrottle.OpCount), key: key, now: now, window: window}
	return s.record(in, func() (uint64, error) { return s.inner.Count(key, now, window) })
}

func (s linRecStore) AddFailure(key string, now, window uint64) (uint64, error) {
	in := linStoreIn{op: string(ithrottle.OpAddFailure), key: key, now: now, window: window}
	return s.record(in, func() (uint64, error) { return s.inner.AddFailure(key, now, window) })
}

func (s linRecStore) Ban(key string, until uint64) (uint64, error) {
	return s.record(linStoreIn{op: string(ithrottle.OpBan), key: key, until: until}, func() (uint64, error) { return s.inner.Ban(key, until) })
}

func (s linRecStore) ClearFailures(key string) error {
	_, err := s.record(linStoreIn{op: string(ithrottle.OpClearFailures), key: key}, func() (uint64, error) { return 0, s.inner.ClearFailures(key) })
	return err
}

func (s linRecStore) Clear(key string) error {
	_, err := s.record(linStoreIn{op: string(ithrottle.OpClear), key: key}, func() (uint64, error) { return 0, s.inner.Clear(key) })
	return err
}

func (s linRecStore) Purge(now, window uint64) (uint64, error) {
	in := linStoreIn{op: string(ithrottle.OpPurge), now: now, window: window}
	return s.record(in, func() (uint64, error) { return s.inner.Purge(now, window) })
}

// linFaultPhases is how many times a history's rules change: between
// phases of store operations, never during one.
const linFaultPhases = 8

// linStoreClient returns the body of each of clients clients: n throttle
// operations (as linThrOp draws them, purge included) by a throttle of its
// own over a recording wrapper of the shared fault store, in linFaultPhases
// phases. Between phases every client waits while client 0 records a
// set_faults alone (half of them clearing the rules): FaultStore checks an
// operation's rules and then runs it, so a rule change during an operation
// is not atomic with it (TestLinFaultStoreRuleChangeIsNotAtomicWithOps).
func linStoreClient(fs *ithrottle.FaultStore, clock *linClock, clients, n int) func(*linClient, *rand.Rand) {
	b := newLinBarrier(clients)
	return func(c *linClient, rng *rand.Rand) {
		thr, err := ithrottle.New(linRecStore{inner: fs, c: c}, linThrConfig)
		if err != nil {
			panic(err) // a constant valid config over a store
		}
		for phase := range linFaultPhases {
			for range n / linFaultPhases {
				linThrCall(thr, linThrOp(rng, clock, linThrMix{purge: true}))
				if rng.IntN(3) == 0 {
					runtime.Gosched()
				}
			}
			b.wait()
			if c.id == 0 && phase < linFaultPhases-1 {
				linSetFaults(c, fs, linDrawFaults(rng))
			}
			b.wait()
		}
	}
}

// linDrawFaults draws an index of linFaultSets: 0 (no rule) half the time.
func linDrawFaults(rng *rand.Rand) int {
	if rng.IntN(2) == 0 {
		return 0
	}
	return 1 + rng.IntN(len(linFaultSets)-1)
}

// linSetFaults records fs.SetFaults(linFaultSets[i]...).
func linSetFaults(c *linClient, fs *ithrottle.FaultStore, i int) {
	linDo(c, linStoreIn{op: string(oracle.SetFaults), faults: i}, func() linStoreOut {
		fs.SetFaults(linFaultSets[i]...)
		return linStoreOut{}
	})
}

// linBarrier makes n goroutines wait for each other, again and again.
type linBarrier struct {
	mu      sync.Mutex
	cond    sync.Cond
	n, in   int
	release int // how many times the barrier opened
}

func newLinBarrier(n int) *linBarrier {
	b := &linBarrier{n: n}
	b.cond.L = &b.mu
	return b
}

// wait returns once n goroutines are waiting.
func (b *linBarrier) wait() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.in++; b.in == b.n {
		b.in = 0
		b.release++
		b.cond.Broadcast()
		return
	}
	for r := b.release; r == b.release; {
		b.cond.Wait()
	}
}

// TestLinFaultStoreOpsAreLinearizable checks that the store operations a
// throttle makes over impl's FaultStore, wrapping a MemStore of one shard
// (so that purge is atomic), are linearizable with respect to model/throttle's
// FaultStore over its exact store, with rule changes (set_faults) between
// phases of concurrent operations: some order of every store operation and
// rule change, consistent with real time, makes the model fail exactly the
// operations impl failed and return every value impl returned (counts cut
// at the k stamps impl keeps, PROP-17). The histories must fail some
// operations.
func TestLinFaultStoreOpsAreLinearizable(t *testing.T) {
	failed := 0
	for round := range *linRounds {
		fs := ithrottle.NewFaultStore(newLinMemStore(t, 1))
		h := linRun(linClients, linSeed(t.Name(), round), linStoreClient(fs, new(linClock), linClients, linOpsPerClient))
		linRequire(t, linStoreModel(), h, fmt.Sprintf("fault store history %d", round))
		for _, op := range h {
			if op.Output.(linStoreOut).Failed {
				failed++
			}
		}
	}
	if failed == 0 {
		t.Errorf("no store operation failed in %d histories, want some: the fault rules never matched", *linRounds)
	}
	t.Logf("store operations failed: %d", failed)
}

// linLateStore is impl's MemStore that runs hook once, at the start of the
// first AddFailure: under a FaultStore, after it checked its rules and
// before the stamp is added. A deterministic interleaving.
type linLateStore struct {
	*ithrottle.MemStore
	hook func()
}

func (s *linLateStore) AddFailure(key string, now, window uint64) (uint64, error) {
	if h := s.hook; h != nil {
		s.hook = nil
		h()
	}
	return s.MemStore.AddFailure(key, now, window)
}

// TestLinFaultStoreRuleChangeIsNotAtomicWithOps pins a finding: impl's
// FaultStore checks an operation against its rules, then runs it on the
// inner store, in two steps, so a rule change that completes between them
// is not ordered with the operation. Client 0's add_failure(k, 0) passes the
// (empty) rules; client 1 then sets a rule failing every add_failure and
// reads count(k, 0) = 0; the add_failure then adds its stamp and returns 1.
// Having succeeded, it must come before the rule change, so the count after
// the rule change must be 1: the checker reports the history Illegal. If
// FaultStore becomes atomic this test fails; then drop the phases of
// linStoreClient.
func TestLinFaultStoreRuleChangeIsNotAtomicWithOps(t *testing.T) {
	const addFailureFails = 2 // linFaultSets[2]: every add_failure fails
	late := &linLateStore{MemStore: newLinMemStore(t, 1)}
	fs := ithrottle.NewFaultStore(late)
	var stamp atomic.Int64
	c0, c1 := &linClient{id: 0, stamp: &stamp}, &linClient{id: 1, stamp: &stamp}
	k := linThrKeys[0]
	late.hook = func() {
		linSetFaults(c1, fs, addFailureFails)
		if n, err := (linRecStore{inner: fs, c: c1}).Count(k, 0, linThrWindow); n != 0 || err != nil {
			t.Errorf("Count(%q, 0, %d) during the add_failure = %d, %v; want 0, nil", k, linThrWindow, n, err)
		}
	}
	if n, err := (linRecStore{inner: fs, c: c0}).AddFailure(k, 0, linThrWindow); n != 1 || err != nil {
		t.Fatalf("AddFailure(%q, 0, %d) with set_faults(add_failure) between its rule check and its effect = %d, %v; want 1, nil", k, linThrWindow, n, err)
	}
	h := append(c0.ops, c1.ops...)
	linRequireIllegal(t, linStoreModel(), h, "a rule change inside an add_failure")
}
