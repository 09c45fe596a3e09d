package gen

import (
	"fmt"
	"math"
	"math/bits"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// src is where the generators' draws come from. Every distribution of the
// oracle's generators is written once, over src, and runs on either of two
// sources:
//
//   - rapidSrc, a rapid.T: the exported rapid generators (property tests,
//     state machines, go test -fuzz through rapid.MakeFuzz), where rapid
//     records and shrinks the draws;
//   - seedSrc, a plain PRNG: TraceSeeded, the fuzzer's traces, which
//     needs none of rapid's per-draw bookkeeping (a rapid.T and a recover
//     per custom draw were half of limcheck fuzz's CPU).
//
// The integer draws are biased the way rapid biases them (to the low end
// of a range, and to both ends of one that spans 0), so a distribution
// means the same on both sources. Labels name a draw for rapid's logs.
type src interface {
	intRange(lo, hi int, label string) int
	int64Range(lo, hi int64, label string) int64
	uint64Range(lo, hi uint64, label string) uint64
	bool(label string) bool
	text(maxRunes int, label string) string // 0..maxRunes valid UTF-8 runes
	fatalf(format string, args ...any)
	// side returns a source for draws that must leave this one's stream
	// as it was: a seedSrc's second stream, from its seed alone (called
	// once a trace, so that adding a rare kind of trace changes no other
	// trace); a rapidSrc itself (rapid records every draw either way).
	side() src
}

// rapidSrc draws through rapid.
type rapidSrc struct{ t *rapid.T }

func (r rapidSrc) intRange(lo, hi int, label string) int {
	return rapid.IntRange(lo, hi).Draw(r.t, label)
}

func (r rapidSrc) int64Range(lo, hi int64, label string) int64 {
	return rapid.Int64Range(lo, hi).Draw(r.t, label)
}

func (r rapidSrc) uint64Range(lo, hi uint64, label string) uint64 {
	return rapid.Uint64Range(lo, hi).Draw(r.t, label)
}

func (r rapidSrc) bool(label string) bool { return rapid.Bool().Draw(r.t, label) }

func (r rapidSrc) text(maxRunes int, label string) string {
	return rapid.StringN(0, maxRunes, -1).Draw(r.t, label)
}

func (r rapidSrc) fatalf(format string, args ...any) { r.t.Fatalf(format, args...) }

func (r rapidSrc) side() src { return r }

// custom returns a rapid generator of what draw draws over a rapidSrc.
func custom[V any](draw func(src) V) *rapid.Generator[V] {
	return rapid.Custom(func(t *rapid.T) V { return draw(rapidSrc{t}) })
}

// seedSrc draws from a splitmix64 stream: deterministic in its seed, fast,
// and without allocation. Its integer draws follow rapid's bias (biased).
// Not safe for concurrent use.
type seedSrc struct{ state, seed uint64 }

// newSeedSrc returns a seedSrc whose stream depends only on seed.
func newSeedSrc(seed uint64) *seedSrc { return &seedSrc{state: seed, seed: seed} }

// sideSeed is mixed into a seedSrc's seed for its side stream.
const sideSeed = 0x6a09e667f3bcc908

func (s *seedSrc) side() src { return newSeedSrc(s.seed ^ sideSeed) }

// next returns the stream's next 64 bits (splitmix64).
func (s *seedSrc) next() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// bits returns n (0..64) random bits.
func (s *seedSrc) bits(n int) uint64 {
	if n == 0 {
		return 0
	}
	return s.next() >> (64 - n)
}

// biased draws a value in 0..max as rapid's biased integers do
// (genUintNBiased): a bit length drawn from a geometric distribution of
// mean about max(8, (len(max)+48)/7), capped at max's, then that many bits,
// redrawn while over max; a long enough draw is max itself.
func (s *seedSrc) biased(max uint64) uint64 {
	bitlen := bits.Len64(max)
	m := math.Max(8, (float64(bitlen)+48)/7)
	n := s.geom(bitlen) + 1
	switch {
	case int(n) < bitlen:
		bitlen = int(n)
	case int(n) >= 64-(16-int(m))*4:
		return max
	}
	for {
		if u := s.bits(bitlen); u <= max {
			return u
		}
	}
}

// geom draws rapid's genGeom(1/(m+1)) for a range of bitlen bits, with
// the denominator log1p(-p) of each bit length computed once.
func (s *seedSrc) geom(bitlen int) uint64 {
	f := float64(s.next()>>11) * 0x1.0p-53
	return uint64(math.Log1p(-f) / geomDenom[bitlen])
}

// geomDenom[b] is log1p(-1/(m+1)) for m = max(8, (b+48)/7).
var geomDenom = func() (d [65]float64) {
	for b := range d {
		m := math.Max(8, (float64(b)+48)/7)
		d[b] = math.Log1p(-1 / (m + 1))
	}
	return d
}()

// coin reports true with probability p, as rapid's flipBiasedCoin.
func (s *seedSrc) coin(p float64) bool {
	return float64(s.next()>>11)*0x1.0p-53 >= 1-p
}

func (s *seedSrc) uint64Range(lo, hi uint64, _ string) uint64 {
	if lo > hi {
		panic(fmt.Sprintf("gen: uint64Range(%d, %d): empty range", lo, hi))
	}
	return lo + s.biased(hi-lo)
}

// int64Range is rapid's genIntRange with bias: a range spanning 0 draws
// either sign half of the time, each side biased towards 0.
func (s *seedSrc) int64Range(lo, hi int64, _ string) int64 {
	switch {
	case lo > hi:
		panic(fmt.Sprintf("gen: int64Range(%d, %d): empty range", lo, hi))
	case lo >= 0:
		return lo + int64(s.biased(uint64(hi-lo)))
	case hi <= 0:
		return hi - int64(s.biased(uint64(hi)-uint64(lo)))
	case s.coin(0.5):
		return -int64(1 + s.biased(uint64(-(lo + 1)))) // 1..-lo, exact for MinInt64
	}
	return int64(s.biased(uint64(hi)))
}

func (s *seedSrc) intRange(lo, hi int, label string) int {
	return int(s.int64Range(int64(lo), int64(hi), label))
}

func (s *seedSrc) bool(string) bool { return s.bits(1) == 1 }

// text draws 0..maxRunes runes: ASCII half of the time, else any valid
// rune (a surrogate is read as U+FFFD, as a Go string conversion does).
func (s *seedSrc) text(maxRunes int, label string) string {
	var b []byte
	for range s.intRange(0, maxRunes, label) {
		r := rune(s.biased(0x7f))
		if s.bool(label) {
			r = rune(s.uint64Range(0x80, utf8.MaxRune, label))
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

func (s *seedSrc) fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
