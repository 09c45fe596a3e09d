package lim

import "unsafe"

// KeyPrime is the modulus of [IPKey], the prime 4294967291 = 2^32 - 5.
const KeyPrime int64 = 4294967291

// KeyMul is the multiplier of [IPKey].
const KeyMul int64 = 131

// Powers of 131 used by the chunk evaluation.
const (
	pow2     = 131 * 131   // 17161
	pow4     = pow2 * pow2 // 294499921
	pow8Mod  = 521529582   // 131^8 mod KeyPrime
	pow12Mod = 2370189226  // 131^12 mod KeyPrime
	prime    = uint64(KeyPrime)
)

// IPKey is the seed's lim_ip_key(ip) (spec LIM-16): the bytes of ip read as
// the digits of a base-131 number, modulo 2^32 - 5. It evaluates 8 bytes at a
// time with three multiplies (see lanes) and reduces with the special form of
// the prime (see reduce): no division, no allocation. Up to 16 bytes (every
// IPv4 address) it reduces once.
func IPKey(ip string) int64 {
	n := len(ip)
	switch {
	case n < 8:
		var buf [8]byte
		copy(buf[8-n:], ip) // leading zero bytes add nothing to the value
		return int64(reduce(chunk(le64(buf[:]))))
	case n <= 16:
		return int64(key16(ip))
	}
	var h uint64
	i := n & 7
	if i != 0 {
		// The first n mod 8 bytes, shifted to the top of the word.
		h = reduce(chunk(le64s(ip[:8]) << (8 * (8 - i))))
	}
	for ; i+8 <= n; i += 8 {
		h = reduce(reduce(h*pow8Mod) + chunk(le64s(ip[i:i+8])))
	}
	return int64(h)
}

// IPKeyBytes is IPKey(string(ip)) without the conversion, which copies ip
// (to the heap when it is over 32 bytes): for a key built in a buffer. It
// only reads ip, and keeps nothing of it.
func IPKeyBytes(ip []byte) int64 {
	// A string view of ip, not a copy. Sound because IPKey only reads its
	// argument before it returns and keeps no part of it: the view never
	// outlives this call, and the caller cannot write ip during it. (A body
	// generic over string and []byte avoids unsafe, but other packages'
	// escape analysis then sees the generic call's parameter as leaking, and
	// every string(b) passed to IPKey becomes a heap copy.)
	return IPKey(unsafe.String(unsafe.SliceData(ip), len(ip)))
}

// key16 is IPKey for 8 <= len(ip) <= 16: the head (the first len-8 bytes, at
// the top of a word) has lanes a, b with value a*131^4 + b, so the key is
// a*131^12 + b*131^8 + chunk(tail) mod p; each product is below 2^62 and the
// sum below 2^63, so one reduction suffices.
func key16(ip string) uint64 {
	n := len(ip)
	tail := chunk(le64s(ip[n-8:]))
	if n == 8 {
		return reduce(tail)
	}
	a, b := lanes(le64s(ip[:8]) << (8 * (16 - n)))
	return reduce(a*pow12Mod + b*pow8Mod + tail)
}

// chunk returns sum(c_i * 131^(7-i)) for the 8 bytes c_0..c_7 of w, c_0 the
// lowest byte. The result is below 2^58.
func chunk(w uint64) uint64 {
	a, b := lanes(w)
	return a*pow4 + b
}

// lanes returns the values of the first and last four bytes of w as base-131
// numbers: byte pairs first, in 16-bit lanes (c*131 + c' < 2^16), then pairs
// of pairs in 32-bit lanes (< 2^30).
func lanes(w uint64) (a, b uint64) {
	const m8, m16 = 0x00ff00ff00ff00ff, 0x0000ffff0000ffff
	w = (w&m8)*131 + (w>>8)&m8
	w = (w&m16)*pow2 + (w>>16)&m16
	return w & 0xffffffff, w >> 32
}

// reduce returns x mod (2^32 - 5) for any uint64 x, using 2^32 = 5 (mod p).
func reduce(x uint64) uint64 {
	x = (x>>32)*5 + x&0xffffffff // < 6 * 2^32
	x = (x>>32)*5 + x&0xffffffff // < 2^32 + 25 < 2p
	if x >= prime {
		x -= prime
	}
	return x
}

// le64 reads 8 bytes little-endian (one load on amd64 and arm64).
func le64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// le64s is le64 over a string.
func le64s(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
