package fuzz

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/anishathalye/porcupine"
	ithrottle "github.com/limcheck/limcheck/impl/throttle"
	mthrottle "github.com/limcheck/limcheck/model/throttle"
	"github.com/limcheck/limcheck/oracle"
)

// The throttle of the linearizability checks: the second failure in 10 s
// bans for 6 s, so that bans are set, outlived by their failures (FIND-5)
// and expire within a history.
const (
	linThrThreshold = 2
	linThrWindow    = 10
	linThrBan       = 6
)

// linThrConfig is impl's config of the checks' throttle.
var linThrConfig = ithrottle.Config{Threshold: linThrThreshold, WindowSecs: linThrWindow, BanSecs: linThrBan}

// linThrKeys are the keys the clients use, the empty key included (THR-17).
var linThrKeys = [...]string{"ip:10.0.0.1", "acct:bob", ""}

// linThrIn is one throttle operation. check_any's keys are in keys; every
// other keyed operation's key is key.
type linThrIn struct {
	kind oracle.Kind
	key  string
	keys []string
	now  uint64
}

func (in linThrIn) String() string {
	switch in.kind {
	case oracle.Check, oracle.RecordFailure:
		return fmt.Sprintf("%s(%q, %d)", in.kind, in.key, in.now)
	case oracle.CheckAny:
		return fmt.Sprintf("%s(%q, %d)", in.kind, in.keys, in.now)
	case oracle.PurgeExpired:
		return fmt.Sprintf("%s(%d)", in.kind, in.now)
	}
	return fmt.Sprintf("%s(%q)", in.kind, in.key)
}

// linThrKey names the partition of a keyed operation: its key (check_any's
// keys are all one key in partitioned histories).
func linThrKey(in linThrIn) string {
	if in.kind == oracle.CheckAny {
		return in.keys[0]
	}
	return in.key
}

// linThrOut is what a throttle operation returned: a decision, purge's count,
// or a store error.
type linThrOut struct {
	Verdict          string
	Remaining, Until uint64
	Count            uint64
	Failed           bool
}

func (o linThrOut) String() string {
	switch {
	case o.Failed:
		return "store error"
	case o.Verdict == string(mthrottle.Allow):
		return fmt.Sprintf("allow{%d}", o.Remaining)
	case o.Verdict == string(mthrottle.Banned):
		return fmt.Sprintf("banned{%d}", o.Until)
	}
	return o.Verdict
}

// describe describes the operation with its output.
func (in linThrIn) describe(out any) string {
	o := out.(linThrOut)
	switch {
	case in.kind == oracle.PurgeExpired && !o.Failed:
		return fmt.Sprintf("%v -> %d", in, o.Count)
	case o.Failed || o.Verdict != "":
		return fmt.Sprintf("%v -> %v", in, o)
	}
	return in.String()
}

// linThrVerdict names the verdict of an output, for tallies.
func linThrVerdict(out any) string { return out.(linThrOut).Verdict }

// linThrDecision maps a decision of either throttle to a linThrOut.
func linThrDecision(verdict string, remaining, until uint64, err error) linThrOut {
	switch {
	case err != nil:
		return linThrOut{Failed: true}
	case verdict == string(mthrottle.Allow):
		return linThrOut{Verdict: verdict, Remaining: remaining}
	case verdict == string(mthrottle.Banned):
		return linThrOut{Verdict: verdict, Until: until}
	}
	return linThrOut{Verdict: verdict}
}

// linThrMachine is model/throttle over its exact store as a linMachine.
type linThrMachine struct {
	t     *mthrottle.Throttle
	store *mthrottle.MemStore
}

// linKeysSnap is the whole state of a store as the checks can observe it
// (keys in linThrKeys, window linThrWindow, nows in [0, linMaxNow]): each
// key's ban-until and its count at every such now. The counts fix the
// stamps' multiset as far as any count or purge at those nows can tell;
// the count at 0 is every stamp, which with the ban-until says whether the
// key is tracked (purge's count).
type linKeysSnap struct {
	until  [len(linThrKeys)]uint64
	counts [len(linThrKeys)][linMaxNow + 1]uint16
}

