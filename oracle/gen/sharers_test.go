package gen

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/limcheck/limcheck/model/gate"
	"github.com/limcheck/limcheck/model/lim"
	"github.com/limcheck/limcheck/oracle"
)

// TestSetSharersIsTheNaiveSearch: the search over the precomputed hashes
// returns exactly what formatting and hashing every candidate returns
// (GATE-13's set of GATE-18's SipHash of LIM-16's key under the seed), for
// every seed the generator favours and set counts small, odd, large and
// past every hash; for another seed, the same over the first randomQuads
// candidates.
func TestSetSharersIsTheNaiveSearch(t *testing.T) {
	naive := func(seed gate.Seed, sets int64, candidates int) []string {
		set := func(ip string) uint64 { return gate.SipHash(seed, uint64(lim.IPKey(ip))) % uint64(sets) }
		var out []string
		for i := 1; i < candidates && len(out) < maxMates-1; i++ {
			cand := fmt.Sprintf("10.0.%d.%d", i>>8, i&255)
			if cand != mateIP && set(cand) == set(mateIP) {
				out = append(out, cand)
			}
		}
		return out
	}
	setCounts := []int64{1, 2, 3, 7, 64, 255, 256, 4095, 4096, 1<<16 - 1, 1 << 16, 65537, 1 << 18, 1<<32 - 6,
		lim.KeyPrime, 1 << 40, math.MaxInt64}
	other, _ := oracle.ParseSeed("0f1e2d3c4b5a69788796a5b4c3d2e1f0")
	seeds := []gate.Seed{other}
	for _, text := range gateSeeds {
		s, err := oracle.ParseSeed(text)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, s)
	}
	for _, seed := range seeds {
		_, cached := seedQuads(seed)
		candidates := 1 << 16
		if !cached {
			candidates = randomQuads
		}
		for _, sets := range setCounts {
			if got, want := setSharers(seed, sets), naive(seed, sets, candidates); !slices.Equal(got, want) {
				t.Errorf("setSharers(%s, %d) = %q, want %q", seed, sets, got, want)
			}
		}
	}
}

// TestSetSharersShareTheSetUnderTheSeed: with 64 sets every favoured seed
// finds maxMates-1 mates of mateIP, each in its set under that seed.
func TestSetSharersShareTheSetUnderTheSeed(t *testing.T) {
	for _, text := range gateSeeds {
		seed, _ := oracle.ParseSeed(text)
		g, err := gate.New(gate.Config{Lim: lim.NewConfig(1, 1, 1, 1), Sets: 64, Ways: 1, TickNanos: 1, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		got := setSharers(seed, 64)
		if len(got) != maxMates-1 {
			t.Errorf("setSharers(%s, 64) = %q, want %d mates", text, got, maxMates-1)
		}
		for _, ip := range got {
			if g.SetOf(ip) != g.SetOf(mateIP) {
				t.Errorf("under seed %s, %s is in set %d, %s in %d", text, ip, g.SetOf(ip), mateIP, g.SetOf(mateIP))
			}
		}
	}
}
