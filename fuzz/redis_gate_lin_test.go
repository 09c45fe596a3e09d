//go:build !fuzzsmoke

package fuzz

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	ilim "github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisgate"
	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/limcheck/limcheck/internal/slowdown"
	"github.com/limcheck/limcheck/internal/subject"
	mgate "github.com/limcheck/limcheck/model/gate"
	"github.com/limcheck/limcheck/oracle"
	"github.com/redis/rueidis"
)

// newLinRedisGate is the linearizability checks' gate on Redis over client
// c, named name: the config of linGateModel (linGateSets sets of linGateWays
// ways), its seed included.
func newLinRedisGate(t *testing.T, c rueidis.Client, name string, maxif int64, lease time.Duration) *redisgate.Gate {
	t.Helper()
	linRedisGateSeed := [16]byte(newLinGateMachine(maxif)().(linGateMachine).g.Config().Seed)
	g, err := redisgate.New(redisgate.Config{Client: c, Name: name, Lim: ilim.NewConfig(linGateCap, linGateRefil, linGateIvl, maxif),
		Sets: linGateSets, Ways: linGateWays, TickNanos: linGateTickNanos, LeaseTTL: lease, TTLMargin: time.Hour,
		Seed: &linRedisGateSeed})
	if err != nil {
		t.Fatalf("redisgate.New: %v", err)
	}
	return g
}

// linRedisGateClient is linGateClient for a Redis gate: admits from the
// address pool at the shared clock, releases of its own passes, in_flight
// and bucket reads; at the end it releases what it still holds. An error
// of the gate fails the test (the server is healthy here).
func linRedisGateClient(t *testing.T, g *redisgate.Gate, clock *linClock, n int) func(*linClient, *rand.Rand) {
	return func(c *linClient, rng *rand.Rand) {
		var held []redisgate.Decision
		must := func(err error) {
			if err != nil {
				t.Error(err)
			}
		}
		release := func(d redisgate.Decision) {
			linDo(c, linGateIn{kind: oracle.Release}, func() linGateOut { must(g.Release(d)); return linGateOut{} })
		}
		for range n {
			switch r := rng.IntN(100); {
			case len(held) > 0 && r < 30:
				release(held[0])
				held = held[1:]
			case r < 36:
				linDo(c, linGateIn{kind: oracle.InFlight}, func() linGateOut {
					n, err := g.InFlight()
					must(err)
					return linGateOut{N: n}
				})
			case r < 42:
				in := linGateIn{kind: oracle.Bucket, ip: linGateIPs[rng.IntN(len(linGateIPs))], now: clock.next(rng)}
				linDo(c, in, func() linGateOut {
					b, ok, err := g.Bucket(in.ip, in.now)
					must(err)
					return linBucketOut(ok, b.Tks, b.Last)
				})
			default:
				ip, now := linGateIPs[rng.IntN(len(linGateIPs))], clock.next(rng)
				var d redisgate.Decision
				linDo(c, linGateIn{kind: oracle.Admit, ip: ip, now: now}, func() linGateOut {
					var err error
					d, err = g.Admit(ip, now)
					must(err)
					return linGateOut{Verdict: d.Verdict.String(), Set: d.Set, Way: d.Way, Retry: d.Retry, RetryAfter: d.RetryAfter, Response: string(d.AppendResponse(nil))}
				})
				if d.Verdict.String() == string(mgate.Pass) {
					held = append(held, d)
				}
			}
			if rng.IntN(3) == 0 {
				runtime.Gosched()
			}
		}
		for _, d := range held {
			release(d)
		}
	}
}

// TestLinRedisGateAdmitReleaseIsLinearizable checks that concurrent
// histories of four nodes, each with its own connection and its own
// redisgate.Gate over one gate name, are linearizable with respect to
// model/gate: they admit from addresses that share sets at a clock that
// also steps back, release their passes (leases) and read in_flight and
// buckets, and some order of all the operations consistent with real time
// makes model/gate return every decision (verdict, set, way, retry,
// Retry-After, response), count and bucket the Redis gate returned. maxif
// varies by round; the histories must pass, shed and limit. The nodes
// supply now (DIST-1) from a shared clock that steps back.
func TestLinRedisGateAdmitReleaseIsLinearizable(t *testing.T) {
	srv, r := sharedRedis(t)
	clients := linRedisClients(t, srv.Addr())
	seen := map[string]int{}
	for round := range redisLinRounds() {
		maxif := linGateMaxifs[round%len(linGateMaxifs)]
		name := r.Namespace()
		gs := make([]*redisgate.Gate, len(clients))
		for i, c := range clients {
			gs[i] = newLinRedisGate(t, c, name, maxif, time.Hour)
		}
		clock := new(linClock)
		h := linRun(linClients, linSeed(t.Name(), round), func(c *linClient, rng *rand.Rand) {
			linRedisGateClient(t, gs[c.id], clock, linOpsPerClient)(c, rng)
		})
		linRequire(t, linGateModel(maxif), h, fmt.Sprintf("redis gate history %d (maxif %d)", round, maxif))
		linTally(seen, h, linGateVerdict)
	}
	linRequireSeen(t, seen, string(mgate.Pass), string(mgate.Shed), string(mgate.Limited))
}

