package gate

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/bits"
)

// Seed is the gate's secret: the 16-byte key of the SipHash-2-4 that places
// keys in sets (spec GATE-18). Its text form is 32 lowercase hex digits, the
// bytes in order. The zero Seed is a valid, public key: vectors pin seeds,
// production draws one at random.
type Seed [16]byte

// MarshalText returns the seed as 32 lowercase hex digits.
func (s Seed) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(s[:])), nil }

// UnmarshalText reads 32 hex digits, either case. On an error, which names
// the length or the first character that is not a hex digit, s is
// unchanged.
func (s *Seed) UnmarshalText(b []byte) error {
	if len(b) != 2*len(s) {
		return fmt.Errorf("gate: seed %q has %d characters, want 32 hex digits", b, len(b))
	}
	for i, c := range b {
		if !isHex(c) {
			return fmt.Errorf("gate: seed %q: character %d (%q) is not a hex digit", b, i, c)
		}
	}
	var d Seed
	hex.Decode(d[:], b) // cannot fail: 32 hex digits
	*s = d
	return nil
}

// isHex reports whether c is a hex digit of either case.
func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// String returns the seed's text form.
func (s Seed) String() string { return hex.EncodeToString(s[:]) }

// SipHash returns SipHash-2-4 (Aumasson and Bernstein, 2012) keyed by seed
// of the 8 bytes of m in little-endian order: the reference algorithm, with
// its two compression and four finalization rounds, specialised to an
// 8-byte message. k0 and k1 are the seed's two halves read little-endian.
func SipHash(seed Seed, m uint64) uint64 {
	// spec GATE-18: "h = SipHash-2-4 keyed by the seed's 16 bytes of the 8-byte little-endian k."
	k0 := binary.LittleEndian.Uint64(seed[0:8])
	k1 := binary.LittleEndian.Uint64(seed[8:16])
	v := [4]uint64{
		k0 ^ 0x736f6d6570736575, // "somepseu"
		k1 ^ 0x646f72616e646f6d, // "dorandom"
		k0 ^ 0x6c7967656e657261, // "lygenera"
		k1 ^ 0x7465646279746573, // "tedbytes"
	}
	compress := func(w uint64) {
		v[3] ^= w
		sipRound(&v)
		sipRound(&v)
		v[0] ^= w
	}
	compress(m)
	compress(8 << 56) // the last block: no bytes left, the length 8 in its top byte
	v[2] ^= 0xff
	for range 4 {
		sipRound(&v)
	}
	return v[0] ^ v[1] ^ v[2] ^ v[3]
}

// sipRound is one SipRound of the reference algorithm.
func sipRound(v *[4]uint64) {
	v[0] += v[1]
	v[1] = bits.RotateLeft64(v[1], 13)
	v[1] ^= v[0]
	v[0] = bits.RotateLeft64(v[0], 32)
	v[2] += v[3]
	v[3] = bits.RotateLeft64(v[3], 16)
	v[3] ^= v[2]
	v[0] += v[3]
	v[3] = bits.RotateLeft64(v[3], 21)
	v[3] ^= v[0]
	v[2] += v[1]
	v[1] = bits.RotateLeft64(v[1], 17)
	v[1] ^= v[2]
	v[2] = bits.RotateLeft64(v[2], 32)
}
