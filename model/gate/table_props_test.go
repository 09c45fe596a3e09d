package gate_test

import (
	"math"
	"math/big"
	"testing"

	"pgregory.net/rapid"

	"github.com/limcheck/limcheck/model/gate"
	"github.com/limcheck/limcheck/model/lim"
)

// floodIPs are eight addresses of distinct keys (97..104): with 1..3 sets of
// 1..3 ways they overfill sets, so that ways are reused and evicted.
var floodIPs = []string{"a", "b", "c", "d", "e", "f", "g", "h"}

// tableConfigGen draws a valid gate config with a small table (1..3 sets of
// 1..3 ways, sometimes ways MaxInt64: no eviction) and small buckets, so
// that eight keys fill, forget and evict ways within a short run.
func tableConfigGen() *rapid.Generator[gate.Config] {
	return rapid.Custom(func(t *rapid.T) gate.Config {
		return gate.Config{
			Lim: lim.NewConfig(
				rapid.OneOf(rapid.Int64Range(1, 4), posEdge()).Draw(t, "cap"),
				rapid.OneOf(rapid.Int64Range(1, 3), posEdge()).Draw(t, "refil"),
				rapid.OneOf(rapid.Int64Range(1, 12), posEdge()).Draw(t, "ivl"),
				rapid.OneOf(rapid.Int64Range(1, 3), rapid.Just[int64](maxT)).Draw(t, "maxif"),
			),
			Sets:      rapid.Int64Range(1, 3).Draw(t, "sets"),
			Ways:      rapid.OneOf(rapid.Int64Range(1, 3), rapid.Just[int64](maxT)).Draw(t, "ways"),
			TickNanos: tickGen().Draw(t, "tick_nanos"),
			Seed:      seedGen().Draw(t, "seed"),
		}
	})
}

// upGen draws a tick >= prev: a repeat, whole steps +-1, or any later tick.
func upGen(prev, ivl int64) *rapid.Generator[int64] {
	return rapid.OneOf(
		rapid.Just(prev),
		rapid.SampledFrom([]int64{addAt(prev, 1), addAt(prev, ivl-1), addAt(prev, ivl), addAt(addAt(prev, ivl), 1), addAt(addAt(prev, ivl), ivl)}),
		rapid.Int64Range(prev, maxT),
	)
}

// readAll returns Bucket(ip, now) of every flood address.
func readAll(g *gate.Gate, now int64) keyState {
	ips := map[string]bool{}
	for _, ip := range floodIPs {
		ips[ip] = true
	}
	return snapshot(g, ips, now)
}

// TestProp23NoKeyDrainsAnother checks PROP-23: no key drains another's
// bucket: an admit changes no bucket but the admitted key's (another key's
// read is unchanged, or untouched when its way was reused or evicted), and
// a key's bucket read is always untouched or exactly the bucket its own
// last take left.
func TestProp23NoKeyDrainsAnother(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := tableConfigGen().Draw(t, "config")
		g := mustNew(t, c)
		own := map[string]lim.Bucket{} // the bucket each key's last take left
		now := anyEdge().Draw(t, "start")
		t.Repeat(map[string]func(*rapid.T){
			"admit": func(t *rapid.T) {
				ip := rapid.SampledFrom(floodIPs).Draw(t, "ip")
				now = nowGen(now, c.Lim.Ivl).Draw(t, "now")
				read := anyEdge().Draw(t, "read at")
				before := readAll(g, read)
				d := g.Admit(ip, now)
				b, ok := g.Bucket(ip, now)
				switch {
				case d.Verdict != gate.Shed && d.Way != gate.NoWay:
					if !ok {
						t.Fatalf("Admit(%q, %d) = %s, then Bucket(%q, %d) untouched", ip, now, show(d), ip, now)
					}
					own[ip] = b
				case d.Verdict == gate.Limited && ok: // a refused eviction (GATE-19) takes nothing
					t.Fatalf("Admit(%q, %d) = %s, then Bucket(%q, %d) = %+v, want untouched", ip, now, show(d), ip, now, b)
				}
				for other, after := range readAll(g, read) {
					if other != ip && after.Touched && after != before[other] {
						t.Fatalf("Admit(%q, %d) changed Bucket(%q, %d): %+v -> %+v", ip, now, other, read, before[other], after)
					}
				}
			},
			"release": func(t *rapid.T) { g.Release() },
			"": func(t *rapid.T) {
				read := anyEdge().Draw(t, "check at")
				for ip, s := range readAll(g, read) {
					if s.Touched && s.B != own[ip] {
						t.Fatalf("Bucket(%q, %d) = %+v, but its own last take left %+v", ip, read, s.B, own[ip])
					}
				}
			},
		})
	})
}

