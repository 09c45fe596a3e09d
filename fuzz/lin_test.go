package fuzz

// Linearizability checks: several goroutines drive one impl/ instance at once,
// every operation is recorded with its call and return stamps, and porcupine
// looks for an order of the operations, consistent with real time, in which
// the model returns exactly what impl returned. The model runs by replay (a
// fresh model instance, the inputs applied so far, then the new one), so
// porcupine's states are immutable; a snapshot of the model's whole state
// lets porcupine merge states that different orders reach.
//
// This file holds the machinery. The checks: lin_gate_test.go (impl/gate),
// lin_throttle_test.go (impl/throttle over its MemStore),
// lin_store_test.go (the store operations over impl's FaultStore),
// lin_sequential_test.go (one client: the machinery itself),
// lin_spread_test.go (a fleet of nodes over one table: the composition of
// redisgate's Spread layout, run on a Redis Cluster by
// redis_spread_cluster_test.go); the subjects
// the checks must catch are in lin_broken_test.go, and lin_yield_test.go
// holds stores that yield between a throttle call's store operations.

import (
	"cmp"
	"flag"
	"fmt"
	"hash/fnv"
	"hash/maphash"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/limcheck/limcheck/internal/slowdown"
)

// Sizes: each check runs *linRounds histories of linClients goroutines
// doing linOpsPerClient operations each, so that a check finishes in about
// a second and porcupine decides every history well within its first
// budget, linBudgets[0].
const (
	linClients      = 4
	linOpsPerClient = 40
)

// linBudgets are porcupine's successive time budgets for one history,
// before slowdown.Scale: a check that runs out of one (Unknown) is run
// again with the next, so that a busy machine costs time, not a verdict.
// What is still Unknown after the last is inconclusive (linRequire).
var linBudgets = []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute}

// linRounds is the number of concurrent histories of each check; raise it
// for a longer search: go test ./fuzz -run Lin -lin.rounds=2000.
var linRounds = flag.Int("lin.rounds", 30, "concurrent histories per linearizability check")

// linSeed returns the random seed of one round of one check: every history
// is generated from deterministic draws (the interleaving is the scheduler's).
func linSeed(check string, round int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(check))
	return h.Sum64() ^ uint64(round)*0x9e3779b97f4a7c15
}

// linHashSeed seeds the hashes of model snapshots.
var linHashSeed = maphash.MakeSeed()

// linClient records the operations of one goroutine of a history.
type linClient struct {
	id    int
	stamp *atomic.Int64 // shared by every client of the history
	ops   []porcupine.Operation
}

// linDo runs op for client c and records it with input in and op's output.
// The call stamp is taken before op starts and the return stamp after it
// ends, from one counter shared by all clients: an operation that returned
// before another was called has the smaller stamp, as porcupine requires.
func linDo[O any](c *linClient, in any, op func() O) O {
	call := c.stamp.Add(1)
	out := op()
	ret := c.stamp.Add(1)
	c.ops = append(c.ops, porcupine.Operation{ClientId: c.id, Input: in, Call: call, Output: out, Return: ret})
	return out
}

// linRun runs body on clients goroutines that start together, each with its
// own client and a random source seeded from seed, and returns the history
// of every operation they recorded. With one client the history is
// sequential.
func linRun(clients int, seed uint64, body func(c *linClient, rng *rand.Rand)) []porcupine.Operation {
	var stamp atomic.Int64
	cs := make([]*linClient, clients)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range cs {
		cs[i] = &linClient{id: i, stamp: &stamp}
		done.Add(1)
		go func() {
			defer done.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			start.Wait()
			body(cs[i], rng)
		}()
	}
	start.Done()
	done.Wait()
	var h []porcupine.Operation
	for _, c := range cs {
		h = append(h, c.ops...)
	}
	return h
}

// linMaxNow bounds the shared clock: every now is in [0, linMaxNow].
const linMaxNow = 63

// linClock is the clock the goroutines of a history share. Each draw moves
// it forward a little, leaves it, or steps it back, clamped to
// [0, linMaxNow]; operations carry the drawn now explicitly.
type linClock struct{ now atomic.Int64 }

// next moves the clock by a step drawn from rng and returns the new time.
func (k *linClock) next(rng *rand.Rand) int64 {
	step := linClockStep(rng)
	for {
		old := k.now.Load()
		now := min(max(old+step, 0), linMaxNow)
		if k.now.CompareAndSwap(old, now) {
			return now
		}
	}
}

