package throttle_test

import (
	"errors"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/limcheck/limcheck/impl/throttle"
)

// propKeys is the key pool: few keys, so that sequences collide on them.
var propKeys = []string{"", "a", "b", "ip:10.0.0.1", "\xff\xfe"}

// genConfig draws a config with small thresholds and windows and bans that
// are small or near MaxUint64.
func genConfig(t *rapid.T) throttle.Config {
	big := rapid.SampledFrom([]uint64{maxU, maxU - 1, maxU / 2})
	return throttle.Config{
		Threshold:  rapid.Uint64Range(1, 4).Draw(t, "threshold"),
		WindowSecs: rapid.OneOf(rapid.Uint64Range(1, 20), big).Draw(t, "window"),
		BanSecs:    rapid.OneOf(rapid.Uint64Range(1, 20), big).Draw(t, "ban"),
	}
}

// genNow draws a time: mostly a small walk that may step back, sometimes
// near 0 or MaxUint64.
func genNow(t *rapid.T) uint64 {
	return rapid.OneOf(rapid.Uint64Range(1000, 1040), rapid.Uint64Range(0, 3),
		rapid.Uint64Range(maxU-30, maxU)).Draw(t, "now")
}

// genStep draws one throttle step; withFaults adds SetFaults steps.
func genStep(t *rapid.T, withFaults bool) step {
	ops := []kind{opCheck, opCheckAny, opRecordFailure, opRecordFailure, opRecordFailure, opRecordSuccess, opReset, opPurgeExpired}
	if withFaults {
		ops = append(ops, opSetFaults)
	}
	s := step{op: rapid.SampledFrom(ops).Draw(t, "op"), key: rapid.SampledFrom(propKeys).Draw(t, "key")}
	switch s.op {
	case opCheckAny:
		s.keys = rapid.SliceOfN(rapid.SampledFrom(propKeys), 0, 4).Draw(t, "keys")
	case opSetFaults:
		s.faults = rapid.SliceOfN(genFault(), 0, 2).Draw(t, "faults")
	}
	s.at = genNow(t)
	return s
}

// genFault draws a fault rule on the pool's keys.
func genFault() *rapid.Generator[throttle.Fault] {
	ops := []throttle.Op{throttle.OpBanUntil, throttle.OpCount, throttle.OpAddFailure, throttle.OpBan,
		throttle.OpClearFailures, throttle.OpClear, throttle.OpPurge}
	return rapid.Custom(func(t *rapid.T) throttle.Fault {
		return throttle.Fault{
			Op:   rapid.SampledFrom(ops).Draw(t, "fault_op"),
			Keys: rapid.SliceOfN(rapid.SampledFrom(propKeys), 0, 2).Draw(t, "fault_keys"),
		}
	})
}

// outcome is everything a step returns, errors rendered.
type outcome struct {
	d   throttle.Decision
	n   uint64
	err string
}

func runStep(s step, th *throttle.Throttle, fs *throttle.FaultStore) outcome {
	d, n, err := s.run(th, fs)
	o := outcome{d: d, n: n}
	if err != nil {
		o.err = err.Error()
	}
	return o
}

// TestPropMatchesExactStore (PROP-17, PROP-20) runs random sequences on a
// throttle over the exact refStore and on throttles over MemStores keeping
// k = threshold stamps: directly (fused paths), and under FaultStore with
// random fault rules (the seven operations). Every result must be equal.
func TestPropMatchesExactStore(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genConfig(t)
		shards := rapid.SampledFrom([]int{1, 64}).Draw(t, "shards")
		mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: c.Threshold, Shards: shards})
		if err != nil {
			t.Fatal(err)
		}
		mem2, _ := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: c.Threshold, Shards: shards})
		refFS, memFS := throttle.NewFaultStore(newRef()), throttle.NewFaultStore(mem2)
		ref, fused := mustNew(t, newRef(), c), mustNew(t, mem, c)
		refF, memF := mustNew(t, refFS, c), mustNew(t, memFS, c)
		for i := range rapid.IntRange(1, 60).Draw(t, "steps") {
			s := genStep(t, true)
			if s.op != opSetFaults {
				compare(t, i, s, runStep(s, ref, nil), runStep(s, fused, nil), "fused MemStore")
			}
			compare(t, i, s, runStep(s, refF, refFS), runStep(s, memF, memFS), "FaultStore(MemStore)")
		}
	})
}