// TestProp24EvictionNeverLowersTokensOnReturn checks PROP-24: eviction
// never lowers a key's tokens on return: a key that lost its way and is
// admitted again takes from cap tokens (it passes and leaves {cap-1, now}),
// at least the tks' its dropped bucket would have refilled to at that now.
// A return whose eviction the set's budget refuses (GATE-19) takes from no
// bucket: it is limited with no way, and the key returns later.
func TestProp24EvictionNeverLowersTokensOnReturn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := tableConfigGen().Draw(t, "config")
		c.Lim.Maxif = maxT // no shed: every return takes
		g := mustNew(t, c)
		own := map[string]lim.Bucket{}
		now := anyEdge().Draw(t, "start")
		returns := 0
		for range rapid.IntRange(1, 60).Draw(t, "admits") {
			ip := rapid.SampledFrom(floodIPs).Draw(t, "ip")
			now = nowGen(now, c.Lim.Ivl).Draw(t, "now")
			dropped, seen := own[ip]
			_, _, held := g.WayOf(ip)
			d := g.Admit(ip, now)
			b, _ := g.Bucket(ip, now)
			if d.Way == gate.NoWay { // the set's budget refused the eviction (GATE-19): no take
				if _, _, ok := g.WayOf(ip); d.Verdict != gate.Limited || ok {
					t.Fatalf("Admit(%q, %d) = %s with no way, but WayOf holds it: %t", ip, now, show(d), ok)
				}
				continue
			}
			own[ip] = b
			if !seen || held {
				continue
			}
			returns++
			refilled := lim.Take(dropped, c.Lim, now, c.Lim.Cap).Tks // tks' of the dropped bucket, or 0 when full
			if d.Verdict != gate.Pass || b != (lim.Bucket{Tks: c.Lim.Cap - 1, Last: now}) || c.Lim.Cap < refilled {
				t.Fatalf("Admit(%q, %d) after its way was lost = %s, bucket %+v; want pass from {%d, %d} (dropped %+v refills to %d)",
					ip, now, show(d), b, c.Lim.Cap, now, dropped, refilled)
			}
		}
		_ = returns
	})
}

// TestProp25ForgettingFullBucketsIsLossless checks PROP-25: forgetting full
// buckets is lossless on a clock that does not step back: at non-decreasing
// now, a gate that empties every way whose bucket is full at now before each
// admit gives the same decisions and bucket reads as one that does not.
func TestProp25ForgettingFullBucketsIsLossless(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := tableConfigGen().Draw(t, "config")
		lazy, eager := mustNew(t, c), mustNew(t, c)
		now := anyEdge().Draw(t, "start")
		for range rapid.IntRange(1, 60).Draw(t, "steps") {
			if rapid.IntRange(0, 4).Draw(t, "op") == 0 {
				lazy.Release()
				eager.Release()
				continue
			}
			ip := rapid.SampledFrom(floodIPs).Draw(t, "ip")
			now = upGen(now, c.Lim.Ivl).Draw(t, "now")
			gate.ForgetFull(eager, now)
			if d1, d2 := lazy.Admit(ip, now), eager.Admit(ip, now); d1 != d2 {
				t.Fatalf("Admit(%q, %d): lazy %s, eager %s", ip, now, show(d1), show(d2))
			}
			read := upGen(now, c.Lim.Ivl).Draw(t, "read at")
			if r1, r2 := readAll(lazy, read), readAll(eager, read); !equalStates(r1, r2) {
				t.Fatalf("after Admit(%q, %d), reads at %d differ: lazy %+v, eager %+v", ip, now, read, r1, r2)
			}
		}
	})
}

func equalStates(a, b keyState) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return len(a) == len(b)
}

