package gen

import (
	"math"

	"pgregory.net/rapid"
)

// Int64 draws any int64, biased to the edges: near 0, small, just above
// MinInt64, just below MaxInt64, a power of two or of ten +-1 (either sign),
// or anything.
func Int64() *rapid.Generator[int64] { return custom(genInt64) }

// genInt64 is Int64's draw.
func genInt64(t src) int64 {
	switch t.intRange(0, 6, "int64 band") {
	case 0:
		return t.int64Range(-2, 2, "near 0")
	case 1:
		return t.int64Range(-1000, 1000, "small")
	case 2:
		return math.MinInt64 + t.int64Range(0, 16, "above MinInt64")
	case 3:
		return math.MaxInt64 - t.int64Range(0, 16, "below MaxInt64")
	case 4:
		return signed(t, pow2Near(t))
	case 5:
		return signed(t, pow10Near(t))
	}
	return t.int64Range(math.MinInt64, math.MaxInt64, "any int64")
}

// Positive draws an int64 >= 1: 1, small, just below MaxInt64, a power of
// two +-1, or any positive value.
func Positive() *rapid.Generator[int64] { return custom(genPositive) }

// genPositive is Positive's draw.
func genPositive(t src) int64 {
	switch t.intRange(0, 4, "positive band") {
	case 0:
		return 1
	case 1:
		return t.int64Range(1, 16, "small positive")
	case 2:
		return math.MaxInt64 - t.int64Range(0, 16, "below MaxInt64")
	case 3:
		return max(1, pow2Near(t))
	}
	return t.int64Range(1, math.MaxInt64, "any positive")
}

// Uint64 draws any uint64, biased to the edges: near 0, small, just below
// MaxUint64, around 2^63, a power of two +-1, or anything.
func Uint64() *rapid.Generator[uint64] { return custom(genUint64) }

// genUint64 is Uint64's draw.
func genUint64(t src) uint64 {
	switch t.intRange(0, 5, "uint64 band") {
	case 0:
		return t.uint64Range(0, 3, "near 0")
	case 1:
		return t.uint64Range(0, 2000, "small")
	case 2:
		return math.MaxUint64 - t.uint64Range(0, 16, "below MaxUint64")
	case 3:
		return 1<<63 + uint64(t.int64Range(-2, 2, "2^63+d"))
	case 4:
		return uint64(1)<<t.intRange(0, 63, "2^e") + uint64(t.int64Range(-1, 1, "2^e+d"))
	}
	return t.uint64Range(0, math.MaxUint64, "any uint64")
}

// pow2Near draws 2^e + d, 0 <= e <= 62, d in -1..1.
func pow2Near(t src) int64 {
	return int64(1)<<t.intRange(0, 62, "2^e") + t.int64Range(-1, 1, "2^e+d")
}

// pow10Near draws 10^e + d, 0 <= e <= 18, d in -1..1: where the decimal
// form of Retry-After gains a digit.
func pow10Near(t src) int64 {
	v := int64(1)
	for range t.intRange(0, 18, "10^e") {
		v *= 10
	}
	return v + t.int64Range(-1, 1, "10^e+d")
}

// signed negates v half of the time.
func signed(t src, v int64) int64 {
	if t.bool("negated") {
		return -v
	}
	return v
}

// addSat returns a + b saturated to the int64 range.
func addSat(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// mulSat returns a * b saturated to the int64 range, for a, b >= 0.
func mulSat(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// addSatU returns a + d saturated to the uint64 range, d of either sign.
func addSatU(a uint64, d int64) uint64 {
	if d >= 0 {
		if s := a + uint64(d); s >= a {
			return s
		}
		return math.MaxUint64
	}
	m := uint64(-(d + 1)) + 1 // |d|, exact for MinInt64
	if m > a {
		return 0
	}
	return a - m
}

// addU returns a + b saturated at MaxUint64.
func addU(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxUint64
}

// uniform draws one of 0..n-1 (n <= 64) from six fair coins, as near
// uniformly as 64 = n*q + r allows: rapid biases IntRange to its low end,
// which for an exponent would make the wide sizes rare. It shrinks to 0.
func uniform(t src, label string, n uint) uint {
	v := uint(0)
	for range 6 {
		v <<= 1
		if t.bool(label) {
			v |= 1
		}
	}
	return v % n
}

// bitEdges are the widths where implementations keep a size or a count
// and overflow or cap it: 64, 32, 16, 63, 31 and 53 bits (rapid favours the
// first of a list, so the widest first).
var bitEdges = []uint{64, 32, 16, 63, 31, 53}

// pow2Edge draws a structural size at the edge of a machine width: 2^e + d
// with e in 3..63 (half of the time e one of bitEdges, 2^64 read as
// MaxUint64 + 1) and d in -1..1, saturated to 0..MaxUint64. It is where a
// size kept in a narrower integer wraps, a table capped at a power of two
// fills, or a fixed ring overflows.
func pow2Edge(t src) uint64 {
	e := 3 + uniform(t, "2^e size", 61)
	if t.bool("bit width edge") {
		e = bitEdges[t.intRange(0, len(bitEdges)-1, "bit width")]
	}
	d := t.int64Range(-1, 1, "2^e size+d")
	if e == 64 { // 2^64 itself does not fit: MaxUint64 is 2^64-1
		return math.MaxUint64 - uint64(max(-d, 0))
	}
	return addSatU(uint64(1)<<e, d)
}

// intEdges are bitEdges within int64: the 63-bit edge is MaxInt64 itself.
var intEdges = []uint{32, 16, 63, 31, 53}

// pow2EdgePositive is pow2Edge within 1..MaxInt64, for the int64 fields of
// a gate config: 2^e + d with e in 3..62, half of the time e one of
// intEdges (2^63 + d read as MaxInt64 + d, saturated).
func pow2EdgePositive(t src) int64 {
	e := 3 + uniform(t, "2^e size", 60)
	if t.bool("bit width edge") {
		e = intEdges[t.intRange(0, len(intEdges)-1, "bit width")]
	}
	d := t.int64Range(-1, 1, "2^e size+d")
	if e == 63 {
		return math.MaxInt64 + min(d, 0)
	}
	return int64(1)<<e + d
}
