package oracle

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/limcheck/limcheck/model/lim"
)

// TestSearchSharersIsTheNaiveSearch: the search over the precomputed keys
// returns exactly what formatting and hashing every candidate returns
// (GATE-13's set of LIM-16's key), for slot counts small, odd, large, past
// the candidates, on both sides of where it switches from a scan to
// lookups, and past every key; for an address among the candidates too.
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
	slotCounts := []int64{1, 2, 3, 7, 64, 255, 256, 4095, 4096, 1<<16 - 1, 1 << 16, 65537, 1 << 18, 1<<20 - 3, 1 << 20,
		1<<21 + 1, 1<<24 - 1, 1 << 31, 1<<32 - 6, lim.KeyPrime - 1, lim.KeyPrime, lim.KeyPrime + 1, 1 << 32, 1 << 40, math.MaxInt64}
	for _, j := range []string{"10.0.0.2", "10.0.1.44", "10.0.255.255"} { // a slot count that makes j a sharer of 10.0.0.1
		if d := lim.IPKey(j) - lim.IPKey("10.0.0.1"); d > 1 || d < -1 {
			slotCounts = append(slotCounts, max(d, -d))
		}
	}
	for _, slots := range slotCounts {
		for _, ip := range []string{"10.0.0.1", "10.0.1.0", "10.0.200.7", "192.168.0.1"} {
			for _, n := range []int{1, 4, 8} {
				if got, want := searchSharers(ip, slots, n), naive(ip, slots, n); !slices.Equal(got, want) {
					t.Errorf("searchSharers(%q, %d, %d) = %q, want %q", ip, slots, n, got, want)
				}
			}
		}
	}
}
