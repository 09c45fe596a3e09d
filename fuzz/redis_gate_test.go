//go:build !fuzzsmoke

package fuzz

// The Redis gate against the model, in its production layout and on small
// tables that evict and spend their budgets, with its own edge-biased draws
// of configs, seeds and times.

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	ilim "github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisgate"
	mgate "github.com/limcheck/limcheck/model/gate"
	mlim "github.com/limcheck/limcheck/model/lim"
	"github.com/redis/rueidis"
	"pgregory.net/rapid"
)

// edgeInt64 draws an int64, half the time from the edges.
func redisEdgeInt64() *rapid.Generator[int64] {
	edges := []int64{math.MinInt64, math.MinInt64 + 1, -1 << 53, -3, -2, -1, 0, 1, 2, 3, 7, 1 << 31, 1<<32 + 1, 1<<53 + 1, 1 << 62, math.MaxInt64 - 1, math.MaxInt64}
	return rapid.OneOf(rapid.SampledFrom(edges), rapid.Int64(), rapid.Int64Range(-1000, 1000))
}

func redisEdgePositive() *rapid.Generator[int64] {
	edges := []int64{1, 2, 3, 7, 10, 1<<31 - 1, 1<<32 + 1, 1<<53 + 1, 1 << 62, math.MaxInt64 - 1, math.MaxInt64}
	return rapid.OneOf(rapid.SampledFrom(edges), rapid.Int64Range(1, math.MaxInt64), rapid.Int64Range(1, 20))
}

var redisGateIPs = []string{"10.0.0.1", "10.0.0.2", "::1", "192.168.1.1", "2001:db8::1"}

// redisGateCrowd is a pool of addresses for small tables: more keys than
// a set of a few ways holds, so that they evict and spend the budget.
var redisGateCrowd = []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "::1", "192.168.1.1", "2001:db8::1", "2001:db8::2", "a", "b"}

// redisTestSeed is the seed of the Redis gates no model checks: any seed
// will do, and a fixed one replays.
var redisTestSeed = [16]byte{0x6c, 0x69, 0x6d, 0x63, 0x68, 0x65, 0x63, 0x6b, 1, 2, 3, 4, 5, 6, 7, 8}

// redisGateRig is a Redis gate and the model gate opened on one config and
// one seed.
type redisGateRig struct {
	r      *redisgate.Gate
	m      *mgate.Gate
	ips    []string             // the addresses the reads check
	passes []redisgate.Decision // outstanding passes, oldest first
	tick   int64
	trace  []string
}

var redisGateSeq int

// redisDrawSeed draws a seed: the zero seed, all ones, or any.
func redisDrawSeed(t *rapid.T) mgate.Seed {
	var s mgate.Seed
	switch rapid.IntRange(0, 3).Draw(t, "seed kind") {
	case 0:
	case 1:
		for i := range s {
			s[i] = 0xff
		}
	default:
		copy(s[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "seed"))
	}
	return s
}

// openRedisGateRig opens both gates on a drawn lim config, tick and seed,
// with sets and ways given, the Redis gate in mode (in Spread, on a drawn
// number of slabs).
func openRedisGateRig(t *rapid.T, c rueidis.Client, mode redisgate.Mode, sets, ways int64, ips []string) *redisGateRig {
	cap, refil, ivl := redisEdgePositive().Draw(t, "cap"), redisEdgePositive().Draw(t, "refil"), redisEdgePositive().Draw(t, "ivl")
	maxif := rapid.SampledFrom([]int64{1, 2, 3, math.MaxInt64}).Draw(t, "maxif")
	tick := redisEdgePositive().Draw(t, "tick_nanos")
	seed := redisDrawSeed(t)
	mc := mgate.Config{Lim: mlim.NewConfig(cap, refil, ivl, maxif), Sets: sets, Ways: ways, TickNanos: tick, Seed: seed}
	m, err := mgate.New(mc)
	if err != nil {
		t.Skipf("config refused: %v", err)
	}
	redisGateSeq++
	rs := [16]byte(seed)
	var slabs int64
	if mode == redisgate.Spread {
		slabs = rapid.SampledFrom([]int64{0, 1, 2, 3, redisgate.DefaultSlabs}).Filter(func(n int64) bool { return n <= sets }).Draw(t, "slabs")
	}
	g, err := redisgate.New(redisgate.Config{Client: c, Name: fmt.Sprint("pk", redisGateSeq), Lim: ilim.NewConfig(cap, refil, ivl, maxif),
		Sets: sets, Ways: ways, TickNanos: tick, LeaseTTL: time.Hour, TTLMargin: time.Hour, Seed: &rs, Mode: mode, Slabs: slabs})
	if err != nil {
		t.Fatalf("redisgate.New: %v", err)
	}
	return &redisGateRig{r: g, m: m, ips: ips, tick: tick}
}

func (g *redisGateRig) fail(t *rapid.T, format string, args ...any) {
	t.Helper()
	t.Fatalf("%s\nafter:\n%s", fmt.Sprintf(format, args...), redisJoinLines(g.trace))
}

func redisJoinLines(s []string) string {
	out := ""
	for _, l := range s {
		out += "  " + l + "\n"
	}
	return out
}

