package gate

import "math/bits"

// modulus computes x mod d for keys x < 2^32 and divisors 2 <= d < 2^32
// without a division (Lemire, Kaser and Kurz, "Faster remainder by direct
// computation", 2019): with m = floor((2^64 - 1) / d) + 1,
// x mod d = hi64((m * x mod 2^64) * d). For d = 1, m would be 2^64; m = 0
// stands for it and every remainder is 0.
type modulus struct {
	d uint64
	m uint64
}

// newModulus returns the modulus of d, 1 <= d < 2^32 (New checks MaxWays).
func newModulus(d uint64) modulus {
	if d == 1 {
		return modulus{d: 1}
	}
	return modulus{d: d, m: ^uint64(0)/d + 1}
}

// mod returns x mod d; x must be below 2^32 (every lim_ip_key is).
func (v modulus) mod(x uint64) uint64 {
	hi, _ := bits.Mul64(v.m*x, v.d)
	return hi // 0 when m = 0, which is x mod 1
}
