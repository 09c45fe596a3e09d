// Package siphash is SipHash-2-4 of one 8-byte message, the keyed hash that
// places a gate's keys in sets (spec GATE-18): the reference algorithm
// (Aumasson and Bernstein, 2012), unrolled for the one block impl/ hashes.
//
// Imports: the standard library only.
package siphash

import (
	"encoding/binary"
	"math/bits"
)

// Key is a SipHash key expanded to the initial state words of the
// reference's initialisation, so that a hash starts from them with no work.
// The zero Key is not the zero seed's; build one with [New].
type Key struct{ v0, v1, v2, v3 uint64 }

// New returns the Key of a 16-byte seed: k0 and k1 are its halves read
// little-endian.
func New(seed [16]byte) Key {
	k0 := binary.LittleEndian.Uint64(seed[0:8])
	k1 := binary.LittleEndian.Uint64(seed[8:16])
	return Key{k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d, k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573}
}

// Sum64 returns SipHash-2-4 under k of the 8 bytes of m in little-endian
// order (spec GATE-18).
func (k Key) Sum64(m uint64) uint64 {
	v0, v1, v2, v3 := k.v0, k.v1, k.v2, k.v3
	v3 ^= m
	v0, v1, v2, v3 = round(v0, v1, v2, v3)
	v0, v1, v2, v3 = round(v0, v1, v2, v3)
	v0 ^= m
	const last = 8 << 56 // the final block: no bytes left, the length in its top byte
	v3 ^= last
	v0, v1, v2, v3 = round(v0, v1, v2, v3)
	v0, v1, v2, v3 = round(v0, v1, v2, v3)
	v0 ^= last
	v2 ^= 0xff
	v0, v1, v2, v3 = round(v0, v1, v2, v3)
	v0, v1, v2, v3 = round(v0, v1, v2, v3)
	v0, v1, v2, v3 = round(v0, v1, v2, v3)
	v0, v1, v2, v3 = round(v0, v1, v2, v3)
	return v0 ^ v1 ^ v2 ^ v3
}

// round is one SipRound.
func round(v0, v1, v2, v3 uint64) (uint64, uint64, uint64, uint64) {
	v0 += v1
	v1 = bits.RotateLeft64(v1, 13) ^ v0
	v0 = bits.RotateLeft64(v0, 32)
	v2 += v3
	v3 = bits.RotateLeft64(v3, 16) ^ v2
	v0 += v3
	v3 = bits.RotateLeft64(v3, 21) ^ v0
	v2 += v1
	v1 = bits.RotateLeft64(v1, 17) ^ v2
	v2 = bits.RotateLeft64(v2, 32)
	return v0, v1, v2, v3
}
