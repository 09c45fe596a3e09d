package gate_test

import (
	"errors"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/limcheck/limcheck/model/gate"
	"github.com/limcheck/limcheck/model/lim"
)

// posEdge draws a parameter >= 1, biased to 1, small values and MaxInt64.
func posEdge() *rapid.Generator[int64] {
	return rapid.OneOf(
		rapid.Just[int64](1),
		rapid.Int64Range(1, 5),
		rapid.Int64Range(maxT-3, maxT),
		rapid.Int64Min(1),
	)
}

// anyEdge draws any int64, biased to MinInt64, 0 and MaxInt64.
func anyEdge() *rapid.Generator[int64] {
	return rapid.OneOf(
		rapid.Int64Range(minT, minT+2),
		rapid.Int64Range(-2, 2),
		rapid.Int64Range(maxT-2, maxT),
		rapid.Int64(),
	)
}

// setsGen draws a set count, biased to 1 and few sets so keys meet in a set.
func setsGen() *rapid.Generator[int64] {
	return rapid.OneOf(rapid.Just[int64](1), rapid.Int64Range(1, 8), rapid.Just[int64](64), rapid.Just[int64](1<<20), posEdge())
}

// waysGen draws a way count, biased to 1..3 so sets fill and evict.
func waysGen() *rapid.Generator[int64] {
	return rapid.OneOf(rapid.Just[int64](1), rapid.Int64Range(1, 3), rapid.Int64Range(4, 8), posEdge())
}

func tickGen() *rapid.Generator[int64] {
	return rapid.OneOf(rapid.SampledFrom([]int64{1, sec / 10, sec - 1, sec, sec + 1, maxT}), posEdge())
}

// seedGen draws a seed: the zero seed, the check value's, or any 16 bytes.
func seedGen() *rapid.Generator[gate.Seed] {
	return rapid.OneOf(
		rapid.Just(gate.Seed{}),
		rapid.Just(checkSeed),
		rapid.Map(rapid.SliceOfN(rapid.Byte(), 16, 16), func(b []byte) gate.Seed { return gate.Seed(b) }),
	)
}

// configGen draws a valid gate config; maxif is biased small so sheds happen.
func configGen() *rapid.Generator[gate.Config] {
	return rapid.Custom(func(t *rapid.T) gate.Config {
		return gate.Config{
			Lim: lim.NewConfig(
				posEdge().Draw(t, "cap"),
				posEdge().Draw(t, "refil"),
				rapid.OneOf(rapid.Int64Range(1, 12), posEdge()).Draw(t, "ivl"),
				rapid.OneOf(rapid.Int64Range(1, 3), posEdge()).Draw(t, "maxif"),
			),
			Sets:      setsGen().Draw(t, "sets"),
			Ways:      waysGen().Draw(t, "ways"),
			TickNanos: tickGen().Draw(t, "tick_nanos"),
			Seed:      seedGen().Draw(t, "seed"),
		}
	})
}

// ipGen draws an address: known edge strings (empty, non-ASCII, invalid
// UTF-8, FIND-2's pair, a NUL-prefixed twin), any text or any bytes.
func ipGen() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom([]string{"", "a", "b", "!", "\x00a", "\xff", "\xc3", "é", "10.0.0.1",
			"10.17.102.130", "10.23.191.7", "::1", "0:0:0:0:0:0:0:1"}),
		rapid.String(),
		rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, 6), func(b []byte) string { return string(b) }),
	)
}

// addAt returns a + d, saturated to the int64 range.
func addAt(a, d int64) int64 {
	s := new(big.Int).Add(big.NewInt(a), big.NewInt(d))
	switch {
	case s.Cmp(big.NewInt(maxT)) > 0:
		return maxT
	case s.Cmp(big.NewInt(minT)) < 0:
		return minT
	}
	return s.Int64()
}

