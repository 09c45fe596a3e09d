package redisgate

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
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
// bucket written as (tq, tr, lq, lr), 8 big-endian bytes each, as the admit
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
		b, err := g.decode(be8(tq) + be8(tr) + be8(lq) + be8(lr))
		if err != nil || b.Tks != tks || b.Last != last {
			t.Fatalf("decode = %+v, %v; want {%d %d}", b, err, tks, last)
		}
	})
}

// TestNewRefusesBadConfigs checks that New names each invalid field with
// ErrConfig: no client, a bad name, an invalid lim config, sets, ways or
// tick below 1, a lease TTL below 1 ms, no seed (a Redis gate's nodes must
// share one: DIST-2), Slabs in Exact, a Mode neither Exact nor Spread,
// Slabs past Sets or below 0 in Spread.
func TestNewRefusesBadConfigs(t *testing.T) {
	ok := Config{Client: noClient{}, Name: "g", Lim: lim.NewConfig(2, 1, 1, 1), Sets: 1, Ways: 1, TickNanos: 1, LeaseTTL: time.Second, Seed: &[16]byte{}}
	for name, edit := range map[string]func(*Config){
		"nil client":             func(c *Config) { c.Client = nil },
		"empty name":             func(c *Config) { c.Name = "" },
		"brace in name":          func(c *Config) { c.Name = "a}b" },
		"invalid lim":            func(c *Config) { c.Lim = lim.NewConfig(0, 1, 1, 1) },
		"sets 0":                 func(c *Config) { c.Sets = 0 },
		"ways 0":                 func(c *Config) { c.Ways = 0 },
		"tick 0":                 func(c *Config) { c.TickNanos = 0 },
		"lease 0":                func(c *Config) { c.LeaseTTL = 0 },
		"no seed":                func(c *Config) { c.Seed = nil },
		"exact slabs":            func(c *Config) { c.Slabs = 1 },
		"mode 2":                 func(c *Config) { c.Mode = 2 },
		"spread slabs past sets": func(c *Config) { c.Mode, c.Slabs = Spread, 2 },
		"spread slabs below 0":   func(c *Config) { c.Mode, c.Slabs = Spread, -1 },
	} {
		if err := validate(ok); err != nil {
			t.Fatalf("validate(valid config) = %v", err)
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

// TestSetOfIsTheKeyedSipHash checks spec GATE-13 and GATE-18 on the node:
// the set is SipHash-2-4 of the key under the seed, read unsigned, mod
// Sets, with GATE-18's check value (seed 00..0f, k = 0x0706050403020100, h
// = 0x93f5f5799a932462) at three table sizes; and that the gate keeps no
// copy of the caller's seed: Config hides it and a later change of the
// caller's array moves no key.
func TestSetOfIsTheKeyedSipHash(t *testing.T) {
	const k, h = int64(0x0706050403020100), uint64(0x93f5f5799a932462)
	for _, tc := range []struct {
		sets   int64
		want   int64
		reason string
	}{
		{math.MaxInt64, int64(h - math.MaxInt64), "the production layout: h read unsigned, above MaxInt64"},
		{1, 0, "one set holds every key"},
		{1 << 32, int64(h & (1<<32 - 1)), "a power of two keeps the low bits"},
	} {
		seed := [16]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
		cfg := Config{Client: noClient{}, Name: "g", Lim: lim.NewConfig(2, 1, 1, 1), Sets: tc.sets, Ways: 1, TickNanos: 1, LeaseTTL: time.Second, Seed: &seed}
		if err := validate(cfg); err != nil {
			t.Fatal(err)
		}
		g := newGate(cfg)
		seed[0] = 0xff
		if got := g.setOf(k); got != tc.want {
			t.Errorf("%s: setOf(%#x) with Sets %d = %d, want %d", tc.reason, k, tc.sets, got, tc.want)
		}
		if g.Config().Seed != nil {
			t.Errorf("Config().Seed = %v, want nil: a gate never returns its seed (GATE-18)", g.Config().Seed)
		}
	}
}

// TestRefusedRetryIsTheBudgetTakes checks spec GATE-19's retry: a refused
// eviction whose budget falls short by d tokens, written as (q, r) by
// refil, retries after ceil(d * ivl / refil) ticks (LIM-12), exact at the
// int64 edges and saturated (LIM-13), with GATE-12's Retry-After, no way
// and the verdict limited; a malformed or empty deficit is an error.
func TestRefusedRetryIsTheBudgetTakes(t *testing.T) {
	for _, tc := range []struct {
		cap, refil, ivl, tick, d int64
		retry, after             int64
		reason                   string
	}{
		{10, 1, 1, 1, 1, 1, 1, "one token short, one tick"},
		{10, 3, 7, 1e9, 5, 12, 12, "ceil(5*7/3) = 12, a second a tick"},
		{math.MaxInt64, 2, math.MaxInt64, 1, math.MaxInt64, math.MaxInt64, 9223372037, "past int64: saturated"},
		{math.MaxInt64, math.MaxInt64, 3, 1, math.MaxInt64 - 1, 3, 1, "(q, r) = (0, refil-1): no carry lost"},
	} {
		g := &Gate{cfg: Config{Lim: lim.NewConfig(tc.cap, tc.refil, tc.ivl, 1), TickNanos: tc.tick}}
		q, r := floorDivMod(tc.d, tc.refil)
		d, err := g.refused("limited", be8(q)+be8(r), 5)
		want := Decision{Verdict: gate.Limited, Way: -1, Retry: tc.retry, RetryAfter: tc.after}
		if err != nil || d != want {
			t.Errorf("%s: refused(limited, deficit %d) = %+v, %v; want %+v", tc.reason, tc.d, d, err, want)
		}
	}
	g := &Gate{cfg: Config{Lim: lim.NewConfig(10, 1, 1, 1), TickNanos: 1}}
	for _, bad := range []struct{ verdict, deficit string }{
		{"limited", "00"}, {"limited", be8(0) + be8(0)}, {"pass", be8(0) + be8(1)}, {"limited", be8(0) + be8(1) + "x"},
	} {
		if _, err := g.refused(bad.verdict, bad.deficit, 0); err == nil {
			t.Errorf("refused(%q, %q) = nil error, want one", bad.verdict, bad.deficit)
		}
	}
}

// TestSpreadConfig checks what New makes of a Spread config: no lease TTL
// needed, Slabs 0 is DefaultSlabs or Sets when smaller, a set's slab is
// set mod Slabs under one hash tag per slab, and the sweep's now is now
// less the margin in ticks (rounded up), saturated at MinInt64.
func TestSpreadConfig(t *testing.T) {
	seed := [16]byte{}
	cfg := Config{Client: noClient{}, Name: "g", Lim: lim.NewConfig(2, 1, 1, 1), Sets: 3, Ways: 1, TickNanos: 7, Seed: &seed,
		Mode: Spread, TTLMargin: 100}
	if err := validate(cfg); err != nil {
		t.Fatalf("validate(Spread, LeaseTTL 0) = %v, want nil: Spread holds no lease", err)
	}
	if g := newGate(cfg); g.Config().Slabs != 3 || g.slabOf(5) != "{lim:g:2}" || g.sweepNow(100) != 85 || g.sweepNow(math.MinInt64+3) != math.MinInt64 {
		t.Errorf("Sets 3, Slabs 0, margin 100ns of 7ns ticks: Slabs %d, slabOf(5) %q, sweepNow(100) %d, sweepNow(MinInt64+3) %d; want 3, {lim:g:2}, 85, MinInt64",
			g.Config().Slabs, g.slabOf(5), g.sweepNow(100), g.sweepNow(math.MinInt64+3))
	}
	cfg.Sets = math.MaxInt64
	if g := newGate(cfg); g.Config().Slabs != DefaultSlabs {
		t.Errorf("Sets MaxInt64, Slabs 0: Slabs %d, want DefaultSlabs %d", g.Config().Slabs, DefaultSlabs)
	}
	for m, want := range map[Mode]string{Exact: "exact", Spread: "spread", 7: "Mode(7)"} {
		if m.String() != want {
			t.Errorf("Mode(%d).String() = %q, want %q", int(m), m.String(), want)
		}
	}
}
