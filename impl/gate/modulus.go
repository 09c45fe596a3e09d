package gate

import "math/bits"

// modulus computes x mod d for every 64-bit x (a SipHash output) and
// divisor 1 <= d < 2^64 without a division (Lemire, Kaser and Kurz, "Faster
// remainder by direct computation", 2019, with F = 128 fractional bits,
// enough for 64-bit numerators and divisors): with m = floor((2^128 - 1) /
// d) + 1, x mod d = hi64((m * x mod 2^128) * d), three 64-bit multiplies
// and an add. For d = 1, m would be 2^128; it wraps to 0, and every
// remainder is then 0, which is x mod 1. A power of two d takes x & (d-1)
// instead: one AND, where the multiplies are a chain of about ten cycles on
// the path from the hash to the set's first load.
type modulus struct {
	mhi, mlo uint64 // m
	d        uint64
	pow2     bool // d is a power of two
}

// newModulus returns the modulus of d, d >= 1.
func newModulus(d uint64) modulus {
	const ones = ^uint64(0)
	qhi, r := ones/d, ones%d
	qlo, _ := bits.Div64(r, ones, d) // r < d: no overflow
	mlo, carry := bits.Add64(qlo, 1, 0)
	return modulus{mhi: qhi + carry, mlo: mlo, d: d, pow2: d&(d-1) == 0}
}

// mod returns x mod d.
func (v modulus) mod(x uint64) uint64 {
	if v.pow2 {
		return x & (v.d - 1)
	}
	hi, lo := bits.Mul64(v.mlo, x)
	hi += v.mhi * x // (hi, lo) = m * x mod 2^128
	top, mid := bits.Mul64(hi, v.d)
	carry, _ := bits.Mul64(lo, v.d)
	_, c := bits.Add64(mid, carry, 0)
	return top + c // the top word of the 192-bit (m * x mod 2^128) * d
}
