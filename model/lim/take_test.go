package lim_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/limcheck/limcheck/model/lim"
)

const (
	pow62 int64 = 1 << 62
	// third is (2^64 - 1) / 3, so third * 3 = 2^64 - 1.
	third int64 = 6148914691236517205
)

// takeTests are single calls of lim.Take.
var takeTests = []struct {
	clause, reason string
	b              lim.Bucket
	c              lim.Config
	now, cost      int64
	want           lim.TakeResult
}{
	// LIM-1: each of these would give another result if an intermediate value wrapped in int64.
	{clause: "LIM-1", reason: "now - last = 2^64-1 (wraps to -1): 2^64-1 steps, refilled to cap",
		b: bkt(0, minI), c: cfg(5, 1, 1), now: maxI, cost: 1, want: res(1, 0, 4, maxI)},
	{clause: "LIM-1", reason: "now - last = -(2^64-1) (wraps to 1): a step back, no step",
		b: bkt(0, maxI), c: cfg(5, 1, 1), now: minI, cost: 1, want: res(0, 1, 0, maxI)},
	{clause: "LIM-1", reason: "steps * refil = 2 * MaxInt64 (wraps to -2): clamped to cap, not spent below 0",
		b: bkt(1, 0), c: cfg(maxI, maxI, 10), now: 20, cost: maxI, want: res(1, 0, 0, 20)},
	{clause: "LIM-1", reason: "steps * ivl = 2 * MaxInt64 overflows; last' = MinInt64 + 2*MaxInt64 = MaxInt64 - 1",
		b: bkt(0, minI), c: cfg(5, 1, maxI), now: maxI, cost: 1, want: res(1, 0, 1, maxI-1)},
	{clause: "LIM-1", reason: "(cost - tks') * ivl = 2 * MaxInt64 (wraps to -2); retry = 2*MaxInt64/2 fits",
		b: bkt(0, 0), c: cfg(1, 2, 2), now: 0, cost: maxI, want: res(0, maxI, 0, 0)},
	{clause: "LIM-1", reason: "(cost - tks') * ivl = 2^64 (wraps to 0); retry = ceil(2^64 / 3) fits",
		b: bkt(0, 0), c: cfg(1, 3, 4), now: 0, cost: pow62, want: res(0, 6148914691236517206, 0, 0)},

	// LIM-7: out of contract, the bucket comes back unchanged with ok 0, retry 0.
	{clause: "LIM-7", reason: "lim_cfg with cap 0 is invalid: no refill, no spend",
		b: bkt(5, 3), c: lim.NewConfig(0, 1, 1, 1), now: 100, cost: 1, want: res(0, 0, 5, 3)},
	{clause: "LIM-7", reason: "lim_cfg with maxif -1 is invalid, though take does not use maxif",
		b: bkt(5, 3), c: lim.NewConfig(5, 1, 1, -1), now: 100, cost: 1, want: res(0, 0, 5, 3)},
	{clause: "LIM-7", reason: "ok 1 but cap 0 (hand-built) is invalid (LIM-4)",
		b: bkt(5, 3), c: lim.Config{OK: 1, Err: 0, Cap: 0, Refil: 1, Ivl: 1, Maxif: 1}, now: 100, cost: 1, want: res(0, 0, 5, 3)},
	{clause: "LIM-7", reason: "ok 1 but refil 0: no division by zero in retry",
		b: bkt(0, 0), c: lim.Config{OK: 1, Err: 0, Cap: 5, Refil: 0, Ivl: 1, Maxif: 1}, now: 0, cost: 1, want: res(0, 0, 0, 0)},
	{clause: "LIM-7", reason: "ok 1 but ivl 0: no division by zero in steps",
		b: bkt(0, 0), c: lim.Config{OK: 1, Err: 0, Cap: 5, Refil: 1, Ivl: 0, Maxif: 1}, now: 100, cost: 1, want: res(0, 0, 0, 0)},
	{clause: "LIM-7", reason: "ok 1 but ivl -1: no step backwards",
		b: bkt(0, 0), c: lim.Config{OK: 1, Err: 0, Cap: 5, Refil: 1, Ivl: -1, Maxif: 1}, now: 100, cost: 1, want: res(0, 0, 0, 0)},
	{clause: "LIM-7", reason: "ok 1 but maxif 0",
		b: bkt(5, 3), c: lim.Config{OK: 1, Err: 0, Cap: 5, Refil: 1, Ivl: 1, Maxif: 0}, now: 100, cost: 1, want: res(0, 0, 5, 3)},
	{clause: "LIM-7", reason: "ok 1 with err 1",
		b: bkt(5, 3), c: lim.Config{OK: 1, Err: 1, Cap: 5, Refil: 1, Ivl: 1, Maxif: 1}, now: 100, cost: 1, want: res(0, 0, 5, 3)},
	{clause: "LIM-7", reason: "ok 0 with every parameter >= 1",
		b: bkt(5, 3), c: lim.Config{OK: 0, Err: 0, Cap: 5, Refil: 1, Ivl: 1, Maxif: 1}, now: 100, cost: 1, want: res(0, 0, 5, 3)},
	{clause: "LIM-7", reason: "ok 2 is not ok 1",
		b: bkt(5, 3), c: lim.Config{OK: 2, Err: 0, Cap: 5, Refil: 1, Ivl: 1, Maxif: 1}, now: 100, cost: 1, want: res(0, 0, 5, 3)},
	{clause: "LIM-7", reason: "the zero Config is invalid",
		b: bkt(5, 3), c: lim.Config{}, now: 100, cost: 1, want: res(0, 0, 5, 3)},
	{clause: "LIM-7", reason: "cost 0: out of contract, not even a refill",
		b: bkt(0, 0), c: cfg(5, 1, 1), now: 100, cost: 0, want: res(0, 0, 0, 0)},
	{clause: "LIM-7", reason: "cost -1",
		b: bkt(2, 0), c: cfg(5, 1, 1), now: 100, cost: -1, want: res(0, 0, 2, 0)},
	{clause: "LIM-7", reason: "cost MinInt64 (negating it would wrap)",
		b: bkt(2, 0), c: cfg(5, 1, 1), now: 100, cost: minI, want: res(0, 0, 2, 0)},
	{clause: "LIM-7", reason: "tks -1",
		b: bkt(-1, 0), c: cfg(5, 1, 1), now: 100, cost: 1, want: res(0, 0, -1, 0)},
	{clause: "LIM-7", reason: "tks MinInt64 on a step back from MaxInt64 to MinInt64",
		b: bkt(minI, maxI), c: cfg(5, 1, 1), now: minI, cost: 1, want: res(0, 0, minI, maxI)},
	{clause: "LIM-7", reason: "every input out of contract, at the extremes",
		b: bkt(minI, minI), c: lim.Config{OK: minI, Err: minI, Cap: minI, Refil: minI, Ivl: minI, Maxif: minI}, now: maxI, cost: minI, want: res(0, 0, minI, minI)},

	// LIM-8: now < last.
	{clause: "LIM-8", reason: "step back: no refill, last kept, tokens still spent",
		b: bkt(3, 100), c: cfg(5, 1, 10), now: 50, cost: 1, want: res(1, 0, 2, 100)},
	{clause: "LIM-8", reason: "step back by one tick rejects; retry by LIM-12 ignores the step back",
		b: bkt(0, 100), c: cfg(5, 1, 10), now: 99, cost: 1, want: res(0, 10, 0, 100)},
	{clause: "LIM-8", reason: "step back to MinInt64",
		b: bkt(2, 0), c: cfg(5, 1, 10), now: minI, cost: 2, want: res(1, 0, 0, 0)},

	// LIM-9: now >= last, whole steps, remainder kept.
	{clause: "LIM-9", reason: "25 ticks = 2 whole steps; the remainder 5 is kept (last' = 20)",
		b: bkt(0, 0), c: cfg(10, 1, 10), now: 25, cost: 1, want: res(1, 0, 1, 20)},
	{clause: "LIM-9", reason: "an exact multiple of ivl: last' = now",
		b: bkt(0, 0), c: cfg(10, 1, 10), now: 20, cost: 1, want: res(1, 0, 1, 20)},
	{clause: "LIM-9", reason: "9 ticks: no whole step, nothing granted",
		b: bkt(0, 0), c: cfg(10, 1, 10), now: 9, cost: 1, want: res(0, 10, 0, 0)},
	{clause: "LIM-9", reason: "now = last: no step",
		b: bkt(0, 7), c: cfg(10, 1, 10), now: 7, cost: 1, want: res(0, 10, 0, 7)},
	{clause: "LIM-9", reason: "ivl 1: every tick is a step",
		b: bkt(0, 0), c: cfg(10, 1, 1), now: 7, cost: 1, want: res(1, 0, 6, 7)},
	{clause: "LIM-9", reason: "ivl MaxInt64: one step from 0 to MaxInt64",
		b: bkt(0, 0), c: cfg(5, 1, maxI), now: maxI, cost: 1, want: res(1, 0, 0, maxI)},
	{clause: "LIM-9", reason: "ivl MaxInt64: one tick short of a step",
		b: bkt(0, 0), c: cfg(5, 1, maxI), now: maxI - 1, cost: 1, want: res(0, maxI, 0, 0)},
	{clause: "LIM-9", reason: "negative ticks: -30 to -5 is 2 steps, last' = -10",
		b: bkt(0, -30), c: cfg(10, 1, 10), now: -5, cost: 1, want: res(1, 0, 1, -10)},
	{clause: "LIM-9", reason: "across zero: -15 to 6 is 2 steps, last' = 5",
		b: bkt(0, -15), c: cfg(10, 1, 10), now: 6, cost: 1, want: res(1, 0, 1, 5)},

	// LIM-10: tks' = min(cap, tks + steps*refil).
	{clause: "LIM-10", reason: "tks above cap is clamped even with no step",
		b: bkt(10, 0), c: cfg(3, 1, 10), now: 5, cost: 1, want: res(1, 0, 2, 0)},
	{clause: "LIM-10", reason: "the clamp also holds on a reject",
		b: bkt(10, 0), c: cfg(3, 1, 10), now: 5, cost: 5, want: res(0, 20, 3, 0)},
	{clause: "LIM-10", reason: "refill stops at cap: 8 + 3 > 10",
		b: bkt(8, 0), c: cfg(10, 3, 10), now: 10, cost: 10, want: res(1, 0, 0, 10)},
	{clause: "LIM-10", reason: "partial refill: 1 + 2*3 = 7",
		b: bkt(1, 0), c: cfg(10, 3, 10), now: 20, cost: 7, want: res(1, 0, 0, 20)},
	{clause: "LIM-10", reason: "tks MaxInt64 plus (2^64-1) * MaxInt64 clamps to cap MaxInt64",
		b: bkt(maxI, minI), c: cfg(maxI, maxI, 1), now: maxI, cost: 1, want: res(1, 0, maxI-1, maxI)},
	{clause: "LIM-10", reason: "tks MaxInt64 with cap 1 and no step",
		b: bkt(maxI, 0), c: cfg(1, 1, 1), now: 0, cost: 1, want: res(1, 0, 0, 0)},
	{clause: "LIM-10", reason: "refil MaxInt64, one step, cap 5",
		b: bkt(0, 0), c: cfg(5, maxI, 1), now: 1, cost: 5, want: res(1, 0, 0, 1)},

	// LIM-11: a pass.
	{clause: "LIM-11", reason: "exactly cost tokens: pass with 0 left",
		b: bkt(3, 0), c: cfg(3, 1, 10), now: 0, cost: 3, want: res(1, 0, 0, 0)},
	{clause: "LIM-11", reason: "cost MaxInt64 from a full MaxInt64 bucket",
		b: bkt(maxI, 0), c: cfg(maxI, 1, 1), now: 0, cost: maxI, want: res(1, 0, 0, 0)},
	{clause: "LIM-11", reason: "cost 1 from MaxInt64",
		b: bkt(maxI, 0), c: cfg(maxI, 1, 1), now: 0, cost: 1, want: res(1, 0, maxI-1, 0)},
	{clause: "LIM-11", reason: "a pass keeps the step it refilled",
		b: bkt(0, 0), c: cfg(4, 2, 10), now: 19, cost: 2, want: res(1, 0, 0, 10)},

	// LIM-12: a reject.
	{clause: "LIM-12", reason: "exact multiple: ceil(2*10/4) = 5, not trunc + 1 = 6",
		b: bkt(1, 0), c: cfg(4, 4, 10), now: 0, cost: 3, want: res(0, 5, 1, 0)},
	{clause: "LIM-12", reason: "non-multiple rounds up: ceil(3*10/4) = 8",
		b: bkt(0, 0), c: cfg(4, 4, 10), now: 0, cost: 3, want: res(0, 8, 0, 0)},
	{clause: "LIM-12", reason: "refill is kept on a reject: tks' = 2, last' = 20",
		b: bkt(0, 0), c: cfg(10, 1, 10), now: 25, cost: 5, want: res(0, 30, 2, 20)},
	{clause: "LIM-12", reason: "retry below one step when refil is large: ceil(1*10/20) = 1",
		b: bkt(0, 0), c: cfg(20, 20, 10), now: 0, cost: 1, want: res(0, 1, 0, 0)},
	{clause: "LIM-12", reason: "refil MaxInt64, ivl 1: ceil(1/MaxInt64) = 1",
		b: bkt(0, 0), c: cfg(maxI, maxI, 1), now: 0, cost: 1, want: res(0, 1, 0, 0)},
	{clause: "LIM-12", reason: "cost > cap is an ordinary reject (FIND-4)",
		b: bkt(2, 0), c: cfg(2, 1, 10), now: 0, cost: 3, want: res(0, 10, 2, 0)},
	{clause: "LIM-12", reason: "cost MaxInt64 > cap 1: retry MaxInt64 - 1",
		b: bkt(1, 0), c: cfg(1, 1, 1), now: 0, cost: maxI, want: res(0, maxI-1, 1, 0)},

	// LIM-13: retry saturates at MaxInt64.
	{clause: "LIM-13", reason: "MaxInt64 * MaxInt64 / 1 saturates",
		b: bkt(0, 0), c: cfg(maxI, 1, maxI), now: 0, cost: maxI, want: res(0, maxI, 0, 0)},
	{clause: "LIM-13", reason: "exactly MaxInt64 is reported as is",
		b: bkt(0, 0), c: cfg(1, 1, 1), now: 0, cost: maxI, want: res(0, maxI, 0, 0)},
	{clause: "LIM-13", reason: "2 * MaxInt64 / 1 saturates",
		b: bkt(0, 0), c: cfg(1, 1, 2), now: 0, cost: maxI, want: res(0, maxI, 0, 0)},
	{clause: "LIM-13", reason: "2^62 * 2 / 1 = 2^63, one over MaxInt64, saturates",
		b: bkt(0, 0), c: cfg(1, 1, 2), now: 0, cost: pow62, want: res(0, maxI, 0, 0)},
	{clause: "LIM-13", reason: "ceil((2^64-1) / 2) = 2^63 saturates (the truncation would fit)",
		b: bkt(0, 0), c: cfg(1, 2, 3), now: 0, cost: third, want: res(0, maxI, 0, 0)},
}

