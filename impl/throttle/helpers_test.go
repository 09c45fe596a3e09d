package throttle_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/limcheck/limcheck/impl/throttle"
)

const maxU = uint64(math.MaxUint64)

// Keys used by the tables.
const (
	kIP    = "ip:1"
	kAcct  = "acct:alice"
	kEmpty = ""
	kBad   = "\xff\xfe" // not UTF-8
)

func allow(n uint64) throttle.Decision {
	return throttle.Decision{Verdict: throttle.Allow, Remaining: n}
}

func banned(until uint64) throttle.Decision {
	return throttle.Decision{Verdict: throttle.Banned, Until: until}
}

var unavailable = throttle.Decision{Verdict: throttle.Unavailable}

func cfg(threshold, window, ban uint64) throttle.Config {
	return throttle.Config{Threshold: threshold, WindowSecs: window, BanSecs: ban}
}

func fault(op throttle.Op, keys ...string) throttle.Fault { return throttle.Fault{Op: op, Keys: keys} }

// newMem returns a MemStore keeping k stamps per key, failing t on error.
func newMem(t testing.TB, k uint64) *throttle.MemStore {
	t.Helper()
	s, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: k})
	if err != nil {
		t.Fatalf("NewMemStore(k=%d): %v", k, err)
	}
	return s
}

// kind names a throttle operation of a step.
type kind string

const (
	opCheck         kind = "Check"
	opCheckAny      kind = "CheckAny"
	opRecordFailure kind = "RecordFailure"
	opRecordSuccess kind = "RecordSuccess"
	opReset         kind = "Reset"
	opPurgeExpired  kind = "PurgeExpired"
	opSetFaults     kind = "SetFaults"
)

// step is one throttle call and what it must return. err is the Op of the
// expected *StoreError ("" for none); cause its cause.
type step struct {
	op     kind
	key    string
	keys   []string
	at     uint64
	faults []throttle.Fault
	want   throttle.Decision
	count  uint64
	err    throttle.Op
}

func check(key string, at uint64, want throttle.Decision) step {
	return step{op: opCheck, key: key, at: at, want: want}
}

func checkAny(at uint64, want throttle.Decision, keys ...string) step {
	return step{op: opCheckAny, keys: keys, at: at, want: want}
}

func failure(key string, at uint64, want throttle.Decision) step {
	return step{op: opRecordFailure, key: key, at: at, want: want}
}

func failureErr(key string, at uint64, op throttle.Op) step {
	return step{op: opRecordFailure, key: key, at: at, err: op}
}

func success(key string) step { return step{op: opRecordSuccess, key: key} }

func successErr(key string) step {
	return step{op: opRecordSuccess, key: key, err: throttle.OpClearFailures}
}

func reset(key string) step { return step{op: opReset, key: key} }

func resetErr(key string) step { return step{op: opReset, key: key, err: throttle.OpClear} }

func purge(at, n uint64) step { return step{op: opPurgeExpired, at: at, count: n} }

func purgeErr(at uint64) step { return step{op: opPurgeExpired, at: at, err: throttle.OpPurge} }

func setFaults(rules ...throttle.Fault) step { return step{op: opSetFaults, faults: rules} }

// call renders the step as the Go call it makes.
func (s step) call() string {
	switch s.op {
	case opCheck, opRecordFailure:
		return fmt.Sprintf("%s(%q, %d)", s.op, s.key, s.at)
	case opCheckAny:
		return fmt.Sprintf("CheckAny(%q, %d)", s.keys, s.at)
	case opPurgeExpired:
		return fmt.Sprintf("PurgeExpired(%d)", s.at)
	case opSetFaults:
		return fmt.Sprintf("SetFaults(%+v)", s.faults)
	}
	return fmt.Sprintf("%s(%q)", s.op, s.key)
}

