//go:build !fuzzsmoke

package fuzz

// The Redis gate's eviction budget (spec GATE-19) against the model, and
// the set TTL that must cover it (DIST-6): checks the Lua mutants of the
// budget must fail, and that run on their own in make test.

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	ilim "github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisgate"
	mgate "github.com/limcheck/limcheck/model/gate"
	mlim "github.com/limcheck/limcheck/model/lim"
	"github.com/redis/rueidis"
)

// redisBudgetIPs are more addresses than a table of budgetHistory holds.
var redisBudgetIPs = []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "::1", "2001:db8::1", "a", "b"}

// redisBudgetHistory runs one pseudorandom history, drawn from rng, on a
// Redis gate over c and the model gate of the same small table (1 or 2
// sets of 1 to 3 ways, a few tokens, ivl up to 5, maxif never reached)
// and seed: admits from more addresses than the table holds at times that
// mostly step forward and sometimes back. It returns the first difference in a
// decision (set, way, retry and Retry-After included) or in the admitted
// key's bucket, "" when there is none. The Redis gate is in mode (in
// Spread, on 1 slab or one per set).
func redisBudgetHistory(c rueidis.Client, name string, mode redisgate.Mode, rng *rand.Rand) (string, error) {
	cap, refil, ivl := 1+rng.Int64N(5), 1+rng.Int64N(3), 1+rng.Int64N(5)
	sets, ways := 1+rng.Int64N(2), 1+rng.Int64N(3)
	var seed [16]byte
	for i := range seed {
		seed[i] = byte(rng.Uint32())
	}
	m, err := mgate.New(mgate.Config{Lim: mlim.NewConfig(cap, refil, ivl, 1<<40), Sets: sets, Ways: ways, TickNanos: 1e6, Seed: seed})
	if err != nil {
		return "", err
	}
	var slabs int64
	if mode == redisgate.Spread {
		slabs = 1 + rng.Int64N(sets)
	}
	g, err := redisgate.New(redisgate.Config{Client: c, Name: name, Lim: ilim.NewConfig(cap, refil, ivl, 1<<40),
		Sets: sets, Ways: ways, TickNanos: 1e6, LeaseTTL: time.Hour, TTLMargin: time.Hour, Seed: &seed, Mode: mode, Slabs: slabs})
	if err != nil {
		return "", err
	}
	cfg := fmt.Sprintf("%v cap %d refil %d ivl %d sets %d ways %d slabs %d seed %x", mode, cap, refil, ivl, sets, ways, slabs, seed)
	now := rng.Int64N(10)
	for i := range 60 {
		if rng.IntN(6) == 0 {
			now -= rng.Int64N(2 * ivl)
		} else {
			now += rng.Int64N(ivl + 1)
		}
		ip := redisBudgetIPs[rng.IntN(len(redisBudgetIPs))]
		want := m.Admit(ip, now)
		got, err := g.Admit(ip, now)
		if err != nil {
			return "", err
		}
		if got.Verdict.String() != string(want.Verdict) || got.Set != want.Set || got.Way != want.Way ||
			got.Retry != want.Retry || got.RetryAfter != want.RetryAfter {
			return fmt.Sprintf("%s: op %d: admit(%q, %d) = %+v, model %+v", cfg, i, ip, now, got, want), nil
		}
		b, ok, err := g.Bucket(ip, now)
		mb, mok := m.Bucket(ip, now)
		if err != nil {
			return "", err
		}
		if ok != mok || b.Tks != mb.Tks || b.Last != mb.Last {
			return fmt.Sprintf("%s: op %d: after admit(%q, %d): bucket %+v %v, model %+v %v", cfg, i, ip, now, b, ok, mb, mok), nil
		}
	}
	return "", nil
}

// redisBudgetHistories runs n histories of redisBudgetHistory, the i'th
// from the PCG seeded (i, 24), each on a gate named prefix:i; it returns
// the first difference. The Redis gates are in mode.
func redisBudgetHistories(c rueidis.Client, prefix string, mode redisgate.Mode, n int) (string, error) {
	for i := range n {
		diff, err := redisBudgetHistory(c, fmt.Sprint(prefix, ":", i), mode, rand.New(rand.NewPCG(uint64(i), 24)))
		if diff != "" || err != nil {
			return diff, err
		}
	}
	return "", nil
}

// redisBudgetRuns is the number of histories of the budget checks: about
// 900 admits of which a sixth are refused evictions.
const redisBudgetRuns = 15