func newLinThrMachine() linMachine[linThrIn, linThrOut, linKeysSnap] {
	store := mthrottle.NewMemStore()
	t, err := mthrottle.New(store, mthrottle.Config{Threshold: linThrThreshold, WindowSecs: linThrWindow, BanSecs: linThrBan})
	if err != nil {
		panic(err) // a constant config
	}
	return linThrMachine{t: t, store: store}
}

func (m linThrMachine) apply(in linThrIn) linThrOut {
	switch in.kind {
	case oracle.Check:
		d := m.t.Check(in.key, in.now)
		return linThrDecision(string(d.Verdict), d.Remaining, d.Until, nil)
	case oracle.CheckAny:
		d := m.t.CheckAny(in.keys, in.now)
		return linThrDecision(string(d.Verdict), d.Remaining, d.Until, nil)
	case oracle.RecordFailure:
		d, err := m.t.RecordFailure(in.key, in.now)
		return linThrDecision(string(d.Verdict), d.Remaining, d.Until, err)
	case oracle.RecordSuccess:
		return linThrOut{Failed: m.t.RecordSuccess(in.key) != nil}
	case oracle.Reset:
		return linThrOut{Failed: m.t.Reset(in.key) != nil}
	}
	n, err := m.t.PurgeExpired(in.now)
	return linThrOut{Count: n, Failed: err != nil}
}

func (m linThrMachine) snapshot() linKeysSnap { return linSnapStore(m.store) }

// linSnapStore reads the snapshot of a model store (which never fails).
func linSnapStore(s *mthrottle.MemStore) linKeysSnap {
	var snap linKeysSnap
	for i, k := range linThrKeys {
		snap.until[i], _ = s.BanUntil(k)
		for now := range snap.counts[i] {
			n, _ := s.Count(k, uint64(now), linThrWindow)
			snap.counts[i][now] = uint16(n)
		}
	}
	return snap
}

// linThrModelByKey is the porcupine model of keyed throttle operations,
// partitioned by key: keys are independent (THR-17, PROP-19). Its histories
// must not purge nor check_any distinct keys, which span keys.
func linThrModelByKey() porcupine.Model { return linModel(newLinThrMachine, linThrKey) }

// linThrModelWhole is the porcupine model of the throttle, not partitioned.
func linThrModelWhole() porcupine.Model { return linModel(newLinThrMachine, nil) }

// newLinMemStore returns impl's store keeping threshold stamps per key over
// shards locks (0: the default).
func newLinMemStore(t *testing.T, shards int) *ithrottle.MemStore {
	t.Helper()
	s, err := ithrottle.NewMemStore(ithrottle.MemConfig{StampsPerKey: linThrThreshold, Shards: shards})
	if err != nil {
		t.Fatalf("NewMemStore: %v", err)
	}
	return s
}

// linThrStore returns the store of round: impl's MemStore of shards locks,
// in odd rounds wrapped to yield before every (still atomic) operation.
func linThrStore(t *testing.T, round, shards int) ithrottle.Store {
	t.Helper()
	mem := newLinMemStore(t, shards)
	if round%2 == 1 {
		return newLinYieldMemStore(mem)
	}
	return mem
}

// newLinImplThrottle returns impl's throttle over store.
func newLinImplThrottle(t *testing.T, store ithrottle.Store) *ithrottle.Throttle {
	t.Helper()
	thr, err := ithrottle.New(store, linThrConfig)
	if err != nil {
		t.Fatalf("throttle.New: %v", err)
	}
	return thr
}

// linThrMix says which operations a client draws beyond the keyed ones.
type linThrMix struct {
	purge     bool // purge_expired, which touches every key
	crossKeys bool // check_any over distinct keys
}

