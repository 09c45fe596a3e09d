package gate

import (
	"math"
	"testing"

	"github.com/limcheck/limcheck/impl/lim"
	"pgregory.net/rapid"
)

// takeFull is GATE-14's full test by the take alone: the refill of b at now
// reaches cap.
func takeFull(c lim.Config, b lim.Bucket, now int64) bool {
	r := c.Take(b, now, 1)
	return r.OK == 1 && r.Tks == c.Cap()-1
}

// TestFillAfterEdges pins fillAfter, the ticks from 0 tokens to cap minus
// one, where ceil(cap / refil) rounds up and where steps * ivl overflows.
func TestFillAfterEdges(t *testing.T) {
	cases := []struct {
		cap, refil, ivl int64
		want            uint64
		reason          string
	}{
		{1, 1, 1, 0, "one step of one tick: full once 1 tick has passed"},
		{10, 3, 5, 19, "ceil(10/3) = 4 steps of 5 ticks = 20 ticks"},
		{9, 3, 5, 14, "3 steps exactly: no rounding up"},
		{10, 100, 7, 6, "a refil above cap: one step"},
		{math.MaxInt64, 1, 1, math.MaxInt64 - 1, "2^63 - 1 steps of one tick"},
		{math.MaxInt64, 1, 2, 1<<64 - 3, "2^63 - 1 steps of 2 ticks still fit 64 bits"},
		{math.MaxInt64, 1, 3, math.MaxUint64, "2^63 - 1 steps of 3 ticks overflow: saturated, the cheap test never decides"},
		{math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64 - 1, "one step of the longest interval"},
	}
	for _, c := range cases {
		if got := fillAfter(lim.NewConfig(c.cap, c.refil, c.ivl, 1)); got != c.want {
			t.Errorf("fillAfter(cap %d, refil %d, ivl %d) = %d, want %d (%s)", c.cap, c.refil, c.ivl, got, c.want, c.reason)
		}
	}
}

// TestPropSurelyFullImpliesFull checks that the cheap full test is sound and
// tight: whenever surelyFull(b, now) holds, the take finds b full at now
// (GATE-14); and a bucket of 0 tokens fillAfter ticks after its last is not
// yet full while one tick later it is, so the bound is the least one.
func TestPropSurelyFullImpliesFull(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		edge := []int64{1, 2, 3, 5, 7, 1000, 1<<31 - 1, 1 << 31, math.MaxInt64}
		c := lim.NewConfig(rapid.SampledFrom(edge).Draw(t, "cap"), rapid.SampledFrom(edge).Draw(t, "refil"),
			rapid.SampledFrom(edge).Draw(t, "ivl"), 1)
		g := &Gate{lim: c, cap: c.Cap(), fillAfter: fillAfter(c)}
		b := lim.Bucket{Tks: rapid.Int64Range(0, c.Cap()-1).Draw(t, "tks"), Last: rapid.SampledFrom([]int64{math.MinInt64, -1, 0, 1, math.MaxInt64 - 1}).Draw(t, "last")}
		var now int64
		if rapid.Bool().Draw(t, "near the bound") && g.fillAfter < math.MaxUint64 {
			d := g.fillAfter + uint64(rapid.IntRange(-2, 2).Draw(t, "off"))
			now = int64(uint64(b.Last) + d) // may wrap: then now < last, a step back
		} else {
			now = rapid.Int64().Draw(t, "now")
		}
		if g.surelyFull(b, now) && !takeFull(c, b, now) {
			t.Fatalf("surelyFull(%+v, %d) = true under cap %d refil %d ivl %d, but the take finds it not full", b, now, c.Cap(), c.Refil(), c.Ivl())
		}
		if g.full(b, now) != takeFull(c, b, now) {
			t.Fatalf("full(%+v, %d) = %v, want %v (the take's)", b, now, g.full(b, now), takeFull(c, b, now))
		}
		empty := lim.Bucket{Last: b.Last}
		if g.fillAfter < math.MaxUint64 && uint64(math.MaxInt64-b.Last) > g.fillAfter {
			at := int64(uint64(b.Last) + g.fillAfter)
			if takeFull(c, empty, at) || g.surelyFull(empty, at) {
				t.Fatalf("an empty bucket (last %d) is full at %d, fillAfter %d ticks later: the bound is not the least", b.Last, at, g.fillAfter)
			}
			if !g.surelyFull(empty, at+1) || !takeFull(c, empty, at+1) {
				t.Fatalf("an empty bucket (last %d) is not surely full at %d, fillAfter+1 ticks later", b.Last, at+1)
			}
		}
	})
}