// evictionCost returns what Admit(ip, now) on g would pay its set's budget
// (GATE-16, GATE-19), read from the gate's exported state: no live bucket
// holds ip's key, every way of its set holds a flood address's key whose
// bucket is not full at now, and the cost is cap - the most tokens one of
// them refills to at now. ok is false when the admit would not evict.
func evictionCost(g *gate.Gate, ip string, now int64) (cost int64, ok bool) {
	c := g.Config()
	if _, held := g.Bucket(ip, now); held {
		return 0, false
	}
	live, most := int64(0), int64(0)
	for _, other := range floodIPs {
		if b, ok := g.Bucket(other, now); ok && g.SetOf(other) == g.SetOf(ip) {
			live++
			most = max(most, lim.Take(b, c.Lim, now, c.Lim.Cap).Tks) // tks' (LIM-10): b is not full
		}
	}
	return c.Lim.Cap - most, live >= c.Ways
}

// budgetBound is cap + refil*floor((now - t0)/ivl): what one bucket of l
// born full at t0 can give up to now.
func budgetBound(l lim.Config, t0, now int64) *big.Int {
	steps := new(big.Int).Quo(new(big.Int).Sub(big.NewInt(now), big.NewInt(t0)), big.NewInt(l.Ivl))
	return steps.Add(steps.Mul(steps, big.NewInt(l.Refil)), big.NewInt(l.Cap))
}

// TestProp26PassesAtMostExactPlusBudgetsPaid checks PROP-26: the flood
// bound: at non-decreasing now, with no shed (maxif MaxInt64 and a release
// after every pass), a gate's passes over a sequence of requests are at most
// the passes of a gate that never evicts (sets 1, ways 2^63-1) on the same
// requests, plus the tokens its sets' budgets paid; and what a set's budget
// pays up to now is at most cap + refil*floor((now - t0)/ivl), t0 the tick
// of the set's first eviction. What a budget pays is computed from the
// gate's exported state ([evictionCost]), not read from the model: an admit
// that evicts pays, and one that is refused (limited with no way) pays
// nothing; an admit that would not evict is never refused.
func TestProp26PassesAtMostExactPlusBudgetsPaid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := tableConfigGen().Draw(t, "config")
		c.Lim.Maxif = maxT
		g := mustNew(t, c)
		exact := mustNew(t, gate.Config{Lim: c.Lim, Sets: 1, Ways: math.MaxInt64, TickNanos: c.TickNanos, Seed: c.Seed})
		now := anyEdge().Draw(t, "start")
		paid, first := map[int64]*big.Int{}, map[int64]int64{} // per set: tokens paid, tick of the first eviction
		total := new(big.Int)
		var passes, exactPasses int64
		for range rapid.IntRange(1, 80).Draw(t, "admits") {
			ip := rapid.SampledFrom(floodIPs).Draw(t, "ip")
			now = upGen(now, c.Lim.Ivl).Draw(t, "now")
			set := g.SetOf(ip)
			cost, evicting := evictionCost(g, ip, now)
			d := g.Admit(ip, now)
			refused := d.Way == gate.NoWay
			switch {
			case refused && !evicting:
				t.Fatalf("Admit(%q, %d) = %s: refused, but it evicts no way", ip, now, show(d))
			case refused && paid[set] == nil:
				t.Fatalf("Admit(%q, %d) = %s: the set's first eviction refused by a budget born full", ip, now, show(d))
			case evicting && !refused:
				if paid[set] == nil {
					paid[set], first[set] = new(big.Int), now
				}
				paid[set].Add(paid[set], big.NewInt(cost))
				total.Add(total, big.NewInt(cost))
				if bound := budgetBound(c.Lim, first[set], now); paid[set].Cmp(bound) > 0 {
					t.Fatalf("after Admit(%q, %d): set %d paid %v since its first eviction at %d, over cap + refil*steps = %v",
						ip, now, set, paid[set], first[set], bound)
				}
			}
			if d.Verdict == gate.Pass {
				passes++
				g.Release()
			}
			if exact.Admit(ip, now).Verdict == gate.Pass {
				exactPasses++
				exact.Release()
			}
			if bound := new(big.Int).Add(big.NewInt(exactPasses), total); big.NewInt(passes).Cmp(bound) > 0 {
				t.Fatalf("after Admit(%q, %d): %d passes, a never-evicting gate %d, budgets paid %v: over %v",
					ip, now, passes, exactPasses, total, bound)
			}
		}
	})
}