// linThrOp draws one throttle operation: checks, check_any of one key
// (repeated: duplicates are checked again, THR-10), failures, successes and
// resets over linThrKeys, and what mix adds.
func linThrOp(rng *rand.Rand, clock *linClock, mix linThrMix) linThrIn {
	key := linThrKeys[rng.IntN(len(linThrKeys))]
	now := func() uint64 { return uint64(clock.next(rng)) }
	switch r := rng.IntN(100); {
	case r < 25:
		return linThrIn{kind: oracle.Check, key: key, now: now()}
	case r < 35:
		keys := slices.Repeat([]string{key}, 1+rng.IntN(3))
		if mix.crossKeys {
			keys = append(keys, linThrKeys[rng.IntN(len(linThrKeys))])
		}
		return linThrIn{kind: oracle.CheckAny, keys: keys, now: now()}
	case r < 72:
		return linThrIn{kind: oracle.RecordFailure, key: key, now: now()}
	case r < 82:
		return linThrIn{kind: oracle.RecordSuccess, key: key}
	case r < 90 || !mix.purge:
		return linThrIn{kind: oracle.Reset, key: key}
	}
	return linThrIn{kind: oracle.PurgeExpired, now: now()}
}

// linThrCall applies in to impl's throttle.
func linThrCall(thr *ithrottle.Throttle, in linThrIn) linThrOut {
	switch in.kind {
	case oracle.Check:
		d := thr.Check(in.key, in.now)
		return linThrDecision(string(d.Verdict), d.Remaining, d.Until, nil)
	case oracle.CheckAny:
		d := thr.CheckAny(in.keys, in.now)
		return linThrDecision(string(d.Verdict), d.Remaining, d.Until, nil)
	case oracle.RecordFailure:
		d, err := thr.RecordFailure(in.key, in.now)
		return linThrDecision(string(d.Verdict), d.Remaining, d.Until, err)
	case oracle.RecordSuccess:
		return linThrOut{Failed: thr.RecordSuccess(in.key) != nil}
	case oracle.Reset:
		return linThrOut{Failed: thr.Reset(in.key) != nil}
	}
	n, err := thr.PurgeExpired(in.now)
	return linThrOut{Count: n, Failed: err != nil}
}

// linThrClient returns the body of one client: n operations drawn by
// linThrOp on thr, recorded, yielding now and then.
func linThrClient(thr *ithrottle.Throttle, clock *linClock, mix linThrMix, n int) func(*linClient, *rand.Rand) {
	return func(c *linClient, rng *rand.Rand) {
		for range n {
			in := linThrOp(rng, clock, mix)
			linDo(c, in, func() linThrOut { return linThrCall(thr, in) })
			if rng.IntN(3) == 0 {
				runtime.Gosched()
			}
		}
	}
}

// TestLinThrottleKeyOpsAreLinearizable checks that concurrent histories of
// one impl/throttle over its MemStore (default shards, the fused one-lock
// Check and RecordFailure; every other round yielding before each store
// operation) are linearizable with respect to model/throttle
// over its exact store: four clients check, check_any, record failures and
// successes and reset three keys at a clock that also steps back, and for
// each key some order of its operations consistent with real time makes the
// model return every decision impl returned. Checked key by key (THR-17);
// no purge, which touches every key. The histories must allow and ban.
func TestLinThrottleKeyOpsAreLinearizable(t *testing.T) {
	seen := map[string]int{}
	for round := range *linRounds {
		thr := newLinImplThrottle(t, linThrStore(t, round, 0))
		h := linRun(linClients, linSeed(t.Name(), round), linThrClient(thr, new(linClock), linThrMix{}, linOpsPerClient))
		linRequire(t, linThrModelByKey(), h, fmt.Sprintf("throttle history %d", round))
		linTally(seen, h, linThrVerdict)
	}
	linRequireSeen(t, seen, string(mthrottle.Allow), string(mthrottle.Banned))
}

