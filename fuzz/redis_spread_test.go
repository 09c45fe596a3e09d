//go:build !fuzzsmoke

package fuzz

// The Redis gate's Spread layout where it differs from Exact: in-flight
// counted per node in memory, the slab's TTL and its sweep, and the fault
// rule without leases. The checks the Lua mutants of lua/spread.lua must
// fail (redisSpreadTTL, redisSpreadSweep) run on their own here too.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	ilim "github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisgate"
	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/limcheck/limcheck/internal/slowdown"
	mgate "github.com/limcheck/limcheck/model/gate"
	mlim "github.com/limcheck/limcheck/model/lim"
	"github.com/redis/rueidis"
)

// spreadGate is a Spread gate named name over c on one slab, Sets
// MaxInt64, Ways 1, with lim config l, ticks of tick ns and margin.
func spreadGate(c rueidis.Client, name string, l ilim.Config, tick int64, margin time.Duration) (*redisgate.Gate, error) {
	seed := redisTestSeed
	return redisgate.New(redisgate.Config{Client: c, Name: name, Lim: l, Sets: math.MaxInt64, Ways: 1, TickNanos: tick,
		TTLMargin: margin, Timeout: slowdown.Scale(2 * time.Second), Seed: &seed, Mode: redisgate.Spread, Slabs: 1})
}

// slab0 is the key of slab 0 of the Spread gate named name.
func slab0(name string) string { return "{lim:" + name + ":0}" }

// TestRedisGateSpreadInFlightIsPerNode checks Spread's in-flight count
// (spec DIST-10):
// two gates of one name on one server (two nodes) each shed at their own
// maxif (2), with no Redis trip (the first node's connects are refused
// then); Release is in memory, and releasing a pass twice, a decision that
// did not pass or another node's pass gives back no other place (DIST-4).
func TestRedisGateSpreadInFlightIsPerNode(t *testing.T) {
	srv, r := sharedRedis(t)
	p := redistest.NewProxy(t, srv.Addr())
	ca, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{p.Addr()}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close()
	cb, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	name, l := r.Namespace(), ilim.NewConfig(10, 1, 1, 2)
	a, errA := spreadGate(ca, name, l, 1, time.Hour)
	b, errB := spreadGate(cb, name, l, 1, time.Hour)
	if err := errors.Join(errA, errB); err != nil {
		t.Fatal(err)
	}
	admit := func(g *redisgate.Gate, node, ip string, want gate.Verdict) redisgate.Decision {
		t.Helper()
		d, err := g.Admit(ip, 0)
		if err != nil || d.Verdict != want {
			t.Fatalf("node %s: Admit(%s, 0) = %v, %v; want %v", node, ip, d.Verdict, err, want)
		}
		return d
	}
	inFlight := func(g *redisgate.Gate, node string, want int64) {
		t.Helper()
		if n, err := g.InFlight(); err != nil || n != want {
			t.Fatalf("node %s: InFlight() = %d, %v; want %d", node, n, err, want)
		}
	}
	a1, _ := admit(a, "a", "1", gate.Pass), admit(a, "a", "2", gate.Pass)
	if err := p.SetMode(redistest.Refuse); err != nil {
		t.Fatal(err)
	}
	admit(a, "a", "3", gate.Shed) // at maxif: no Redis trip
	b1, _ := admit(b, "b", "1", gate.Pass), admit(b, "b", "2", gate.Pass)
	admit(b, "b", "3", gate.Shed)
	inFlight(a, "a", 2)
	inFlight(b, "b", 2)
	for range 2 {
		if err := a.Release(a1); err != nil {
			t.Fatalf("node a: Release = %v, want nil (in memory)", err)
		}
	}
	_ = a.Release(b1)                            // another node's pass
	_ = a.Release(redisgate.Decision{})          // not a pass
	_ = b.Release(admit(b, "b", "4", gate.Shed)) // a shed
	inFlight(a, "a", 1)
	inFlight(b, "b", 2)
}

