//go:build !fuzzsmoke

package fuzz

// The admit script's carries and borrows between 32-bit halves, each at a
// cap that puts it where a bucket shows it: the Lua mutants that drop one
// must fail here (the conformance vectors reach some of them only).

import (
	"fmt"
	"math"
	"time"

	"testing"

	ilim "github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisgate"
	mgate "github.com/limcheck/limcheck/model/gate"
	mlim "github.com/limcheck/limcheck/model/lim"
	"github.com/redis/rueidis"
)

// redisCarries runs, for caps at 32-bit boundaries (refil 1, ivl 1: one
// token a tick), admits of one key at ticks 0, 1, 1 and 3 on a Redis gate
// over c and on the model gate, and returns the first difference in a
// verdict or the key's bucket ("" when none). At cap 2^32 the first take
// borrows from the high half of tq (2^32 - 1 is hi 0, lo 2^32 - 1); at
// cap 2^33 the first refill carries into it (2^33 - 1 + 1). The Redis gate
// is in mode.
func redisCarries(c rueidis.Client, name string, mode redisgate.Mode) (string, error) {
	for _, cap := range []int64{1 << 32, 1 << 33, 1<<33 + 1, math.MaxInt64} {
		m, err := mgate.New(mgate.Config{Lim: mlim.NewConfig(cap, 1, 1, 1<<40), Sets: 1, Ways: 1, TickNanos: 1e6, Seed: redisTestSeed})
		if err != nil {
			return "", err
		}
		seed := redisTestSeed
		g, err := redisgate.New(redisgate.Config{Client: c, Name: fmt.Sprintf("%s:%d", name, cap), Lim: ilim.NewConfig(cap, 1, 1, 1<<40),
			Sets: 1, Ways: 1, TickNanos: 1e6, LeaseTTL: time.Hour, TTLMargin: time.Hour, Seed: &seed, Mode: mode})
		if err != nil {
			return "", err
		}
		for i, now := range []int64{0, 1, 1, 3} {
			want := m.Admit("a", now)
			got, err := g.Admit("a", now)
			if err != nil {
				return "", err
			}
			b, _, err := g.Bucket("a", now)
			if err != nil {
				return "", err
			}
			mb, _ := m.Bucket("a", now)
			if got.Verdict.String() != string(want.Verdict) || b.Tks != mb.Tks || b.Last != mb.Last {
				return fmt.Sprintf("cap %d: op %d: admit(a, %d) = %v, bucket %+v; model %v, bucket %+v", cap, i, now, got.Verdict, b, want.Verdict, mb), nil
			}
		}
	}
	return "", nil
}

// TestRedisGateCarriesBetweenHalves checks that the Redis gate equals the
// model where a take borrows from, and a refill carries into, the high
// 32-bit half of a token count (DIST-8: exact integers), in both layouts.
func TestRedisGateCarriesBetweenHalves(t *testing.T) {
	_, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []redisgate.Mode{redisgate.Exact, redisgate.Spread} {
		diff, err := redisCarries(c, r.Namespace(), mode)
		if err != nil {
			t.Fatalf("%v: %v", mode, err)
		}
		if diff != "" {
			t.Fatalf("%v: %s", mode, diff)
		}
	}
}
