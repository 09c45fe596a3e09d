package gate

import (
	"testing"

	"pgregory.net/rapid"
)

// TestModulusEdges checks mod against % at the edges of keys and divisors.
func TestModulusEdges(t *testing.T) {
	keys := []uint64{0, 1, 2, 63, 64, 65, 1<<31 - 1, 1 << 31, 4294967290, 1<<32 - 1}
	divs := []uint64{1, 2, 3, 7, 64, 1000, 1<<28 - 1, MaxWays, 4294967291, 1<<32 - 1}
	for _, d := range divs {
		m := newModulus(d)
		for _, x := range keys {
			if got, want := m.mod(x), x%d; got != want {
				t.Errorf("newModulus(%d).mod(%d) = %d, want %d", d, x, got, want)
			}
		}
	}
}

// TestPropModulusEqualsRemainder checks that the division-free remainder
// equals x % d for every 32-bit key and divisor.
func TestPropModulusEqualsRemainder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := rapid.Uint64Range(0, 1<<32-1).Draw(t, "x")
		d := rapid.Uint64Range(1, 1<<32-1).Draw(t, "d")
		if got, want := newModulus(d).mod(x), x%d; got != want {
			t.Fatalf("newModulus(%d).mod(%d) = %d, want %d", d, x, got, want)
		}
	})
}