// TestRedisGateLeaseExpiryIsARelease checks DIST-3 and DIST-4: a pass that
// is never released holds its place until its lease expires and then no
// longer counts in flight; releasing it afterwards, or releasing a pass
// twice, or a decision that did not pass, takes no other request's place.
func TestRedisGateLeaseExpiryIsARelease(t *testing.T) {
	_, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	g := newLinRedisGate(t, c, r.Namespace(), 2, 300*time.Millisecond)
	crashed, err := g.Admit("a", 0) // a node that dies without releasing
	if err != nil || crashed.Verdict.String() != "pass" {
		t.Fatalf("Admit = %+v, %v; want pass", crashed, err)
	}
	inflight := func(want int64, when string) {
		t.Helper()
		if n, err := g.InFlight(); err != nil || n != want {
			t.Fatalf("%s: in flight %d (%v), want %d", when, n, err, want)
		}
	}
	inflight(1, "after the pass")
	deadline := time.Now().Add(slowdown.Scale(10 * time.Second))
	for n, _ := g.InFlight(); n != 0; n, _ = g.InFlight() { // the Redis clock runs the lease out
		if time.Now().After(deadline) {
			t.Fatalf("the lease of a pass never released did not expire")
		}
		time.Sleep(50 * time.Millisecond)
	}
	live, err := g.Admit("b", 0)
	if err != nil || live.Verdict.String() != "pass" {
		t.Fatalf("Admit = %+v, %v; want pass", live, err)
	}
	live2, _ := g.Admit("b", 0) // the second place of maxif 2
	shed, _ := g.Admit("c", 0)
	if live2.Verdict.String() != "pass" || shed.Verdict.String() != "shed" {
		t.Fatalf("Admits = %+v, %+v; want pass, shed", live2, shed)
	}
	for _, d := range []redisgate.Decision{crashed, crashed, shed} {
		if err := g.Release(d); err != nil {
			t.Fatal(err)
		}
	}
	inflight(2, "after releasing an expired lease twice and a shed decision")
	for range 2 {
		if err := g.Release(live); err != nil {
			t.Fatal(err)
		}
	}
	inflight(1, "after releasing a pass twice")
	if err := g.Release(live2); err != nil {
		t.Fatal(err)
	}
	inflight(0, "after releasing a pass twice")
}

// TestRedisGateSurvivesKill9 checks DIST-7 for the gate: every admit
// acknowledged before a kill -9 of redis-server (buckets and leases) is
// there after the restart from the append-only file; admits while it is down
// fail with an error, not a decision; after the restart the admit script
// runs again (NOSCRIPT, then EVAL) and the decisions go on equal to the
// model's.
func TestRedisGateSurvivesKill9(t *testing.T) {
	srv := redistest.Start(t)
	c, err := subject.NewClient(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	g := newLinRedisGate(t, c, "kill9", 3, time.Hour)
	m := newLinGateMachine(3)()
	step := func(ip string, now int64) {
		t.Helper()
		want := m.apply(linGateIn{kind: oracle.Admit, ip: ip, now: now})
		d, err := g.Admit(ip, now)
		if err != nil {
			t.Fatalf("Admit(%q, %d): %v", ip, now, err)
		}
		got := linGateOut{Verdict: d.Verdict.String(), Set: d.Set, Way: d.Way, Retry: d.Retry, RetryAfter: d.RetryAfter, Response: string(d.AppendResponse(nil))}
		if got != want {
			t.Fatalf("Admit(%q, %d) = %+v, model %+v", ip, now, got, want)
		}
	}
	step("a", 0)
	step("a", 1)
	step("b", 1)
	srv.Kill()
	if _, err := g.Admit("a", 2); !errors.Is(err, redisgate.ErrUnavailable) && !errors.Is(err, redisgate.ErrIndeterminate) {
		t.Fatalf("Admit while down = %v, want ErrUnavailable or ErrIndeterminate", err)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	if n, err := g.InFlight(); err != nil || n != m.apply(linGateIn{kind: oracle.InFlight}).N {
		t.Fatalf("in flight after the restart %d (%v), model %d", n, err, m.apply(linGateIn{kind: oracle.InFlight}).N)
	}
	step("a", 2) // "a" is limited: its two tokens went before the kill
	step("c", 3)
	step("b", 3)
}
