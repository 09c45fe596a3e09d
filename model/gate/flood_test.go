package gate_test

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"

	"github.com/limcheck/limcheck/model/gate"
	"github.com/limcheck/limcheck/model/lim"
)

// floodFull runs TestProp27FloodFull, the README-scale floods that
// BENCHMARKS cites; off, that test is skipped.
var floodFull = flag.Bool("flood.full", false, "run the README-scale scattered floods of PROP-27 (minutes: 6 on a shared 2-core machine)")

// fewPerSet returns the addresses of pool, in order, whose keys keep at
// most c.Ways distinct keys in each set of a gate of c: a key whose set is
// already at Ways is left out.
func fewPerSet(g *gate.Gate, pool []string) []string {
	keys := map[int64]map[int64]bool{} // set -> keys
	var kept []string
	for _, ip := range pool {
		set, k := g.SetOf(ip), lim.IPKey(ip)
		if keys[set] == nil {
			keys[set] = map[int64]bool{}
		}
		if !keys[set][k] && int64(len(keys[set])) >= g.Config().Ways {
			continue
		}
		keys[set][k] = true
		kept = append(kept, ip)
	}
	return kept
}

// TestProp27AtMostWaysKeysPerSetDecideAsNeverEvicting checks the first part
// of PROP-27: for any seed and any requests at non-decreasing now from
// addresses of which at most ways have keys in each set, the gate decides
// exactly as a gate that never evicts (sets 1, ways 2^63-1): the same
// verdict, retry, Retry-After and response, and the same in-flight count
// (the set and way differ by construction).
func TestProp27AtMostWaysKeysPerSetDecideAsNeverEvicting(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := tableConfigGen().Draw(t, "config")
		c.Sets = rapid.OneOf(rapid.Int64Range(1, 4), rapid.Just[int64](64)).Draw(t, "sets")
		g := mustNew(t, c)
		never := mustNew(t, gate.Config{Lim: c.Lim, Sets: 1, Ways: math.MaxInt64, TickNanos: c.TickNanos, Seed: c.Seed})
		pool := fewPerSet(g, rapid.SliceOfN(rapid.OneOf(ipGen(), rapid.SampledFrom(floodIPs)), 1, 12).Draw(t, "addresses"))
		now := anyEdge().Draw(t, "start")
		for range rapid.IntRange(1, 60).Draw(t, "steps") {
			if rapid.IntRange(0, 4).Draw(t, "op") == 0 {
				g.Release()
				never.Release()
				continue
			}
			ip := rapid.SampledFrom(pool).Draw(t, "ip")
			now = upGen(now, c.Lim.Ivl).Draw(t, "now")
			d, want := g.Admit(ip, now), never.Admit(ip, now)
			if d.Verdict != want.Verdict || d.Retry != want.Retry || d.RetryAfter != want.RetryAfter || d.Response != want.Response {
				t.Fatalf("Admit(%q, %d) = %s, a never-evicting gate %s", ip, now, show(d), show(want))
			}
			if d.Verdict != gate.Shed && d.Way == gate.NoWay {
				t.Fatalf("Admit(%q, %d) = %s: a refused eviction with at most %d keys a set", ip, now, show(d), c.Ways)
			}
			if g.InFlight() != never.InFlight() {
				t.Fatalf("after Admit(%q, %d): InFlight() = %d, a never-evicting gate %d", ip, now, g.InFlight(), never.InFlight())
			}
		}
	})
}

// floodResult is what a scattered flood did: passes through the gate, the
// exact per-key passes (every key its own bucket, never evicted), the
// admits the set's budget refused (GATE-19), the keys and the sets that hold
// more than ways of them (O of PROP-27).
type floodResult struct {
	passes, exact, refusals, requests int64
	keys, overflowing                 int64
}

// floodAddrs returns n addresses with distinct keys: consecutive IPv4
// addresses from 100.64.0.0, as a flood's author would pick them, skipping
// any whose key an earlier one has (FIND-2).
func floodAddrs(n int) []string {
	seen := map[int64]bool{}
	var ips []string
	for i := uint32(0); len(ips) < n; i++ {
		ip := fmt.Sprintf("100.%d.%d.%d", 64+i>>16, i>>8&0xff, i&0xff)
		if k := lim.IPKey(ip); !seen[k] {
			seen[k] = true
			ips = append(ips, ip)
		}
	}
	return ips
}

