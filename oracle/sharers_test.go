package oracle

import (
	"fmt"
	"slices"
	"testing"

	"github.com/limcheck/limcheck/model/lim"
)

// TestSearchSharersIsTheNaiveSearch: the incremental search returns exactly
// what formatting and hashing every candidate returns (GATE-13's set of
// LIM-16's key), for slot counts small, odd, large and past the
// candidates.
func TestSearchSharersIsTheNaiveSearch(t *testing.T) {
	naive := func(ip string, slots int64, n int) []string {
		want := lim.IPKey(ip) % slots
		var out []string
		for i := 1; i < 1<<16 && len(out) < n; i++ {
			cand := fmt.Sprintf("10.0.%d.%d", i>>8, i&255)
			if cand != ip && lim.IPKey(cand)%slots == want {
				out = append(out, cand)
			}
		}
		return out
	}
	for _, slots := range []int64{1, 2, 3, 7, 64, 255, 256, 4095, 4096, 65537, 1 << 40, lim.KeyPrime} {
		for _, ip := range []string{"10.0.0.1", "10.0.1.0"} {
			for _, n := range []int{1, 8} {
				if got, want := searchSharers(ip, slots, n), naive(ip, slots, n); !slices.Equal(got, want) {
					t.Errorf("searchSharers(%q, %d, %d) = %q, want %q", ip, slots, n, got, want)
				}
			}
		}
	}
}