// TestLinThrottlePurgeOverOneShardIsLinearizable checks that concurrent
// histories with purge_expired are linearizable, as a whole, with respect to
// model/throttle, over a MemStore of one shard (every other round yielding
// before each store operation): MemStore's purge locks one shard at a time
// (atomic per key, not a snapshot of the store), so only with one shard is
// it one atomic operation. The histories must purge some key.
func TestLinThrottlePurgeOverOneShardIsLinearizable(t *testing.T) {
	purged := 0
	for round := range *linRounds {
		thr := newLinImplThrottle(t, linThrStore(t, round, 1))
		h := linRun(linClients, linSeed(t.Name(), round), linThrClient(thr, new(linClock), linThrMix{purge: true}, linOpsPerClient))
		linRequire(t, linThrModelWhole(), h, fmt.Sprintf("throttle history %d", round))
		for _, op := range h {
			purged += int(op.Output.(linThrOut).Count)
		}
	}
	if purged == 0 {
		t.Errorf("purge_expired counts sum to 0 over %d histories, want some key purged", *linRounds)
	}
	t.Logf("keys purged: %d", purged)
}

// linHookMemStore is impl's MemStore that runs hook once, just before the
// first CheckState of key trigger: a deterministic interleaving.
type linHookMemStore struct {
	*ithrottle.MemStore
	trigger string
	hook    func()
}

func (s *linHookMemStore) CheckState(key string, now, window uint64) (until, count uint64, err error) {
	if h := s.hook; h != nil && key == s.trigger {
		s.hook = nil
		h()
	}
	return s.MemStore.CheckState(key, now, window)
}

// TestLinCheckAnyOfDistinctKeysIsNotLinearizable pins a finding: impl's
// check_any over distinct keys is a fold of per-key atomic checks, not one
// atomic operation (impl/throttle promises atomic Check and RecordFailure
// only), so it is not linearizable. Key b is banned; check_any([a, b], 1)
// reads a (allow{2}); then, while it runs, another client records a failure
// of a (allow{1}) and resets b; check_any reads b (allow{2}) and returns
// allow{2}. The model gives banned before the reset and allow{1} after it,
// never allow{2}: the checker reports the history Illegal. If CheckAny
// becomes atomic this test fails; then make its histories a positive check.
func TestLinCheckAnyOfDistinctKeysIsNotLinearizable(t *testing.T) {
	a, b := linThrKeys[0], linThrKeys[1] // keys the model's snapshot covers
	store := &linHookMemStore{MemStore: newLinMemStore(t, 0), trigger: b}
	thr := newLinImplThrottle(t, store)
	var stamp atomic.Int64
	c0, c1 := &linClient{id: 0, stamp: &stamp}, &linClient{id: 1, stamp: &stamp}
	do := func(c *linClient, in linThrIn) linThrOut {
		return linDo(c, in, func() linThrOut { return linThrCall(thr, in) })
	}
	do(c1, linThrIn{kind: oracle.RecordFailure, key: b, now: 0})
	do(c1, linThrIn{kind: oracle.RecordFailure, key: b, now: 0}) // banned until 6
	store.hook = func() {
		do(c1, linThrIn{kind: oracle.RecordFailure, key: a, now: 1})
		do(c1, linThrIn{kind: oracle.Reset, key: b})
	}
	got := do(c0, linThrIn{kind: oracle.CheckAny, keys: []string{a, b}, now: 1})
	if want := (linThrOut{Verdict: string(mthrottle.Allow), Remaining: 2}); got != want {
		t.Fatalf("CheckAny([%q, %q], 1) with a failure of %q and a reset of %q between its reads = %v, want %v", a, b, a, b, got, want)
	}
	h := append(c0.ops, c1.ops...)
	linRequireIllegal(t, linThrModelWhole(), h, "check_any across keys")
}