// flood sends, at each tick 0..ticks-1, one request from each of n
// addresses in an order shuffled by rng, through a gate of c; every pass is
// released at once, so nothing is shed. The exact per-key passes are n times
// a lone key's: every key sends the same requests and has its own bucket.
func flood(t testing.TB, c gate.Config, n int, ticks int64, rng *rand.Rand) floodResult {
	t.Helper()
	g, lone := mustNew(t, c), mustNew(t, c)
	ips := floodAddrs(n)
	r := floodResult{keys: int64(n)}
	perSet := map[int64]int64{}
	for _, ip := range ips {
		perSet[g.SetOf(ip)]++
	}
	for _, m := range perSet {
		if m > c.Ways {
			r.overflowing++
		}
	}
	for now := range ticks {
		if lone.Admit("lone", now).Verdict == gate.Pass {
			r.exact += int64(n)
			lone.Release()
		}
		rng.Shuffle(len(ips), func(i, j int) { ips[i], ips[j] = ips[j], ips[i] })
		for _, ip := range ips {
			d := g.Admit(ip, now)
			r.requests++
			switch {
			case d.Verdict == gate.Pass:
				r.passes++
				g.Release()
			case d.Verdict == gate.Limited && d.Way == gate.NoWay:
				r.refusals++
			}
		}
	}
	return r
}

// checkFlood fails unless r keeps PROP-27's bound: passes <= exact +
// O*(cap + refil*floor(T/ivl)).
func checkFlood(t testing.TB, c gate.Config, ticks int64, r floodResult) {
	t.Helper()
	gain := r.overflowing * (c.Lim.Cap + c.Lim.Refil*(ticks/c.Lim.Ivl))
	if r.passes > r.exact+gain {
		t.Errorf("%d addresses, %d sets of %d ways, %d ticks: %d passes, exact %d + %d overflowing sets * %d = %d",
			r.keys, c.Sets, c.Ways, ticks, r.passes, r.exact, r.overflowing, gain/max(r.overflowing, 1), r.exact+gain)
	}
}

// floodConfig is the README's gate (burst 20, a token per 10 ticks of 0.1 s)
// with sets of ways and a seed drawn from rng.
func floodConfig(sets, ways int64, rng *rand.Rand) gate.Config {
	var seed gate.Seed
	for i := range seed {
		seed[i] = byte(rng.Uint32())
	}
	return gate.Config{Lim: lim.NewConfig(20, 1, 10, 512), Sets: sets, Ways: ways, TickNanos: 100_000_000, Seed: seed}
}

// TestProp27ScatteredFloodGainsAtMostOneBucketPerOverflowingSet checks the
// second part of PROP-27, the flood gain: n addresses, each sending one
// request a tick (ten times its refill rate) for T = 100 ticks in a random
// order, every pass released at once, through 256 sets of 4 ways under a
// random seed, pass at most the exact per-key passes plus O * (cap + refil *
// floor(T / ivl)), O the number of sets holding more than 4 of their keys.
// n = 512 is half the table, n = 1024 all of it. The seeds come from a
// fixed PCG, so a failure reproduces.
func TestProp27ScatteredFloodGainsAtMostOneBucketPerOverflowingSet(t *testing.T) {
	for i, n := range []int{512, 1024} {
		rng := rand.New(rand.NewPCG(27, uint64(i)))
		c := floodConfig(256, 4, rng)
		r := flood(t, c, n, 100, rng)
		checkFlood(t, c, 100, r)
		if r.overflowing == 0 {
			t.Errorf("n %d: no set overflows under seed %s: the case does not exercise the gain", n, c.Seed)
		}
		t.Logf("n %d, seed %s: %d passes / %d exact = %.4f, %d of 256 sets overflow, %d budget refusals",
			n, c.Seed, r.passes, r.exact, float64(r.passes)/float64(r.exact), r.overflowing, r.refusals)
	}
}

// TestProp27FloodFull measures PROP-27's flood gain at the README's scale
// (DEC-57's figures): the README's lim config (cap 20, refil 1, ivl 10
// ticks of 0.1 s), each address one request a tick in a random order for
// 240 ticks (24 s), every pass released at once, a random seed; it logs
// passes / exact and the budget refusals, and checks PROP-27's bound. It
// is skipped unless -flood.full is given (it takes minutes); the seeds and
// orders come from a fixed PCG, so its figures reproduce:
//
//	go test ./model/gate -run TestProp27FloodFull -flood.full -v -timeout 30m
func TestProp27FloodFull(t *testing.T) {
	if !*floodFull {
		t.Skip("the README-scale floods run with -flood.full")
	}
	const ticks = 240
	for i, tc := range []struct {
		sets, ways int64
		n          int
	}{
		{16384, 4, 8},
		{16384, 4, 400},
		{16384, 4, 32768},
		{8192, 8, 32768},
		{4096, 16, 32768},
		{16384, 4, 65536},
	} {
		t.Run(fmt.Sprintf("%dx%d/n=%d", tc.sets, tc.ways, tc.n), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(57, uint64(i)))
			c := floodConfig(tc.sets, tc.ways, rng)
			r := flood(t, c, tc.n, ticks, rng)
			checkFlood(t, c, ticks, r)
			t.Logf("%d sets x %d ways, %d addresses, seed %s: %d passes / %d exact = %.4f; %d of %d requests refused by a budget; %d sets overflow",
				tc.sets, tc.ways, tc.n, c.Seed, r.passes, r.exact, float64(r.passes)/float64(r.exact), r.refusals, r.requests, r.overflowing)
		})
	}
}