func mustNew(t *rapid.T, s throttle.Store, c throttle.Config) *throttle.Throttle {
	th, err := throttle.New(s, c)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return th
}

// compare fails t when the two outcomes of step i differ.
func compare(t *rapid.T, i int, s step, want, got outcome, name string) {
	if want != got {
		t.Fatalf("step %d %s on %s: got %+v, exact store %+v", i, s.call(), name, got, want)
	}
}

// TestPropStoreOps (PROP-17) compares MemStore's seven operations with the
// exact store's on random sequences: counts equal min(exact, k), everything
// else equal, and Tracked equal to the exact store's tracked keys.
func TestPropStoreOps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.Uint64Range(1, 4).Draw(t, "k")
		mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: k, Shards: 2})
		if err != nil {
			t.Fatal(err)
		}
		ref := newRef()
		for i := range rapid.IntRange(1, 80).Draw(t, "steps") {
			op, key, now := rapid.IntRange(0, 6).Draw(t, "op"), rapid.SampledFrom(propKeys).Draw(t, "key"), genNow(t)
			window := rapid.OneOf(rapid.Uint64Range(1, 20), rapid.Just(maxU)).Draw(t, "window")
			want, got := storeOp(ref, op, key, now, window), storeOp(mem, op, key, now, window)
			if op == 1 || op == 2 {
				want = min(want, k)
			}
			if want != got || ref.tracked() != mem.Tracked() {
				t.Fatalf("step %d: op %d(%q, %d, %d) = %d (tracked %d), exact %d (tracked %d)", i, op, key, now, window, got, mem.Tracked(), want, ref.tracked())
			}
		}
	})
}

// storeOp runs store operation op and returns its number (0 for none).
func storeOp(s throttle.Store, op int, key string, now, window uint64) uint64 {
	var n uint64
	var err error
	switch op {
	case 0:
		n, err = s.BanUntil(key)
	case 1:
		n, err = s.Count(key, now, window)
	case 2:
		n, err = s.AddFailure(key, now, window)
	case 3:
		n, err = s.Ban(key, now%3*now) // sometimes 0
	case 4:
		err = s.ClearFailures(key)
	case 5:
		err = s.Clear(key)
	case 6:
		n, err = s.Purge(now, window)
	}
	if err != nil {
		panic(fmt.Sprintf("store op %d: %v", op, err))
	}
	return n
}

// TestPropFusedEqualsSevenOps checks FailAndBan and CheckState against the
// two-operation sequences they replace, on twin stores.
func TestPropFusedEqualsSevenOps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, _ := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 3})
		b, _ := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 3})
		for range rapid.IntRange(1, 40).Draw(t, "steps") {
			key, now := rapid.SampledFrom(propKeys).Draw(t, "key"), genNow(t)
			until := rapid.Uint64Range(0, 1100).Draw(t, "until")
			n1, u1, err1 := a.FailAndBan(key, now, 10, 2, until)
			n2, err2 := b.AddFailure(key, now, 10)
			u2, _ := b.BanUntil(key)
			if n2 >= 2 {
				u2, _ = b.Ban(key, until)
			}
			bu, bn, _ := a.CheckState(key, now, 10)
			cu, _ := b.BanUntil(key)
			cn, _ := b.Count(key, now, 10)
			if n1 != n2 || u1 != u2 || !errors.Is(err1, err2) || bu != cu || bn != cn {
				t.Fatalf("fused (%d %d %v | %d %d) != seven ops (%d %d %v | %d %d)", n1, u1, err1, bu, bn, n2, u2, err2, cu, cn)
			}
		}
	})
}
