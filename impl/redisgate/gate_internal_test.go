package redisgate

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/lim"
	"github.com/redis/rueidis"
	"pgregory.net/rapid"
)

// TestPropFloorDivModIsExact checks the property that floorDivMod(a, b)
// returns q, r with q*b + r == a (in wrapping int64 arithmetic, exact since
// the true value is a) and 0 <= r < b, for every int64 a and b >= 1: the
// division Go does so that the admit script only adds and compares.
func TestPropFloorDivModIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.OneOf(rapid.Int64(), rapid.SampledFrom([]int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64})).Draw(t, "a")
		b := rapid.OneOf(rapid.Int64Range(1, math.MaxInt64), rapid.SampledFrom([]int64{1, 2, 3, math.MaxInt64})).Draw(t, "b")
		q, r := floorDivMod(a, b)
		if r < 0 || r >= b || q*b+r != a {
			t.Fatalf("floorDivMod(%d, %d) = %d, %d", a, b, q, r)
		}
	})
}

// TestPropDecodeInvertsTheScriptsEncoding checks the property that a
// bucket written as (tq, tr, lq, lr) in 16 hex digits each, as the admit
// script stores it, decodes to tks = tq*refil + tr and last = lq*ivl + lr
// exactly, for every bucket and config.
func TestPropDecodeInvertsTheScriptsEncoding(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		refil := rapid.Int64Range(1, math.MaxInt64).Draw(t, "refil")
		ivl := rapid.Int64Range(1, math.MaxInt64).Draw(t, "ivl")
		tks, last := rapid.Int64().Draw(t, "tks"), rapid.Int64().Draw(t, "last")
		g := &Gate{cfg: Config{Lim: lim.NewConfig(math.MaxInt64, refil, ivl, 1)}}
		tq, tr := floorDivMod(tks, refil)
		lq, lr := floorDivMod(last, ivl)
		b, err := g.decode(hex16(tq) + hex16(tr) + hex16(lq) + hex16(lr))
		if err != nil || b.Tks != tks || b.Last != last {
			t.Fatalf("decode = %+v, %v; want {%d %d}", b, err, tks, last)
		}
	})
}

// TestNewRefusesBadConfigs checks that New names each invalid field with
// ErrConfig: no client, a bad name, an invalid lim config, sets, ways or
// tick below 1, a lease TTL below 1 ms.
func TestNewRefusesBadConfigs(t *testing.T) {
	ok := Config{Client: noClient{}, Name: "g", Lim: lim.NewConfig(2, 1, 1, 1), Sets: 1, Ways: 1, TickNanos: 1, LeaseTTL: time.Second}
	for name, edit := range map[string]func(*Config){
		"nil client":    func(c *Config) { c.Client = nil },
		"empty name":    func(c *Config) { c.Name = "" },
		"brace in name": func(c *Config) { c.Name = "a}b" },
		"invalid lim":   func(c *Config) { c.Lim = lim.NewConfig(0, 1, 1, 1) },
		"sets 0":        func(c *Config) { c.Sets = 0 },
		"ways 0":        func(c *Config) { c.Ways = 0 },
		"tick 0":        func(c *Config) { c.TickNanos = 0 },
		"lease 0":       func(c *Config) { c.LeaseTTL = 0 },
	} {
		if _, err := New(ok); err != nil {
			t.Fatalf("New(valid config) = %v", err)
		}
		c := ok
		edit(&c)
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: New = %v, want ErrConfig", name, err)
		}
	}
}

// noClient is a client New can hold: New never calls it.
type noClient struct{ rueidis.Client }
