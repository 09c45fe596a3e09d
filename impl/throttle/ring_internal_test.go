package throttle

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestPropStampsAreTheKLargest checks addStamp and inWindow against a plain
// model: after any sequence of stamps (steps back and ties included), the
// kept stamps are the k largest of all added, in descending order, and
// inWindow counts exactly those kept stamps t with t + window > now.
func TestPropStampsAreTheKLargest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(1, 7).Draw(t, "k")
		st, n := make([]uint64, k), 0
		var all []uint64
		for _, v := range rapid.SliceOf(rapid.Uint64Range(0, 12)).Draw(t, "stamps") {
			n = addStamp(st, n, v)
			all = append(all, v)
			want := slices.Clone(all)
			slices.Sort(want)
			slices.Reverse(want)
			want = want[:min(k, len(want))]
			if !slices.Equal(st[:n], want) {
				t.Fatalf("after %v: kept %v, want the %d largest %v", all, st[:n], k, want)
			}
		}
		now := rapid.Uint64Range(0, 20).Draw(t, "now")
		window := rapid.Uint64Range(1, 20).Draw(t, "window")
		c := 0
		for _, v := range st[:n] {
			if v+window > now {
				c++
			}
		}
		if got := inWindow(st, n, now, window); got != c {
			t.Fatalf("inWindow(%v, now %d, window %d) = %d, want %d", st[:n], now, window, got, c)
		}
	})
}
