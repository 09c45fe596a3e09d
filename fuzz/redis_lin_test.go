//go:build !fuzzsmoke

package fuzz

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	ithrottle "github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/limcheck/limcheck/internal/subject"
	mthrottle "github.com/limcheck/limcheck/model/throttle"
	"github.com/limcheck/limcheck/oracle"
	"github.com/redis/rueidis"
)

// linRedisClients returns one rueidis client per history client: each
// "node" has its own connection to the server.
func linRedisClients(t *testing.T, addr string) []rueidis.Client {
	t.Helper()
	cs := make([]rueidis.Client, linClients)
	for i := range cs {
		c, err := subject.NewClient(addr)
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
// checks for MemStore; odd rounds over 2 partitions (linThrKeys[0] in one,
// the others in the other). The histories must allow and ban.
func TestLinRedisThrottleKeyOpsAreLinearizable(t *testing.T) {
	srv, r := sharedRedis(t)
	clients := linRedisClients(t, srv.Addr())
	seen := map[string]int{}
	for round := range redisLinRounds() {
		ns := r.Namespace()
		thrs := redisLinThrottles(t, clients, ns, 1+round%2)
		clock := new(linClock)
		h := linRun(linClients, linSeed(t.Name(), round), func(c *linClient, rng *rand.Rand) {
			linThrClient(thrs[c.id], clock, linThrMix{}, linOpsPerClient)(c, rng)
		})
		linRequire(t, linThrModelByKey(), h, fmt.Sprintf("throttle history %d", round))
		linTally(seen, h, linThrVerdict)
	}
	linRequireSeen(t, seen, string(mthrottle.Allow), string(mthrottle.Banned))
}

// redisLinThrottles returns a throttle for each client, each over its own
// redisstore in namespace ns over parts partitions: one node each.
func redisLinThrottles(t *testing.T, clients []rueidis.Client, ns string, parts int) []*ithrottle.Throttle {
	t.Helper()
	thrs := make([]*ithrottle.Throttle, len(clients))
	for i, c := range clients {
		s, err := redisstore.New(redisstore.Config{Client: c, Namespace: ns, Partitions: parts, StampsPerKey: linThrThreshold, TTL: subject.RedisTTL})
		if err != nil {
			t.Fatal(err)
		}
		thrs[i] = newLinImplThrottle(t, s)
	}
	return thrs
}

// TestLinRedisThrottlePurgeIsLinearizable checks that concurrent histories
// with purge_expired, of four throttles, one per node, each over its own
// connection to one redis-server and sharing one namespace, are
// linearizable as a whole with respect to model/throttle over its exact
// store, as TestLinThrottlePurgeOverOneShardIsLinearizable checks for a
// one-shard MemStore: with fewer keys in a partition than a purge batch, a
// partition's purge is one atomic script over its keys, and with one
// partition, or 3 (every key of linThrKeys is in partition 2 of 3: the
// others stay empty), that is every tracked key. Odd rounds take 3. The
// histories must purge some key.
func TestLinRedisThrottlePurgeIsLinearizable(t *testing.T) {
	srv, r := sharedRedis(t)
	clients := linRedisClients(t, srv.Addr())
	purged := 0
	for round := range redisLinRounds() {
		ns := r.Namespace()
		thrs := redisLinThrottles(t, clients, ns, 1+2*(round%2))
		clock := new(linClock)
		h := linRun(linClients, linSeed(t.Name(), round), func(c *linClient, rng *rand.Rand) {
			linThrClient(thrs[c.id], clock, linThrMix{purge: true}, linOpsPerClient)(c, rng)
		})
		linRequire(t, linThrModelWhole(), h, fmt.Sprintf("throttle history %d", round))
		for _, op := range h {
			purged += int(op.Output.(linThrOut).Count)
		}
	}
	if purged == 0 {
		t.Errorf("purge_expired counts sum to 0 over %d histories, want some key purged", redisLinRounds())
	}
	t.Logf("keys purged: %d", purged)
}

// linSevenOpStore is the Redis store without its fused paths (the throttle
// then records a failure as add_failure, then ban: two round trips), with a
// hook run once between them.
type linSevenOpStore struct {
	*redisstore.Store
	hook func()
}

func (s *linSevenOpStore) Ban(key string, until uint64) (uint64, error) {
	if h := s.hook; h != nil {
		s.hook = nil
		h()
	}
	return s.Store.Ban(key, until)
}

// TestLinRedisTwoStepRecordIsNotLinearizable is the Redis checks' negative
// control: over the store without its fused script, record_failure is
// add_failure then ban, two operations, and a reset that lands between them
// is lost (the seed's documented non-atomicity, which FailAndBan closes).
// Key a has one failure; record_failure(a, 1) counts 2, then another node
// resets a, then the ban lands: record_failure says banned and a later
// check says banned. The model gives allow{1} for a record after the
// reset, and no ban after a reset: porcupine must report Illegal.
func TestLinRedisTwoStepRecordIsNotLinearizable(t *testing.T) {
	_, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := redisstore.New(redisstore.Config{Client: c, Namespace: r.Namespace(), Partitions: 2, StampsPerKey: linThrThreshold, TTL: subject.RedisTTL})
	if err != nil {
		t.Fatal(err)
	}
	store := &linSevenOpStore{Store: rs}
	thr := newLinImplThrottle(t, struct{ ithrottle.Store }{store}) // the seven operations only
	a := linThrKeys[0]
	var stamp atomic.Int64
	c0, c1 := &linClient{id: 0, stamp: &stamp}, &linClient{id: 1, stamp: &stamp}
	do := func(c *linClient, in linThrIn) linThrOut {
		return linDo(c, in, func() linThrOut { return linThrCall(thr, in) })
	}
	do(c1, linThrIn{kind: oracle.RecordFailure, key: a, now: 0})
	store.hook = func() { do(c1, linThrIn{kind: oracle.Reset, key: a}) }
	got := do(c0, linThrIn{kind: oracle.RecordFailure, key: a, now: 1})
	if got.Verdict != string(mthrottle.Banned) {
		t.Fatalf("RecordFailure(%q, 1) with a reset between its two store ops = %v, want banned", a, got)
	}
	if after := do(c0, linThrIn{kind: oracle.Check, key: a, now: 1}); after.Verdict != string(mthrottle.Banned) {
		t.Fatalf("Check(%q, 1) after the lost reset = %v, want banned", a, after)
	}
	linRequireIllegal(t, linThrModelWhole(), append(c0.ops, c1.ops...), "a two-step record_failure with a reset between")
}