func TestTake(t *testing.T) {
	for i, tt := range takeTests {
		checkRow(t, i, tt.clause, tt.reason)
		got := lim.Take(tt.b, tt.c, tt.now, tt.cost)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (%s): Take(%s, %s, %d, %d) = %s, want %s (-want +got):\n%s",
				tt.clause, tt.reason, fmtBkt(tt.b), fmtCfg(tt.c), tt.now, tt.cost, fmtTake(got), fmtTake(tt.want), diff)
		}
	}
}

type takeStep struct {
	clause, reason string
	at             int // t0..t9, an index into the table's ticks
	cost           int64
	want           lim.TakeResult
}

// runSteps takes each step in turn on the bucket the step before left.
func runSteps(t *testing.T, c lim.Config, b lim.Bucket, ticks []int64, steps []takeStep) {
	t.Helper()
	for i, s := range steps {
		checkRow(t, i, s.clause, s.reason)
		now := ticks[s.at]
		got := lim.Take(b, c, now, s.cost)
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Fatalf("step %d, %s (%s): Take(%s, %s, t%d=%d, %d) = %s, want %s (-want +got):\n%s",
				i, s.clause, s.reason, fmtBkt(b), fmtCfg(c), s.at, now, s.cost, fmtTake(got), fmtTake(s.want), diff)
		}
		b = got.Bucket()
	}
}

