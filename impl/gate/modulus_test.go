package gate

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestModulusEdges checks mod against % at the edges of hashes and
// divisors: 0, 1, powers of two and their neighbours, MaxWays, the largest
// 32-bit prime and 64-bit values, both ends of uint64.
func TestModulusEdges(t *testing.T) {
	var edges []uint64
	for s := 0; s < 64; s++ {
		p := uint64(1) << s
		edges = append(edges, p-1, p, p+1)
	}
	edges = append(edges, 3, 7, 1000, 8191, 8192*3, MaxWays, 4294967291, 4294967295,
		math.MaxUint64, math.MaxUint64-1, math.MaxUint64/3, 18446744073709551557, 0x93f5f5799a932462)
	for _, d := range edges {
		if d == 0 {
			continue
		}
		m := newModulus(d)
		for _, x := range edges {
			if got, want := m.mod(x), x%d; got != want {
				t.Errorf("newModulus(%d).mod(%d) = %d, want %d", d, x, got, want)
			}
		}
	}
}

// TestPropModulusEqualsRemainder checks that the division-free remainder
// equals x % d for every 64-bit hash and divisor, with divisors drawn both
// over the whole range and over the sets a gate can have.
func TestPropModulusEqualsRemainder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := rapid.Uint64().Draw(t, "x")
		d := rapid.OneOf(rapid.Uint64Range(1, math.MaxUint64), rapid.Uint64Range(1, MaxWays)).Draw(t, "d")
		if got, want := newModulus(d).mod(x), x%d; got != want {
			t.Fatalf("newModulus(%d).mod(%d) = %d, want %d", d, x, got, want)
		}
	})
}