// run makes the step's call on th (whose fault store is fs, maybe nil).
func (s step) run(th *throttle.Throttle, fs *throttle.FaultStore) (got throttle.Decision, n uint64, err error) {
	switch s.op {
	case opCheck:
		got = th.Check(s.key, s.at)
	case opCheckAny:
		got = th.CheckAny(s.keys, s.at)
	case opRecordFailure:
		got, err = th.RecordFailure(s.key, s.at)
	case opRecordSuccess:
		err = th.RecordSuccess(s.key)
	case opReset:
		err = th.Reset(s.key)
	case opPurgeExpired:
		n, err = th.PurgeExpired(s.at)
	case opSetFaults:
		fs.SetFaults(s.faults...)
	}
	return got, n, err
}

// do runs the step on th and fails t on a wrong result.
func (s step) do(t *testing.T, th *throttle.Throttle, fs *throttle.FaultStore) {
	t.Helper()
	got, n, err := s.run(th, fs)
	key := s.key
	if s.op == opPurgeExpired {
		key = ""
	}
	if wantStoreErr(t, s.call(), err, s.err, throttle.ErrFault, key) {
		return
	}
	switch s.op {
	case opCheck, opCheckAny, opRecordFailure:
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Fatalf("%s = %+v, want %+v (-want +got):\n%s", s.call(), got, s.want, diff)
		}
	case opPurgeExpired:
		if n != s.count {
			t.Fatalf("%s = %d, want %d", s.call(), n, s.count)
		}
	}
}

// wantStoreErr checks err against the expected *StoreError of op on key with
// cause (op "": no error) and reports whether an error was expected.
func wantStoreErr(t *testing.T, call string, err error, op throttle.Op, cause error, key string) bool {
	t.Helper()
	if op == "" {
		if err != nil {
			t.Fatalf("%s: error %v, want none", call, err)
		}
		return false
	}
	var se *throttle.StoreError
	switch {
	case err == nil:
		t.Fatalf("%s: no error, want a %s error", call, op)
	case !errors.Is(err, cause):
		t.Fatalf("%s: error %v does not wrap %v", call, err, cause)
	case !errors.As(err, &se):
		t.Fatalf("%s: error %v is not a *StoreError", call, err)
	case se.Op != op || se.Key != key:
		t.Fatalf("%s: StoreError{Op: %q, Key: %q}, want {Op: %q, Key: %q}", call, se.Op, se.Key, op, key)
	}
	return true
}

// seq is a table row: a config and a sequence of steps on a fresh throttle.
type seq struct {
	clause string
	reason string
	cfg    throttle.Config
	steps  []step
}

// usesFaults reports whether the row sets fault rules.
func (r seq) usesFaults() bool {
	for _, s := range r.steps {
		if s.op == opSetFaults {
			return true
		}
	}
	return false
}

// runSeqs runs each row on three throttles: FaultStore(MemStore) (the seven
// operations), and, unless the row injects faults, a MemStore with k =
// threshold and one with k = threshold+3 (the fused paths). A threshold too
// large for a MemStore runs on FaultStore(refStore) only.
func runSeqs(t *testing.T, rows []seq) {
	t.Helper()
	for _, r := range rows {
		t.Run(r.clause, func(t *testing.T) {
			requireRow(t, r.clause, r.reason)
			t.Log(r.reason)
			k := r.cfg.Threshold
			if k > throttle.MaxStampsPerKey-3 {
				runOn(t, "faults over refStore", r, throttle.NewFaultStore(newRef()))
				return
			}
			runOn(t, "faults", r, throttle.NewFaultStore(newMem(t, k)))
			if !r.usesFaults() {
				runOn(t, "fused k=threshold", r, newMem(t, k))
				runOn(t, "fused k=threshold+3", r, newMem(t, k+3))
			}
		})
	}
}

// runOn runs the row's steps on a throttle over store.
func runOn(t *testing.T, name string, r seq, store throttle.Store) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		th, err := throttle.New(store, r.cfg)
		if err != nil {
			t.Fatalf("New(%+v) = %v", r.cfg, err)
		}
		fs, _ := store.(*throttle.FaultStore)
		for _, s := range r.steps {
			s.do(t, th, fs)
		}
	})
}

// requireRow fails t when a row lacks its clause or reason.
func requireRow(t *testing.T, clause, reason string) {
	t.Helper()
	if clause == "" || reason == "" {
		t.Fatalf("row %q/%q: every row needs a clause and a reason", clause, reason)
	}
}