// TestTakeSteps walks one bucket through whole steps, remainders and a step back.
func TestTakeSteps(t *testing.T) {
	ticks := []int64{t0: 0, t1: 9, t2: 10, t3: 25, t4: 29, t5: 30, t6: 15, t7: 40, t8: 60}
	runSteps(t, cfg(3, 1, 10), lim.NewBucket(3, ticks[t0]), ticks, []takeStep{
		{clause: "LIM-11", reason: "born full: spend all 3", at: t0, cost: 3, want: res(1, 0, 0, 0)},
		{clause: "LIM-9", reason: "9 ticks are no whole step", at: t1, cost: 1, want: res(0, 10, 0, 0)},
		{clause: "LIM-9", reason: "the step completes at 10", at: t2, cost: 1, want: res(1, 0, 0, 10)},
		{clause: "LIM-9", reason: "15 ticks: one step, last' = 20, the 5 kept", at: t3, cost: 1, want: res(1, 0, 0, 20)},
		{clause: "LIM-12", reason: "9 ticks after 20: reject, retry one step", at: t4, cost: 1, want: res(0, 10, 0, 20)},
		{clause: "LIM-9", reason: "the kept remainder completes the step at 30", at: t5, cost: 1, want: res(1, 0, 0, 30)},
		{clause: "LIM-8", reason: "the clock steps back to 15: no step, last stays 30", at: t6, cost: 1, want: res(0, 10, 0, 30)},
		{clause: "LIM-12", reason: "one step to 40, still short of 2: refill kept", at: t7, cost: 2, want: res(0, 10, 1, 40)},
		{clause: "LIM-10", reason: "two steps would give 3, exactly cap", at: t8, cost: 3, want: res(1, 0, 0, 60)},
	})
}

