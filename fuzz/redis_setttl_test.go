//go:build !fuzzsmoke

package fuzz

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	ilim "github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisgate"
	"github.com/redis/rueidis"
)

// redisOneWayTTL is DIST-6 in the one-way layout, where a pass skips the
// set's PEXPIRE while the expiry its way recorded covers it: cap 10, one
// token a second, margin 1 ms; ten passes of one key at tick 0 leave a
// bucket that is full again in ten seconds, so the set must live at least
// that long, although its first pass needed only about two. It returns
// what failed, "" when nothing did.
func redisOneWayTTL(c rueidis.Client, name string) (string, error) {
	seed := redisTestSeed
	g, err := redisgate.New(redisgate.Config{Client: c, Name: name, Lim: ilim.NewConfig(10, 1, 1, 1<<40),
		Sets: 1, Ways: 1, TickNanos: int64(time.Second), LeaseTTL: time.Minute, TTLMargin: time.Millisecond, Seed: &seed})
	if err != nil {
		return "", err
	}
	for i := range 10 {
		if d, err := g.Admit("a", 0); err != nil || d.Verdict != gate.Pass {
			return fmt.Sprintf("Admit(a, 0) #%d = %v, %v; want pass", i+1, d.Verdict, err), err
		}
	}
	set := "{lim:" + name + "}:s:\x00\x00\x00\x00\x00\x00\x00\x00" // set 0
	ttl, err := c.Do(context.Background(), c.B().Pttl().Key(set).Build()).AsInt64()
	if err != nil {
		return "", err
	}
	if ttl < 10_000 {
		return fmt.Sprintf("the set's PTTL after ten takes = %d ms, want >= 10000: the bucket is full again in 10 s (DIST-6)", ttl), nil
	}
	return "", nil
}

// TestRedisGateOneWaySetTTLCoversItsBucket checks spec DIST-6 where a pass
// skips the set's PEXPIRE (redisOneWayTTL): the skip never leaves a set
// that expires before its bucket is full.
func TestRedisGateOneWaySetTTLCoversItsBucket(t *testing.T) {
	_, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	diff, err := redisOneWayTTL(c, r.Namespace())
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Fatal(diff)
	}
}
