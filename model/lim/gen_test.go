package lim_test

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/limcheck/limcheck/model/lim"
	"pgregory.net/rapid"
)

// int64s draws any int64, biased to the edges: near 0, small, just above
// MinInt64, just below MaxInt64, a power of two +-1 (either sign), or anything.
func int64s() *rapid.Generator[int64] {
	return rapid.Custom(func(t *rapid.T) int64 {
		switch rapid.IntRange(0, 5).Draw(t, "int64 band") {
		case 0:
			return rapid.Int64Range(-2, 2).Draw(t, "near 0")
		case 1:
			return rapid.Int64Range(-1000, 1000).Draw(t, "small")
		case 2:
			return minI + rapid.Int64Range(0, 1000).Draw(t, "above MinInt64")
		case 3:
			return maxI - rapid.Int64Range(0, 1000).Draw(t, "below MaxInt64")
		case 4:
			v := int64(1)<<rapid.IntRange(0, 62).Draw(t, "2^e") + rapid.Int64Range(-1, 1).Draw(t, "2^e+d")
			if rapid.Bool().Draw(t, "negated") {
				v = -v
			}
			return v
		default:
			return rapid.Int64().Draw(t, "any int64")
		}
	})
}

// positives draws an int64 >= 1: 1, small, just below MaxInt64, a power of two
// +-1, or any positive value.
func positives() *rapid.Generator[int64] {
	return rapid.Custom(func(t *rapid.T) int64 {
		switch rapid.IntRange(0, 4).Draw(t, "positive band") {
		case 0:
			return 1
		case 1:
			return rapid.Int64Range(1, 16).Draw(t, "small positive")
		case 2:
			return maxI - rapid.Int64Range(0, 16).Draw(t, "below MaxInt64")
		case 3:
			return max(1, int64(1)<<rapid.IntRange(0, 62).Draw(t, "2^e")+rapid.Int64Range(-1, 1).Draw(t, "2^e+d"))
		default:
			return rapid.Int64Range(1, maxI).Draw(t, "any positive")
		}
	})
}

// between draws from [lo, hi] (lo <= hi), biased to both ends.
func between(lo, hi int64) *rapid.Generator[int64] {
	return rapid.Custom(func(t *rapid.T) int64 {
		span := uint64(hi) - uint64(lo) // hi - lo, exact as a uint64
		switch rapid.IntRange(0, 4).Draw(t, "range band") {
		case 0:
			return lo
		case 1:
			return hi
		case 2:
			return int64(uint64(lo) + rapid.Uint64Range(0, min(16, span)).Draw(t, "just above lo"))
		case 3:
			return int64(uint64(hi) - rapid.Uint64Range(0, min(16, span)).Draw(t, "just below hi"))
		default:
			return rapid.Int64Range(lo, hi).Draw(t, "within range")
		}
	})
}

// validConfigs draws what lim_cfg returns with ok 1, each parameter biased to
// 1 and to MaxInt64.
func validConfigs() *rapid.Generator[lim.Config] {
	return rapid.Custom(func(t *rapid.T) lim.Config {
		return lim.NewConfig(positives().Draw(t, "cap"), positives().Draw(t, "refil"),
			positives().Draw(t, "ivl"), positives().Draw(t, "maxif"))
	})
}

// anyConfigs draws a valid config, lim_cfg of any four values, or a Config
// with any field values (ok and err inconsistent with the parameters).
func anyConfigs() *rapid.Generator[lim.Config] {
	return rapid.Custom(func(t *rapid.T) lim.Config {
		switch rapid.IntRange(0, 2).Draw(t, "config kind") {
		case 0:
			return validConfigs().Draw(t, "valid config")
		case 1:
			return lim.NewConfig(int64s().Draw(t, "cap"), int64s().Draw(t, "refil"),
				int64s().Draw(t, "ivl"), int64s().Draw(t, "maxif"))
		default:
			return lim.Config{
				OK:    rapid.SampledFrom([]int64{0, 1, 1, 2, -1, minI}).Draw(t, "ok"),
				Err:   rapid.SampledFrom([]int64{0, 0, 1, -1, maxI}).Draw(t, "err"),
				Cap:   int64s().Draw(t, "cap"),
				Refil: int64s().Draw(t, "refil"),
				Ivl:   int64s().Draw(t, "ivl"),
				Maxif: int64s().Draw(t, "maxif"),
			}
		}
	})
}

// costs draws an in-contract cost (>= 1) for a bucket of capacity cap >= 1:
// 1, cap, cap+1, MaxInt64, up to cap, or any positive.
func costs(cap int64) *rapid.Generator[int64] {
	return rapid.Custom(func(t *rapid.T) int64 {
		switch rapid.IntRange(0, 5).Draw(t, "cost kind") {
		case 0:
			return 1
		case 1:
			return cap
		case 2:
			return min(cap, maxI-1) + 1
		case 3:
			return maxI
		case 4:
			return between(1, cap).Draw(t, "cost up to cap")
		default:
			return positives().Draw(t, "any cost")
		}
	})
}