// nowGen draws the next tick after prev: a repeat, a jump of 0, 1, ivl-1,
// ivl or ivl+1, a step back, a tick near MinInt64, 0 or MaxInt64, or any.
func nowGen(prev, ivl int64) *rapid.Generator[int64] {
	return rapid.OneOf(
		rapid.Just(prev),
		rapid.SampledFrom([]int64{addAt(prev, 1), addAt(prev, ivl-1), addAt(prev, ivl), addAt(prev, ivl+1), addAt(prev, 2*ivl)}),
		rapid.SampledFrom([]int64{addAt(prev, -1), addAt(prev, -ivl)}),
		rapid.SampledFrom([]int64{minT, minT + 1, -1, 0, 1, maxT - 1, maxT}),
		rapid.Int64(),
	)
}

// keyState is what a gate shows of some addresses at one now: Bucket(ip, now).
type keyState map[string]struct {
	B       lim.Bucket
	Touched bool
}

func snapshot(g *gate.Gate, ips map[string]bool, now int64) keyState {
	s := keyState{}
	for ip := range ips {
		b, ok := g.Bucket(ip, now)
		s[ip] = struct {
			B       lim.Bucket
			Touched bool
		}{b, ok}
	}
	return s
}

// TestProp11GateInvariants checks PROP-11: gate invariants:
// 0 <= in_flight <= maxif; a shed changes no bucket and no in-flight count; a
// limited request changes no in-flight count; a pass adds exactly one; every
// bucket a way holds has 0 <= tks <= cap; a key is held by at most one way, of
// its own set.
func TestProp11GateInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := configGen().Draw(t, "config")
		g := mustNew(t, c)
		pool := rapid.SliceOfN(ipGen(), 1, 5).Draw(t, "addresses")
		seen := map[string]bool{} // every address admitted
		now := anyEdge().Draw(t, "start")
		t.Repeat(map[string]func(*rapid.T){
			"admit": func(t *rapid.T) {
				ip := rapid.OneOf(rapid.SampledFrom(pool), ipGen()).Draw(t, "ip")
				now = nowGen(now, c.Lim.Ivl).Draw(t, "now")
				seen[ip] = true
				inBefore, before := g.InFlight(), snapshot(g, seen, now)
				d := g.Admit(ip, now)
				after := snapshot(g, seen, now)
				want := inBefore
				switch d.Verdict {
				case gate.Shed:
					if diff := cmp.Diff(before, after); diff != "" {
						t.Fatalf("Admit(%q, %d) = shed changed buckets (-before +after):\n%s", ip, now, diff)
					}
				case gate.Pass:
					want++
				}
				if got := g.InFlight(); got != want {
					t.Fatalf("Admit(%q, %d) = %s: InFlight() %d -> %d, want %d", ip, now, d.Verdict, inBefore, got, want)
				}
				if (d.Verdict == gate.Shed) != (inBefore >= c.Lim.Maxif) {
					t.Fatalf("Admit(%q, %d) = %s with %d of %d in flight", ip, now, d.Verdict, inBefore, c.Lim.Maxif)
				}
			},
			"release": func(t *rapid.T) {
				inBefore, before := g.InFlight(), snapshot(g, seen, now)
				g.Release()
				if got, want := g.InFlight(), max(inBefore-1, 0); got != want {
					t.Fatalf("Release(): InFlight() %d -> %d, want %d", inBefore, got, want)
				}
				if diff := cmp.Diff(before, snapshot(g, seen, now)); diff != "" {
					t.Fatalf("Release() changed buckets (-before +after):\n%s", diff)
				}
			},
			"": func(t *rapid.T) {
				if n := g.InFlight(); n < 0 || n > c.Lim.Maxif {
					t.Fatalf("InFlight() = %d, want in [0, %d]", n, c.Lim.Maxif)
				}
				for ip := range seen {
					if b, ok := g.Bucket(ip, now); ok && (b.Tks < 0 || b.Tks > c.Lim.Cap) {
						t.Fatalf("Bucket(%q, %d) = %+v, want 0 <= tks <= cap %d", ip, now, b, c.Lim.Cap)
					}
					if s, w, ok := g.WayOf(ip); ok && (s != g.SetOf(ip) || w < 0 || w >= c.Ways) {
						t.Fatalf("WayOf(%q) = %d, %d, want set %d and a way in [0, %d)", ip, s, w, g.SetOf(ip), c.Ways)
					}
				}
			},
		})
	})
}