// TestRedisGateSpreadAmbiguousIsIndeterminateAtOnce checks Spread's fault
// rule (DIST-5): an admit whose reply is lost (the script ran: the key's
// token is spent) is ErrIndeterminate with no retry, though a retry would
// have reached the server, and its node's place is given back.
func TestRedisGateSpreadAmbiguousIsIndeterminateAtOnce(t *testing.T) {
	srv, r := sharedRedis(t)
	p := redistest.NewProxy(t, srv.Addr())
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{p.Addr()}, DisableCache: true,
		PipelineMultiplex: -1, Dialer: net.Dialer{KeepAlive: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	g, err := spreadGate(c, r.Namespace(), ilim.NewConfig(10, 1, 1, 1), 1, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := g.Admit("b", 0); err != nil || d.Verdict != gate.Pass { // the script loaded, the connection up
		t.Fatalf("Admit(b, 0) = %v, %v; want pass", d.Verdict, err)
	}
	_ = g.Release(redisgate.Decision{})
	if n, _ := g.InFlight(); n != 1 {
		t.Fatalf("InFlight after an unreleased pass = %d, want 1", n)
	}
	g2, err := spreadGate(c, g.Config().Name, ilim.NewConfig(10, 1, 1, 1), 1, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetMode(redistest.DropReply); err != nil {
		t.Fatal(err)
	}
	if _, err := g2.Admit("a", 0); !errors.Is(err, redisgate.ErrIndeterminate) {
		t.Fatalf("Admit(a, 0) with its reply lost = %v; want ErrIndeterminate at once", err)
	}
	if p.Drops() != 1 {
		t.Fatalf("the proxy dropped %d replies, want 1", p.Drops())
	}
	if n, _ := g2.InFlight(); n != 0 {
		t.Errorf("InFlight after an indeterminate admit = %d, want 0: its place is given back", n)
	}
	if b, ok, err := g2.Bucket("a", 0); err != nil || !ok || b.Tks != 9 {
		t.Errorf("Bucket(a, 0) = %+v, %v, %v; want 9 tokens: the lost admit ran once and was not retried", b, ok, err)
	}
}

// redisSpreadTTL is DIST-6 for a slab: its TTL covers the buckets it
// holds and only grows. One slab, cap 10, one token a second, a margin of
// 1 ms: "a" takes one token (the slab lives about 3 s), "b" spends ten
// (it must then live 10 s at least, though a's record already covered
// a's need); then the slab's TTL is raised to an hour by hand and its
// recorded expiry cleared, and an admit of "c" must not cut the TTL. It
// returns what failed, "" when nothing did.
func redisSpreadTTL(c rueidis.Client, name string) (string, error) {
	g, err := spreadGate(c, name, ilim.NewConfig(10, 1, 1, 1<<40), int64(time.Second), time.Millisecond)
	if err != nil {
		return "", err
	}
	ctx, key := context.Background(), slab0(name)
	pttl := func() (int64, error) { return c.Do(ctx, c.B().Pttl().Key(key).Build()).AsInt64() }
	if _, err := g.Admit("a", 0); err != nil {
		return "", err
	}
	for range 10 {
		if _, err := g.Admit("b", 0); err != nil {
			return "", err
		}
	}
	if ttl, err := pttl(); err != nil || ttl < 10_000 {
		return fmt.Sprintf("the slab's PTTL after b spent 10 tokens = %d (%v), want >= 10000 ms (DIST-6)", ttl, err), err
	}
	meta := make([]byte, 16) // expiry 0, mark 64
	binary.BigEndian.PutUint64(meta[8:], math.Float64bits(64))
	if err := c.Do(ctx, c.B().Hset().Key(key).FieldValue().FieldValue("m", string(meta)).Build()).Error(); err != nil {
		return "", err
	}
	if err := c.Do(ctx, c.B().Pexpire().Key(key).Milliseconds(int64(time.Hour/time.Millisecond)).Build()).Error(); err != nil {
		return "", err
	}
	if _, err := g.Admit("c", 0); err != nil {
		return "", err
	}
	if ttl, err := pttl(); err != nil || ttl < int64(50*time.Minute/time.Millisecond) {
		return fmt.Sprintf("the slab's PTTL of an hour after an admit that needs 3 s = %d ms (%v): it shrank (DIST-6: only grows)", ttl, err), err
	}
	return "", nil
}

// TestRedisGateSpreadSlabTTLCoversAndGrows checks redisSpreadTTL.
func TestRedisGateSpreadSlabTTLCoversAndGrows(t *testing.T) {
	_, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	if diff, err := redisSpreadTTL(c, r.Namespace()); diff != "" || err != nil {
		t.Fatal(diff, err)
	}
}

// redisSpreadSweep runs admits on a Spread gate of one slab (cap 2, a
// token per 10 ticks, a margin of 100 ticks) and on the model gate, and
// returns the first difference in a decision or the admitted key's bucket
// ("" when none). k0 spends its tokens at tick 0; 70 new keys at tick 5
// fill the slab to its mark (a sweep, which must keep k0: it is not full),
// and k0 is limited at 5; 70 more at tick 50 sweep again, where k0 is full
// at 50 but not at 50 less the margin, and k0 at tick 10 (a step back
// within the margin) must find its bucket, not one born full.
func redisSpreadSweep(c rueidis.Client, name string) (string, error) {
	seed := redisTestSeed
	m, err := mgate.New(mgate.Config{Lim: mlim.NewConfig(2, 1, 10, 1<<40), Sets: math.MaxInt64, Ways: 1, TickNanos: 1e6, Seed: seed})
	if err != nil {
		return "", err
	}
	g, err := spreadGate(c, name, ilim.NewConfig(2, 1, 10, 1<<40), 1e6, 100*time.Millisecond)
	if err != nil {
		return "", err
	}
	type op struct {
		ip  string
		now int64
	}
	ops := []op{{"k0", 0}, {"k0", 0}}
	for i := range 70 {
		ops = append(ops, op{fmt.Sprint("n", i), 5})
	}
	ops = append(ops, op{"k0", 5})
	for i := range 70 {
		ops = append(ops, op{fmt.Sprint("m", i), 50})
	}
	ops = append(ops, op{"k0", 10})
	for i, o := range ops {
		want := m.Admit(o.ip, o.now)
		got, err := g.Admit(o.ip, o.now)
		if err != nil {
			return "", err
		}
		b, ok, err := g.Bucket(o.ip, o.now)
		if err != nil {
			return "", err
		}
		mb, mok := m.Bucket(o.ip, o.now)
		if got.Verdict.String() != string(want.Verdict) || ok != mok || b != (ilim.Bucket{Tks: mb.Tks, Last: mb.Last}) {
			return fmt.Sprintf("op %d: admit(%s, %d) = %v, bucket %+v %v; model %v, bucket %+v %v", i, o.ip, o.now, got.Verdict, b, ok, want.Verdict, mb, mok), nil
		}
	}
	return "", nil
}

// TestRedisGateSpreadSweepKeepsWhatCarries checks redisSpreadSweep: a
// slab's sweep drops only sets full since now less the margin (what an
// expiry would drop), so the decisions stay the model's.
func TestRedisGateSpreadSweepKeepsWhatCarries(t *testing.T) {
	_, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	if diff, err := redisSpreadSweep(c, r.Namespace()); diff != "" || err != nil {
		t.Fatal(diff, err)
	}
}

// TestRedisGateSpreadSlabStaysBounded checks the sweep's bound: 2000
// addresses admitted once each, one a tick, on one slab (cap 1: each is
// full a tick later; a margin of 10 ticks), never leave the slab more
// than 64 fields (its meta included): at most about a dozen sets carry
// information at once, so the mark stays 64.
func TestRedisGateSpreadSlabStaysBounded(t *testing.T) {
	_, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	name := r.Namespace()
	g, err := spreadGate(c, name, ilim.NewConfig(1, 1, 1, 1<<40), 1e6, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	most := int64(0)
	for i := range int64(2000) {
		if d, err := g.Admit(fmt.Sprint("10.1.", i/256, ".", i%256), i); err != nil || d.Verdict != gate.Pass {
			t.Fatalf("Admit(address %d, %d) = %v, %v; want pass", i, i, d.Verdict, err)
		}
		n, err := c.Do(context.Background(), c.B().Hlen().Key(slab0(name)).Build()).AsInt64()
		if err != nil {
			t.Fatal(err)
		}
		most = max(most, n)
	}
	if most > 64 {
		t.Errorf("the slab's HLEN reached %d over 2000 addresses, want <= 64: the sweep keeps it near twice its live sets", most)
	}
	if most < 32 {
		t.Errorf("the slab's HLEN never passed %d: the check would not see a sweep", most)
	}
}

// TestRedisGateSpreadHTTPGateReleasesOnce checks HTTPGate over a Spread
// gate (maxif 1): a pass holds the node's place (the next admit sheds),
// its Release gives it back, and a second Release of the same decision,
// or of a shed, is a no-op (DIST-4).
func TestRedisGateSpreadHTTPGateReleasesOnce(t *testing.T) {
	_, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	g, err := spreadGate(c, r.Namespace(), ilim.NewConfig(10, 1, 1, 1), 1, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	h := &redisgate.HTTPGate{G: g}
	d := h.AdmitBytes([]byte("a"), 0)
	if d.Verdict != gate.Pass {
		t.Fatalf("AdmitBytes(a, 0) = %+v, want pass", d)
	}
	shed := h.AdmitBytes([]byte("b"), 0)
	if shed.Verdict != gate.Shed {
		t.Fatalf("AdmitBytes(b, 0) with a pass held = %+v, want shed (maxif 1)", shed)
	}
	h.Release(shed)
	if n, _ := g.InFlight(); n != 1 {
		t.Fatalf("InFlight after releasing a shed = %d, want 1", n)
	}
	h.Release(d)
	h.Release(d)
	if n, _ := g.InFlight(); n != 0 {
		t.Fatalf("InFlight after releasing the pass twice = %d, want 0", n)
	}
	d2 := h.AdmitBytes([]byte("b"), 0)
	h.Release(d)
	if n, _ := g.InFlight(); d2.Verdict != gate.Pass || n != 1 {
		t.Fatalf("AdmitBytes(b, 0) after the release = %v, then InFlight after the old pass's third Release = %d; want pass, 1", d2.Verdict, n)
	}
}