// tokens draws an in-contract tks (>= 0) for capacity cap >= 1: 0, cap, up
// to cap, above cap (a lowered cap), or MaxInt64.
func tokens(cap int64) *rapid.Generator[int64] {
	return rapid.Custom(func(t *rapid.T) int64 {
		switch rapid.IntRange(0, 4).Draw(t, "tks kind") {
		case 0:
			return 0
		case 1:
			return cap
		case 2:
			return between(0, cap).Draw(t, "tks up to cap")
		case 3:
			return between(cap, maxI).Draw(t, "tks above cap")
		default:
			return maxI
		}
	})
}

// around draws a tick near base (equal, a small step either way, a
// multiple of ivl plus a remainder) or anywhere; it saturates at the ends.
func around(base, ivl int64) *rapid.Generator[int64] {
	return rapid.Custom(func(t *rapid.T) int64 {
		switch rapid.IntRange(0, 3).Draw(t, "tick kind") {
		case 0:
			return base
		case 1:
			return clampAdd(big.NewInt(base), big.NewInt(rapid.Int64Range(-16, 16).Draw(t, "small delta")))
		case 2:
			d := new(big.Int).Mul(big.NewInt(rapid.Int64Range(-3, 3).Draw(t, "steps")), big.NewInt(ivl))
			d.Add(d, big.NewInt(between(0, max(ivl, 1)-1).Draw(t, "remainder")))
			return clampAdd(big.NewInt(base), d)
		default:
			return int64s().Draw(t, "any tick")
		}
	})
}

// clampAdd is a + b clamped to [MinInt64, MaxInt64].
func clampAdd(a, b *big.Int) int64 {
	s := new(big.Int).Add(a, b)
	switch {
	case s.Cmp(big.NewInt(maxI)) > 0:
		return maxI
	case s.Cmp(big.NewInt(minI)) < 0:
		return minI
	}
	return s.Int64()
}

// ips draws byte strings: any bytes, address-like pieces mixed with non-ASCII
// text and invalid UTF-8, any valid UTF-8 text, or a long repetition.
func ips() *rapid.Generator[string] {
	pieces := []string{"0", "1", "9", ".", ":", "::", "::1", "255", "10.17.102.130", "fe80", "%eth0",
		"é", "日本", "\xff", "\xfe", "\xff\xfe", "\x00", "\x80", "\xc3"}
	return rapid.Custom(func(t *rapid.T) string {
		switch rapid.IntRange(0, 3).Draw(t, "ip kind") {
		case 0:
			return string(rapid.SliceOfN(rapid.Byte(), 0, 64).Draw(t, "ip bytes"))
		case 1:
			return strings.Join(rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 16).Draw(t, "ip pieces"), "")
		case 2:
			return rapid.String().Draw(t, "ip text")
		default:
			return strings.Repeat(rapid.SampledFrom(pieces).Draw(t, "repeated piece"), rapid.IntRange(1, 2000).Draw(t, "repeats"))
		}
	})
}

// inContract is LIM-7's contract, spelled out from LIM-4.
func inContract(b lim.Bucket, c lim.Config, cost int64) bool {
	valid := c.OK == 1 && c.Err == 0 && c.Cap >= 1 && c.Refil >= 1 && c.Ivl >= 1 && c.Maxif >= 1
	return valid && cost >= 1 && b.Tks >= 0
}

// stepsBetween is floor((now - last) / ivl) when now >= last, else 0, exact.
func stepsBetween(last, now, ivl int64) *big.Int {
	if now < last {
		return new(big.Int)
	}
	d := new(big.Int).Sub(big.NewInt(now), big.NewInt(last))
	return d.Quo(d, big.NewInt(ivl))
}

// takeArgs are the arguments of one lim.Take.
type takeArgs struct {
	b         lim.Bucket
	c         lim.Config
	now, cost int64
}

func (a takeArgs) String() string {
	return fmt.Sprintf("Take(%s, %s, %d, %d)", fmtBkt(a.b), fmtCfg(a.c), a.now, a.cost)
}

func (a takeArgs) take() lim.TakeResult { return lim.Take(a.b, a.c, a.now, a.cost) }

// inContractTakes draws the arguments of an in-contract take (LIM-7): a
// valid config, tks >= 0 (above cap too), cost >= 1, any last, now near last
// or anywhere.
func inContractTakes() *rapid.Generator[takeArgs] {
	return rapid.Custom(func(t *rapid.T) takeArgs {
		c := validConfigs().Draw(t, "cfg")
		b := bkt(tokens(c.Cap).Draw(t, "tks"), int64s().Draw(t, "last"))
		return takeArgs{b: b, c: c, now: around(b.Last, c.Ivl).Draw(t, "now"), cost: costs(c.Cap).Draw(t, "cost")}
	})
}

// anyTakes draws the arguments of any take, in contract or not.
func anyTakes() *rapid.Generator[takeArgs] {
	return rapid.Custom(func(t *rapid.T) takeArgs {
		c := anyConfigs().Draw(t, "cfg")
		capish := max(c.Cap, 1)
		b := bkt(rapid.OneOf(tokens(capish), int64s()).Draw(t, "tks"), int64s().Draw(t, "last"))
		return takeArgs{b: b, c: c, now: around(b.Last, c.Ivl).Draw(t, "now"),
			cost: rapid.OneOf(costs(capish), int64s()).Draw(t, "cost")}
	})
}