// twin returns another address with ip's key: ip behind NUL bytes (FIND-12)
// or FIND-2's partner.
func twin(t *rapid.T, ip string) string {
	twins := []string{"\x00" + ip, "\x00\x00" + ip}
	pairs := map[string]string{
		"10.17.102.130": "10.23.191.7", "10.23.191.7": "10.17.102.130",
		"10.17.102.131": "10.23.191.8", "10.17.102.132": "10.23.191.9",
	}
	if p, ok := pairs[ip]; ok {
		twins = append(twins, p)
	}
	return rapid.SampledFrom(twins).Draw(t, "twin")
}

// TestProp12DecidesByKey checks PROP-12: a gate decides by key, not by
// address: replacing an address by another with the same key changes no
// decision.
func TestProp12DecidesByKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := configGen().Draw(t, "config")
		g1, g2 := mustNew(t, c), mustNew(t, c)
		pool := rapid.SliceOfN(ipGen(), 1, 5).Draw(t, "addresses")
		now := anyEdge().Draw(t, "start")
		for range rapid.IntRange(1, 40).Draw(t, "steps") {
			if rapid.IntRange(0, 3).Draw(t, "op") == 0 {
				g1.Release()
				g2.Release()
				continue
			}
			ip := rapid.OneOf(rapid.SampledFrom(pool), ipGen()).Draw(t, "ip")
			other := twin(t, ip)
			if lim.IPKey(ip) != lim.IPKey(other) {
				t.Fatalf("twin %q of %q: key %d, want %d", other, ip, lim.IPKey(other), lim.IPKey(ip))
			}
			now = nowGen(now, c.Lim.Ivl).Draw(t, "now")
			d1, d2 := g1.Admit(ip, now), g2.Admit(other, now)
			if diff := cmp.Diff(d1, d2); diff != "" {
				t.Fatalf("Admit(%q, %d) and Admit(%q, %d) differ (-first +second):\n%s", ip, now, other, now, diff)
			}
			b1, ok1 := g1.Bucket(ip, now)
			b2, ok2 := g2.Bucket(other, now)
			if g1.InFlight() != g2.InFlight() || b1 != b2 || ok1 != ok2 {
				t.Fatalf("after Admit(%q|%q, %d): in flight %d vs %d, bucket %+v %t vs %+v %t",
					ip, other, now, g1.InFlight(), g2.InFlight(), b1, ok1, b2, ok2)
			}
		}
	})
}

// checkRetryAfter fails unless ra is GATE-12's conversion of retry ticks of
// tick ns seen through PROP-13: ra >= 1 and ra*1e9 >= retry*tick unless
// saturated, and no more than the ceiling.
func checkRetryAfter(t *rapid.T, retry, tick, ra int64) {
	exact := new(big.Int).Mul(big.NewInt(retry), big.NewInt(tick))
	scaled := func(s int64) *big.Int { return new(big.Int).Mul(big.NewInt(s), big.NewInt(sec)) }
	if ra < 1 {
		t.Fatalf("RetryAfterSeconds(%d, %d) = %d, want >= 1", retry, tick, ra)
	}
	if ra < maxT && scaled(ra).Cmp(exact) < 0 {
		t.Fatalf("RetryAfterSeconds(%d, %d) = %d: rounded down (%d s < %v ns)", retry, tick, ra, ra, exact)
	}
	if ra == maxT && scaled(ra-1).Cmp(exact) >= 0 {
		t.Fatalf("RetryAfterSeconds(%d, %d) = MaxInt64 for %v ns", retry, tick, exact)
	}
	if ra > 1 && ra < maxT && scaled(ra-1).Cmp(exact) >= 0 {
		t.Fatalf("RetryAfterSeconds(%d, %d) = %d: more than the ceiling of %v ns", retry, tick, ra, exact)
	}
}

