package throttle_test

import (
	"math"
	"math/big"
	"testing"

	"pgregory.net/rapid"

	"github.com/limcheck/limcheck/model/throttle"
)

// clockEdges are the uint64s next to where a 64-bit sum wraps or a narrower
// type would.
var clockEdges = []uint64{0, 1, 2, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64 - 1, math.MaxUint64}

// drawClock draws a uint64 biased to clockEdges and their neighbours.
func drawClock(t *rapid.T, label string) uint64 {
	return rapid.OneOf(
		rapid.Uint64(),
		rapid.SampledFrom(clockEdges),
		rapid.Custom(func(t *rapid.T) uint64 {
			return rapid.SampledFrom(clockEdges).Draw(t, "edge") - rapid.Uint64Range(0, 3).Draw(t, "below")
		}),
	).Draw(t, label)
}

// TestPropClockArithmeticIsExactOverUint64 states THR-3 and THR-4 against
// math/big: InWindow(t, window, now) is t + window > now in unbounded
// integers, and BanUntil(now, ban) is now + ban saturated at MaxUint64,
// over the whole uint64 domain, where a 64-bit sum wraps.
func TestPropClockArithmeticIsExactOverUint64(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b, now := drawClock(t, "a"), drawClock(t, "b"), drawClock(t, "now")
		sum := new(big.Int).Add(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b))
		if got, want := throttle.InWindow(a, b, now), sum.Cmp(new(big.Int).SetUint64(now)) > 0; got != want {
			t.Fatalf("InWindow(%d, %d, %d) = %v, want %v", a, b, now, got, want)
		}
		want := uint64(math.MaxUint64)
		if sum.IsUint64() {
			want = sum.Uint64()
		}
		if got := throttle.BanUntil(a, b); got != want {
			t.Fatalf("BanUntil(%d, %d) = %d, want %d", a, b, got, want)
		}
	})
}