// TestTakeStepsLoweredCap takes from a bucket fuller than a lowered cap.
func TestTakeStepsLoweredCap(t *testing.T) {
	ticks := []int64{t0: -5, t1: 0, t2: 35}
	runSteps(t, cfg(3, 1, 10), bkt(10, 0), ticks, []takeStep{
		{clause: "LIM-10", reason: "clamped to 3 on a step back, then spent (FIND-11)", at: t0, cost: 1, want: res(1, 0, 2, 0)},
		{clause: "LIM-11", reason: "the 2 left are spent", at: t1, cost: 2, want: res(1, 0, 0, 0)},
		{clause: "LIM-10", reason: "3 steps give 3, exactly the new cap", at: t2, cost: 3, want: res(1, 0, 0, 30)},
	})
}

// TestTakeStepsTopOfTime runs a bucket up to MaxInt64 and steps back to MinInt64.
func TestTakeStepsTopOfTime(t *testing.T) {
	ticks := []int64{t0: maxI - 3, t1: maxI - 2, t2: maxI, t3: minI}
	runSteps(t, cfg(2, 1, 1), lim.NewBucket(2, ticks[t0]), ticks, []takeStep{
		{clause: "LIM-11", reason: "spend the full bucket", at: t0, cost: 2, want: res(1, 0, 0, maxI-3)},
		{clause: "LIM-12", reason: "one step gives 1 of 2", at: t1, cost: 2, want: res(0, 1, 1, maxI-2)},
		{clause: "LIM-1", reason: "two steps to MaxInt64, refilled to cap", at: t2, cost: 2, want: res(1, 0, 0, maxI)},
		{clause: "LIM-1", reason: "MinInt64 - MaxInt64 is a step back, not one tick forward", at: t3, cost: 1, want: res(0, 1, 0, maxI)},
	})
}

// TestTakeStepsBottomOfTime uses ivl = MaxInt64 from last = MinInt64.
func TestTakeStepsBottomOfTime(t *testing.T) {
	ticks := []int64{t0: minI, t1: -2, t2: -1, t3: maxI}
	runSteps(t, cfg(1, 1, maxI), lim.NewBucket(1, ticks[t0]), ticks, []takeStep{
		{clause: "LIM-11", reason: "spend the one token", at: t0, cost: 1, want: res(1, 0, 0, minI)},
		{clause: "LIM-9", reason: "2^63 - 2 ticks: no whole step of 2^63 - 1", at: t1, cost: 1, want: res(0, maxI, 0, minI)},
		{clause: "LIM-9", reason: "2^63 - 1 ticks: exactly one step, last' = -1", at: t2, cost: 1, want: res(1, 0, 0, -1)},
		{clause: "LIM-1", reason: "now - last = 2^63 does not fit in int64: one step, last' = MaxInt64 - 1", at: t3, cost: 1, want: res(1, 0, 0, maxI-1)},
	})
}