// TestProp13RetryAfterNeverRoundedDown checks PROP-13: Retry-After is never
// rounded down: retry_after >= 1 and retry_after * 10^9 >= retry * tick_nanos
// (unless saturated); both for the conversion and for a gate's limited
// decisions.
func TestProp13RetryAfterNeverRoundedDown(t *testing.T) {
	t.Run("conversion", rapid.MakeCheck(func(t *rapid.T) {
		retry := rapid.OneOf(anyEdge(), posEdge(), rapid.SampledFrom([]int64{sec - 1, sec, sec + 1, 2 * sec, 1 << 62})).Draw(t, "retry")
		tick := tickGen().Draw(t, "tick_nanos")
		checkRetryAfter(t, retry, tick, gate.RetryAfterSeconds(retry, tick))
	}))
	t.Run("gate", rapid.MakeCheck(func(t *rapid.T) {
		c := configGen().Draw(t, "config")
		c.Lim = lim.NewConfig(1, c.Lim.Refil, c.Lim.Ivl, c.Lim.Maxif)
		g := mustNew(t, c)
		at := anyEdge().Draw(t, "now")
		g.Admit("a", at) // empties a's bucket: cap 1
		g.Release()
		d := g.Admit("a", nowGen(at, c.Lim.Ivl).Draw(t, "later"))
		if d.Verdict != gate.Limited {
			return
		}
		checkRetryAfter(t, d.Retry, c.TickNanos, d.RetryAfter)
		if want := gate.RetryAfterSeconds(d.Retry, c.TickNanos); d.RetryAfter != want || d.Response != lim.Response503(want) {
			t.Fatalf("limited %+v, want Retry-After %d and lim_resp_503(%d)", d, want, want)
		}
	}))
}

// validGateConfig restates GATE-1 independently of the model.
func validGateConfig(c gate.Config) bool {
	l := c.Lim
	return l.OK == 1 && l.Err == 0 && l.Cap >= 1 && l.Refil >= 1 && l.Ivl >= 1 && l.Maxif >= 1 &&
		c.Sets >= 1 && c.Ways >= 1 && c.TickNanos >= 1
}

// TestProp22GateTotality checks the gate part of PROP-22: totality: no input
// in the domains above makes any model function panic. New takes any config
// and fails exactly when GATE-1 says; a gate it builds takes any address and
// tick; Bucket takes any address and tick, RetryAfterSeconds any int64.
func TestProp22GateTotality(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var c gate.Config
		if rapid.Bool().Draw(t, "from lim_cfg") {
			c = configGen().Draw(t, "config")
		} else {
			c = gate.Config{
				Lim: lim.Config{
					OK:    rapid.OneOf(rapid.Int64Range(0, 1), anyEdge()).Draw(t, "ok"),
					Err:   rapid.OneOf(rapid.Int64Range(0, 1), anyEdge()).Draw(t, "err"),
					Cap:   anyEdge().Draw(t, "cap"),
					Refil: anyEdge().Draw(t, "refil"),
					Ivl:   anyEdge().Draw(t, "ivl"),
					Maxif: anyEdge().Draw(t, "maxif"),
				},
				Sets:      anyEdge().Draw(t, "sets"),
				Ways:      anyEdge().Draw(t, "ways"),
				TickNanos: anyEdge().Draw(t, "tick_nanos"),
			}
		}
		gate.RetryAfterSeconds(anyEdge().Draw(t, "retry"), anyEdge().Draw(t, "any tick_nanos"))
		g, err := gate.New(c)
		if valid := validGateConfig(c); valid != (err == nil) || (g == nil) != (err != nil) {
			t.Fatalf("New(%+v) = %v, %v; GATE-1 valid = %t", c, g, err, valid)
		}
		if err != nil {
			if !errors.Is(err, gate.ErrConfig) {
				t.Fatalf("New(%+v) error %v does not wrap ErrConfig", c, err)
			}
			return
		}
		for range rapid.IntRange(0, 20).Draw(t, "calls") {
			switch rapid.IntRange(0, 4).Draw(t, "call") {
			case 0:
				g.Admit(ipGen().Draw(t, "ip"), anyEdge().Draw(t, "now"))
			case 1:
				g.Release()
			case 2:
				g.Bucket(ipGen().Draw(t, "ip"), anyEdge().Draw(t, "read now"))
			case 3:
				g.SetOf(ipGen().Draw(t, "ip"))
			case 4:
				g.WayOf(ipGen().Draw(t, "ip"))
			}
		}
		_ = g.InFlight()
		_ = g.Config()
	})
}
