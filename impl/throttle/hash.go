package throttle

import (
	"hash/maphash"
	"math/bits"
)

// hasher is a store's seeded key hash. Keys of at most 16 bytes take an
// inline hash of wyhash's short-input form (two 64-bit multiplies over the
// first and last 8 or 4 bytes, or 3 bytes of a shorter key, the length and
// two secret words drawn from the store's random seed); longer keys take
// hash/maphash. A key's shard is the low bits of its hash, its index tag the
// high 32.
type hasher struct {
	seed   maphash.Seed
	s0, s1 uint64
}

// newHasher returns a hasher with a fresh random seed.
func newHasher() hasher {
	seed := maphash.MakeSeed()
	return hasher{seed: seed, s0: maphash.String(seed, "s0"), s1: maphash.String(seed, "s1") | 1}
}

// hash returns the hash of key.
func (x *hasher) hash(key string) uint64 {
	n := len(key)
	var a, b uint64
	switch {
	case n > 16:
		return maphash.String(x.seed, key)
	case n >= 8:
		a, b = le64(key), le64(key[n-8:])
	case n >= 4:
		a, b = uint64(le32(key)), uint64(le32(key[n-4:]))
	case n > 0:
		a = uint64(key[0])<<16 | uint64(key[n>>1])<<8 | uint64(key[n-1])
	}
	return mix(x.s1^uint64(n), mix(a^x.s1, b^x.s0))
}

// mix folds the 128-bit product of a and b into 64 bits.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// le64 returns the first 8 bytes of s (at least 8), little-endian.
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// le32 returns the first 4 bytes of s (at least 4), little-endian.
func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
