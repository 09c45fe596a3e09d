package fuzz

import (
	"fmt"
	"math/rand/v2"
	"testing"

	ithrottle "github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/limcheck/limcheck/internal/redissubject"
	mthrottle "github.com/limcheck/limcheck/model/throttle"
	"github.com/redis/rueidis"
)

// linRedisClients returns one rueidis client per history client: each
// "node" has its own connection to the server.
func linRedisClients(t *testing.T, addr string) []rueidis.Client {
	t.Helper()
	cs := make([]rueidis.Client, linClients)
	for i := range cs {
		c, err := redissubject.NewClient(addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		cs[i] = c
	}
	return cs
}

// TestLinRedisThrottleKeyOpsAreLinearizable checks that concurrent histories
// of four throttles, one per node, each over its own connection to one
// redis-server and sharing one namespace (the fused one-script Check and
// RecordFailure), are linearizable with respect to model/throttle over its
// exact store, key by key (THR-17), as TestLinThrottleKeyOpsAreLinearizable
// checks for MemStore. The histories must allow and ban.
func TestLinRedisThrottleKeyOpsAreLinearizable(t *testing.T) {
	srv, r := sharedRedis(t)
	clients := linRedisClients(t, srv.Addr())
	seen := map[string]int{}
	for round := range redisLinRounds() {
		ns := r.Namespace()
		thrs := make([]*ithrottle.Throttle, len(clients))
		for i, c := range clients {
			s, err := redisstore.New(redisstore.Config{Client: c, Namespace: ns, StampsPerKey: linThrThreshold, TTL: redissubject.TTL})
			if err != nil {
				t.Fatal(err)
			}
			thrs[i] = newLinImplThrottle(t, s)
		}
		clock := new(linClock)
		h := linRun(linClients, linSeed(t.Name(), round), func(c *linClient, rng *rand.Rand) {
			linThrClient(thrs[c.id], clock, linThrMix{}, linOpsPerClient)(c, rng)
		})
		linRequire(t, linThrModelByKey(), h, fmt.Sprintf("throttle history %d", round))
		linTally(seen, h, linThrVerdict)
	}
	linRequireSeen(t, seen, string(mthrottle.Allow), string(mthrottle.Banned))
}