// linClockStep is 0 two times in five, +1 or +2 nine times in twenty, and a
// step back of 1 to 3 otherwise: the clock drifts forward about 0.4 a draw.
func linClockStep(rng *rand.Rand) int64 {
	switch r := rng.IntN(20); {
	case r < 8:
		return 0
	case r < 17:
		return 1 + rng.Int64N(2)
	}
	return -1 - rng.Int64N(3)
}

// linMachine is one fresh instance of a sequential model: it applies inputs
// in order and reports its whole state as a comparable snapshot. The
// snapshot must be complete: two instances with equal snapshots give the
// same outputs for every future input of the histories checked, or
// porcupine would merge states that differ.
type linMachine[I any, O comparable, S comparable] interface {
	apply(in I) O
	snapshot() S
}

// linState is a porcupine state: the inputs applied so far (a persistent
// list, newest first; never mutated) and the model's snapshot after them.
type linState[I any, S comparable] struct {
	applied *linApplied[I]
	snap    S
}

// linApplied is one node of a persistent list of inputs.
type linApplied[I any] struct {
	in   I
	prev *linApplied[I]
	n    int // the list's length
}

// inputs returns the list's inputs, oldest first.
func (a *linApplied[I]) inputs() []I {
	if a == nil {
		return nil
	}
	ins := make([]I, a.n)
	for p := a; p != nil; p = p.prev {
		ins[p.n-1] = p.in
	}
	return ins
}

// linModel returns the porcupine model of a sequential specification run by
// replay. Step builds a fresh instance, applies the inputs of the state,
// then in, and accepts iff the instance's output equals out; the new state
// adds in to the list. Equal and Hash use the snapshot alone. partition, if
// not nil, names the partition of an input: the history is then checked
// partition by partition, which is sound only when the partitions never
// affect each other's outputs.
func linModel[I fmt.Stringer, O comparable, S comparable](fresh func() linMachine[I, O, S], partition func(I) string) porcupine.Model {
	m := porcupine.Model{
		Init: func() any { return linState[I, S]{snap: fresh().snapshot()} },
		Step: func(state, in, out any) (bool, any) {
			st := state.(linState[I, S])
			inst := fresh()
			for _, prev := range st.applied.inputs() {
				inst.apply(prev)
			}
			if inst.apply(in.(I)) != out.(O) {
				return false, nil
			}
			n := 1
			if st.applied != nil {
				n = st.applied.n + 1
			}
			return true, linState[I, S]{applied: &linApplied[I]{in: in.(I), prev: st.applied, n: n}, snap: inst.snapshot()}
		},
		Equal:             func(a, b any) bool { return a.(linState[I, S]).snap == b.(linState[I, S]).snap },
		Hash:              func(s any) uint64 { return maphash.Comparable(linHashSeed, s.(linState[I, S]).snap) },
		DescribeOperation: linDescribe,
		DescribeState:     func(s any) string { return fmt.Sprintf("%+v", s.(linState[I, S]).snap) },
	}
	if partition != nil {
		m.Partition = linPartition(partition)
	}
	return m
}

// linDescriber is an input that describes its operation with its output
// better than "in -> out".
type linDescriber interface{ describe(out any) string }

// linDescribe describes one operation.
func linDescribe(in, out any) string {
	if d, ok := in.(linDescriber); ok {
		return d.describe(out)
	}
	return fmt.Sprintf("%v -> %v", in, out)
}

// linPartition splits a history by the partition name of each input, in
// order of first appearance.
func linPartition[I any](name func(I) string) func([]porcupine.Operation) [][]porcupine.Operation {
	return func(h []porcupine.Operation) [][]porcupine.Operation {
		index := map[string]int{}
		var parts [][]porcupine.Operation
		for _, op := range h {
			k := name(op.Input.(I))
			i, ok := index[k]
			if !ok {
				i = len(parts)
				index[k] = i
				parts = append(parts, nil)
			}
			parts[i] = append(parts[i], op)
		}
		return parts
	}
}