func (g *redisGateRig) admit(t *rapid.T, ip string, now int64) {
	g.trace = append(g.trace, fmt.Sprintf("admit(%q, %d)", ip, now))
	want := g.m.Admit(ip, now)
	got, err := g.r.Admit(ip, now)
	if err != nil {
		g.fail(t, "Admit: %v", err)
	}
	if got.Verdict.String() != string(want.Verdict) || got.Set != want.Set || got.Way != want.Way || got.Retry != want.Retry ||
		got.RetryAfter != want.RetryAfter || string(got.AppendResponse(nil)) != want.Response {
		g.fail(t, "admit(%q, %d) = %+v, model %+v", ip, now, got, want)
	}
	if got.Verdict != gate.Shed {
		// A refused eviction (GATE-19) leaves the key no way: no bucket.
		mb, ok := g.m.Bucket(ip, now)
		if ok != (want.Way != mgate.NoWay) || mb.Tks != got.Bucket.Tks || mb.Last != got.Bucket.Last {
			g.fail(t, "admit(%q, %d) left bucket %+v, model %+v (%v)", ip, now, got.Bucket, mb, ok)
		}
	}
	if got.Verdict == gate.Pass {
		g.passes = append(g.passes, got)
	}
}

func (g *redisGateRig) release(t *rapid.T) {
	if len(g.passes) == 0 {
		return
	}
	g.trace = append(g.trace, "release()")
	if err := g.r.Release(g.passes[0]); err != nil {
		g.fail(t, "Release: %v", err)
	}
	g.passes = g.passes[1:]
	g.m.Release()
}

func (g *redisGateRig) check(t *rapid.T, now int64) {
	n, err := g.r.InFlight()
	if err != nil || n != g.m.InFlight() {
		g.fail(t, "in-flight %d (%v), model %d", n, err, g.m.InFlight())
	}
	for _, ip := range g.ips {
		b, ok, err := g.r.Bucket(ip, now)
		mb, mok := g.m.Bucket(ip, now)
		if err != nil || ok != mok || b.Tks != mb.Tks || b.Last != mb.Last {
			g.fail(t, "bucket(%q, %d) = %+v %v (%v), model %+v %v", ip, now, b, ok, err, mb, mok)
		}
	}
}

// TestPropRedisGatePerKeyEqualsModel checks the property that the Redis
// gate in its production layout (sets 2^63-1, ways 1: two keys share a set
// only when their SipHashes agree mod sets, DIST-2) gives spec 3.0's model
// gate of the same config and seed its decisions (set and way included),
// responses, in-flight counts and per-key buckets for every sequential
// history of admits from a few addresses at times that step forward, back
// and to the int64 edges, releases of outstanding passes, and reads; over
// lim configs, ticks and seeds drawn with edge values.
func TestPropRedisGatePerKeyEqualsModel(t *testing.T) {
	redisGateMachine(t, func(t *rapid.T, r rueidis.Client) *redisGateRig {
		return openRedisGateRig(t, r, redisgate.Exact, math.MaxInt64, 1, redisGateIPs)
	})
}

// TestPropRedisGatePerKeySpreadEqualsModel is
// TestPropRedisGatePerKeyEqualsModel in the Spread layout, over 1, 2, 3
// or the default number of slabs: in-flight counted by the gate's process,
// and still the model's decisions, counts and buckets.
func TestPropRedisGatePerKeySpreadEqualsModel(t *testing.T) {
	redisGateMachine(t, func(t *rapid.T, r rueidis.Client) *redisGateRig {
		return openRedisGateRig(t, r, redisgate.Spread, math.MaxInt64, 1, redisGateIPs)
	})
}

// TestPropRedisGateSmallTableEqualsModel is TestPropRedisGatePerKeyEqualsModel
// on tables of 1 to 3 sets of 1 to 3 ways and more addresses than they
// hold: keys evict one another, the sets' budgets pay and refuse (GATE-16,
// GATE-19), and the decisions, ways, retries and buckets must still be
// the model's.
func TestPropRedisGateSmallTableEqualsModel(t *testing.T) {
	redisGateMachine(t, func(t *rapid.T, r rueidis.Client) *redisGateRig {
		sets, ways := rapid.Int64Range(1, 3).Draw(t, "sets"), rapid.Int64Range(1, 3).Draw(t, "ways")
		return openRedisGateRig(t, r, redisgate.Exact, sets, ways, redisGateCrowd)
	})
}

// TestPropRedisGateSmallTableSpreadEqualsModel is
// TestPropRedisGateSmallTableEqualsModel in the Spread layout: several sets
// share a slab's hash (one field each, with its budget beside it), and
// evictions, budgets and refusals must still be the model's.
func TestPropRedisGateSmallTableSpreadEqualsModel(t *testing.T) {
	redisGateMachine(t, func(t *rapid.T, r rueidis.Client) *redisGateRig {
		sets, ways := rapid.Int64Range(1, 3).Draw(t, "sets"), rapid.Int64Range(1, 3).Draw(t, "ways")
		return openRedisGateRig(t, r, redisgate.Spread, sets, ways, redisGateCrowd)
	})
}

// redisGateMachine runs the state machine of admits, releases and reads
// on the rig open returns.
func redisGateMachine(t *testing.T, open func(*rapid.T, rueidis.Client) *redisGateRig) {
	_, sr := sharedRedis(t)
	r, err := sr.Client()
	if err != nil {
		t.Fatal(err)
	}
	checkRedis(t, func(t *rapid.T) {
		g := open(t, r)
		now := redisEdgeInt64().Draw(t, "start")
		t.Repeat(map[string]func(*rapid.T){
			"admit": func(t *rapid.T) {
				switch rapid.IntRange(0, 4).Draw(t, "how") {
				case 0:
					now = redisEdgeInt64().Draw(t, "now")
				case 1:
					now -= rapid.Int64Range(0, 3).Draw(t, "back")
				default:
					d := rapid.Int64Range(0, 50).Draw(t, "step")
					if now <= math.MaxInt64-d {
						now += d
					}
				}
				g.admit(t, rapid.SampledFrom(g.ips).Draw(t, "ip"), now)
			},
			"release": func(t *rapid.T) { g.release(t) },
			"":        func(t *rapid.T) { g.check(t, now) },
		})
	})
}
