package lim

import "math/bits"

// divider divides uint64 values by a fixed divisor d >= 1 with one multiply,
// two shifts and two adds (Granlund and Montgomery, "Division by invariant
// integers using multiplication", 1994, figure 4.1). It is exact for every
// dividend in [0, 2^64).
type divider struct {
	d        uint64 // the divisor; 0 in an unset divider
	m        uint64 // m' = floor(2^64 * (2^l - d) / d) + 1, l = ceil(log2 d)
	sh1, sh2 uint8  // min(l, 1), max(l - 1, 0)
}

// newDivider returns the divider of d; d must be in [1, 2^63].
func newDivider(d uint64) divider {
	l := uint(bits.Len64(d - 1)) // ceil(log2 d); 0 for d = 1
	hi := uint64(1)<<l - d       // 2^l - d < d, so the quotient fits
	m, _ := bits.Div64(hi, 0, d)
	return divider{d: d, m: m + 1, sh1: uint8(min(l, 1)), sh2: uint8(max(int(l)-1, 0))}
}

// div returns n / d.
func (v *divider) div(n uint64) uint64 {
	t, _ := bits.Mul64(v.m, n)
	return (t + (n-t)>>v.sh1) >> v.sh2
}