// TestRedisGateBudgetHistoriesEqualModel checks spec GATE-16 and GATE-19
// on Redis: redisBudgetRuns seeded histories over small tables that evict, spend,
// refuse and refill their budgets, with steps back of now, give the
// model's decisions and buckets (DIST-2: the Redis gate is the 3.0 gate
// of its config), in both layouts.
func TestRedisGateBudgetHistoriesEqualModel(t *testing.T) {
	_, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []redisgate.Mode{redisgate.Exact, redisgate.Spread} {
		diff, err := redisBudgetHistories(c, r.Namespace(), mode, redisBudgetRuns)
		if err != nil {
			t.Fatal(err)
		}
		if diff != "" {
			t.Fatal(diff)
		}
	}
}

// redisBudgetTTL is DIST-6 for the budget, on a gate of layout mode: a
// set's TTL (in Spread, its slab's) must outlast its budget until it is
// full again. Sets 1, ways 1, cap 10, one tick a second: at tick 0 "a"
// spends its ten tokens, "b" evicts it at cost 10 and leaves the budget
// empty, and the set's TTL is then cut to one second, as if the real time
// had passed (the ways' own TTLs no longer cover anything; in Spread the
// slab's recorded expiry is cleared too). A third key, never seen, is
// refused its eviction and waits for the budget (FIND-27: limited, no way,
// retry 1); the set that keeps the spent budget must live at least the ten
// seconds the budget takes to refill. It returns what failed, "" when
// nothing did.
func redisBudgetTTL(c rueidis.Client, name string, mode redisgate.Mode) (string, error) {
	seed := redisTestSeed
	cfg := redisgate.Config{Client: c, Name: name, Lim: ilim.NewConfig(10, 1, 1, 1<<40),
		Sets: 1, Ways: 1, TickNanos: int64(time.Second), LeaseTTL: time.Minute, TTLMargin: time.Millisecond, Seed: &seed}
	set := "{lim:" + name + "}:s:\x00\x00\x00\x00\x00\x00\x00\x00" // set 0, 8 big-endian bytes
	if mode == redisgate.Spread {
		cfg.Mode, cfg.Slabs, set = redisgate.Spread, 1, slab0(name)
	}
	g, err := redisgate.New(cfg)
	if err != nil {
		return "", err
	}
	var d redisgate.Decision
	for range 10 {
		if d, err = g.Admit("a", 0); err != nil {
			return "", err
		}
	}
	if d, err = g.Admit("b", 0); err != nil || d.Verdict != gate.Pass || d.Way != 0 {
		return fmt.Sprintf("Admit(b, 0) after a spent its 10 tokens = %+v, %v; want a pass evicting way 0", d, err), nil
	}
	ctx := context.Background()
	if err := c.Do(ctx, c.B().Pexpire().Key(set).Milliseconds(1000).Build()).Error(); err != nil {
		return "", err
	}
	if mode == redisgate.Spread {
		meta := make([]byte, 16) // expiry 0, mark 64
		binary.BigEndian.PutUint64(meta[8:], math.Float64bits(64))
		if err := c.Do(ctx, c.B().Hset().Key(set).FieldValue().FieldValue("m", string(meta)).Build()).Error(); err != nil {
			return "", err
		}
	}
	if d, err = g.Admit("c", 0); err != nil || d.Verdict != gate.Limited || d.Way != -1 || d.Retry != 1 {
		return fmt.Sprintf("Admit(c, 0) with the budget spent = %+v, %v; want limited, no way, retry 1 (GATE-19)", d, err), nil
	}
	ttl, err := c.Do(ctx, c.B().Pttl().Key(set).Build()).AsInt64()
	if err != nil {
		return "", err
	}
	if ttl < 10_000 {
		return fmt.Sprintf("the set's PTTL after a refusal = %d ms, want >= 10000: the spent budget refills in 10 s (DIST-6)", ttl), nil
	}
	return "", nil
}

// TestRedisGateSetTTLCoversItsBudget checks spec DIST-6 for the budget
// (redisBudgetTTL): an expiry drops only a full budget, in both layouts.
func TestRedisGateSetTTLCoversItsBudget(t *testing.T) {
	_, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []redisgate.Mode{redisgate.Exact, redisgate.Spread} {
		diff, err := redisBudgetTTL(c, r.Namespace(), mode)
		if err != nil {
			t.Fatal(err)
		}
		if diff != "" {
			t.Fatalf("%v: %s", mode, diff)
		}
	}
}