// linCheck checks history h against m, within each of linBudgets in turn
// until porcupine decides it (Ok or Illegal). It returns Unknown only when
// the last budget ran out too, with the budget it ran out of.
func linCheck(m porcupine.Model, h []porcupine.Operation) (porcupine.CheckResult, time.Duration) {
	var budget time.Duration
	for _, b := range linBudgets {
		budget = slowdown.Scale(b)
		if res := porcupine.CheckOperationsTimeout(m, h, budget); res != porcupine.Unknown {
			return res, budget
		}
	}
	return porcupine.Unknown, budget
}

// linInconclusive reports on t that porcupine could not decide a history
// within every budget, and ends the test as skipped: an undecided history
// is neither a pass nor a failure of the implementation. The message says
// how to give the check more time.
func linInconclusive(t *testing.T, what string, ops int, budget time.Duration) {
	t.Helper()
	t.Skipf("INCONCLUSIVE: porcupine did not decide %s (%d ops) within %v: not a pass and not a failure of impl; rerun on a quieter machine or with %s set above %v",
		what, ops, budget, slowdown.Env, slowdown.Factor())
}

// linRequire fails t unless history h (described by what) is linearizable
// with respect to m. A history porcupine cannot decide within every budget
// is inconclusive: the test ends as skipped (linInconclusive), never
// passed.
func linRequire(t *testing.T, m porcupine.Model, h []porcupine.Operation, what string) {
	t.Helper()
	switch res, budget := linCheck(m, h); res {
	case porcupine.Ok:
	case porcupine.Unknown:
		linInconclusive(t, what, len(h), budget)
	default:
		t.Fatalf("CheckOperationsTimeout(model, %s: %d ops, %v) = %s, want Ok: no order of the operations consistent with real time gives impl's results\n%s",
			what, len(h), budget, res, linReport(m, h))
	}
}

// linRequireIllegal fails t unless history h (described by what) is not
// linearizable with respect to m; an undecided one is inconclusive.
func linRequireIllegal(t *testing.T, m porcupine.Model, h []porcupine.Operation, what string) {
	t.Helper()
	switch res, budget := linCheck(m, h); res {
	case porcupine.Illegal:
	case porcupine.Unknown:
		linInconclusive(t, what, len(h), budget)
	default:
		t.Fatalf("CheckOperationsTimeout(model, %s, %v) = %s, want Illegal\n%s", what, budget, res, linReport(m, h))
	}
}

// linReport writes porcupine's visualization of h to a file that outlives
// the test and returns its path with h, one operation a line by call stamp.
func linReport(m porcupine.Model, h []porcupine.Operation) string {
	var b strings.Builder
	_, info := porcupine.CheckOperationsVerbose(m, h, slowdown.Scale(linBudgets[len(linBudgets)-1]))
	if dir, err := os.MkdirTemp("", "limcheck-lin-"); err != nil {
		fmt.Fprintf(&b, "visualization not written: %v\n", err)
	} else if path := filepath.Join(dir, "history.html"); porcupine.VisualizePath(m, info, path) != nil {
		fmt.Fprintf(&b, "visualization not written to %s\n", path)
	} else {
		fmt.Fprintf(&b, "visualization: %s\n", path)
	}
	b.WriteString("history (client [call, return] operation -> result):\n")
	for _, op := range linByCall(h) {
		fmt.Fprintf(&b, "  c%d [%d, %d] %s\n", op.ClientId, op.Call, op.Return, linDescribe(op.Input, op.Output))
	}
	return b.String()
}

// linByCall returns h sorted by call stamp.
func linByCall(h []porcupine.Operation) []porcupine.Operation {
	s := slices.Clone(h)
	slices.SortFunc(s, func(a, b porcupine.Operation) int { return cmp.Compare(a.Call, b.Call) })
	return s
}

// linTally counts the outcome names out gives for the outputs of h.
func linTally(seen map[string]int, h []porcupine.Operation, out func(any) string) {
	for _, op := range h {
		if name := out(op.Output); name != "" {
			seen[name]++
		}
	}
}

// linRequireSeen fails t unless every name in want was counted: histories
// that never shed or never ban would check little.
func linRequireSeen(t *testing.T, seen map[string]int, want ...string) {
	t.Helper()
	for _, w := range want {
		if seen[w] == 0 {
			t.Errorf("outcomes of the histories = %v, want some %q: the generator does not exercise it", seen, w)
		}
	}
	t.Logf("outcomes: %v", seen)
}
