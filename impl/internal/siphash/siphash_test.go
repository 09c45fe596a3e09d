package siphash

import (
	"math/rand/v2"
	"testing"
)

// TestSum64MatchesTheReference checks spec GATE-18's check value, the
// reference implementation's test vector for the 8-byte message 00..07
// under the key 00..0f, and a few seeds and messages against a plain
// round-by-round reading of the algorithm.
func TestSum64MatchesTheReference(t *testing.T) {
	var seed [16]byte
	for i := range seed {
		seed[i] = byte(i)
	}
	if got, want := New(seed).Sum64(0x0706050403020100), uint64(0x93f5f5799a932462); got != want {
		t.Fatalf("Sum64(0x0706050403020100) under key 00..0f = %#x, want %#x (GATE-18's check value)", got, want)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		for i := range seed {
			seed[i] = byte(r.Uint32())
		}
		m := r.Uint64()
		if got, want := New(seed).Sum64(m), plain(seed, m); got != want {
			t.Fatalf("Sum64(%#x) under %x = %#x, want %#x", m, seed, got, want)
		}
	}
}

// plain is SipHash-2-4 of an 8-byte message as the paper writes it: bytes
// in, a loop of compression rounds per block, the length block, four
// finalization rounds.
func plain(seed [16]byte, m uint64) uint64 {
	le := func(b []byte) (x uint64) {
		for i := 7; i >= 0; i-- {
			x = x<<8 | uint64(b[i])
		}
		return x
	}
	k0, k1 := le(seed[:8]), le(seed[8:])
	v := []uint64{k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d, k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573}
	rot := func(x uint64, b uint) uint64 { return x<<b | x>>(64-b) }
	sip := func() {
		v[0] += v[1]
		v[1] = rot(v[1], 13)
		v[1] ^= v[0]
		v[0] = rot(v[0], 32)
		v[2] += v[3]
		v[3] = rot(v[3], 16)
		v[3] ^= v[2]
		v[0] += v[3]
		v[3] = rot(v[3], 21)
		v[3] ^= v[0]
		v[2] += v[1]
		v[1] = rot(v[1], 17)
		v[1] ^= v[2]
		v[2] = rot(v[2], 32)
	}
	for _, b := range []uint64{m, 8 << 56} {
		v[3] ^= b
		sip()
		sip()
		v[0] ^= b
	}
	v[2] ^= 0xff
	for range 4 {
		sip()
	}
	return v[0] ^ v[1] ^ v[2] ^ v[3]
}
