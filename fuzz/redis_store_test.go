//go:build !fuzzsmoke

package fuzz

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/redis/rueidis"
)

// TestRedisStorePartitionTTLIsSetAndOnlyGrows checks spec DIST-6 on the
// store's partitions: every write that creates a partition (add_failure,
// ban) or a key's reservations (Reserve) gives it a TTL, and a write by a
// store with a shorter TTL never shortens a partition's: two stores on one
// namespace, TTLs of an hour and of 2 seconds.
func TestRedisStorePartitionTTLIsSetAndOnlyGrows(t *testing.T) {
	srv, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	if diff := redisStoreTTLs(srv.Command, c, r.Namespace); diff != "" {
		t.Error(diff)
	}
}

// redisStoreTTLs runs TestRedisStorePartitionTTLIsSetAndOnlyGrows's checks
// on fresh namespaces from ns, and says what went wrong, or returns "".
func redisStoreTTLs(command func(...string) (string, error), c rueidis.Client, ns func() string) string {
	pttl := func(key string) int64 {
		s, err := command("PTTL", key)
		if err != nil {
			return -3
		}
		n, _ := strconv.ParseInt(strings.TrimPrefix(s, ":"), 10, 64)
		return n
	}
	store := func(ns string, ttl time.Duration) *redisstore.Store {
		s, err := redisstore.New(redisstore.Config{Client: c, Namespace: ns, StampsPerKey: 3, TTL: ttl})
		if err != nil {
			panic(err) // a valid config on a healthy server
		}
		return s
	}
	creates := map[string]func(*redisstore.Store) error{
		"AddFailure": func(s *redisstore.Store) error { _, err := s.AddFailure("k", 1, 10); return err },
		"FailAndBan": func(s *redisstore.Store) error { _, _, err := s.FailAndBan("k", 1, 10, 1, 5); return err },
		"Ban":        func(s *redisstore.Store) error { _, err := s.Ban("k", 5); return err },
	}
	for name, write := range creates {
		n := ns()
		if err := write(store(n, time.Hour)); err != nil {
			return fmt.Sprintf("%s: %v", name, err)
		}
		if ttl := pttl("thr:{" + n + ":0}"); ttl <= 0 {
			return fmt.Sprintf("%s on a new partition: its PTTL is %d, want a TTL", name, ttl)
		}
	}
	n := ns()
	long, short := store(n, time.Hour), store(n, 2*time.Second)
	if _, err := long.AddFailure("a", 0, 10); err != nil {
		return err.Error()
	}
	_, err1 := short.AddFailure("b", 0, 10)
	_, err2 := short.Ban("c", 9)
	_, _, err3 := short.FailAndBan("d", 0, 10, 1, 9)
	if ttl := pttl("thr:{" + n + ":0}"); ttl < int64(time.Hour/time.Millisecond)/2 || err1 != nil || err2 != nil || err3 != nil {
		return fmt.Sprintf("a partition with an hour's TTL has PTTL %d ms after writes of a store with 2s (errors %v, %v, %v), want it kept", ttl, err1, err2, err3)
	}
	return ""
}

// TestRedisStoreIsExactPast2To53 checks that the Redis store's scripts
// compare uint64s exactly where a double cannot tell a second from the
// next: seeded histories of check, record_failure, record_success, reset
// and purge_expired at times from 2^60 (and from 0), over 2 partitions,
// through the fused scripts and through the seven store operations
// (FaultStore hides the fused ones), give MemStore's results op by op.
func TestRedisStoreIsExactPast2To53(t *testing.T) {
	_, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	if diff := redisExactHistories(c, r.Namespace); diff != "" {
		t.Error(diff)
	}
}

// redisExactHistories runs TestRedisStoreIsExactPast2To53's histories on
// fresh namespaces from ns and names the first difference, or returns "".
func redisExactHistories(c rueidis.Client, ns func() string) string {
	rng := rand.New(rand.NewPCG(53, 64))
	for h := range 24 {
		base := uint64(0)
		if h%3 != 0 {
			base = 1 << 60 // a double's step here is 256
		}
		if diff := redisExactHistory(c, ns(), h%2 == 1, base, rng); diff != "" {
			return fmt.Sprintf("history %d (seven-op %v, from %d): %s", h, h%2 == 1, base, diff)
		}
	}
	return ""
}

// redisExactHistory runs one history of 40 ops drawn from rng on fresh
// throttles (threshold 2, window 3, ban 2) over the Redis store of
// namespace ns (through a FaultStore when sevenOp) and over a MemStore,
// and names the first op whose results differ, or returns "".
func redisExactHistory(c rueidis.Client, ns string, sevenOp bool, base uint64, rng *rand.Rand) string {
	rs, err := redisstore.New(redisstore.Config{Client: c, Namespace: ns, Partitions: 2, StampsPerKey: 2, TTL: time.Hour})
	if err != nil {
		return err.Error()
	}
	var store throttle.Store = rs
	if sevenOp {
		store = throttle.NewFaultStore(rs)
	}
	ms, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 2})
	if err != nil {
		return err.Error()
	}
	cfg := throttle.Config{Threshold: 2, WindowSecs: 3, BanSecs: 2}
	red, err1 := throttle.New(store, cfg)
	mem, err2 := throttle.New(ms, cfg)
	if err1 != nil || err2 != nil {
		return fmt.Sprint(err1, err2)
	}
	now := base
	for i := range 40 {
		if step := rng.Uint64N(4); step > 0 || now == base {
			now += step
		} else {
			now-- // a step back
		}
		key := linThrKeys[rng.IntN(len(linThrKeys))]
		what, a, b := redisExactOp(red, mem, rng.IntN(8), key, now)
		if a != b {
			return fmt.Sprintf("op %d %s: redis %s, MemStore %s", i, what, a, b)
		}
	}
	return ""
}

// redisExactOp applies one op, chosen by which, to both throttles and
// renders it and both results.
func redisExactOp(red, mem *throttle.Throttle, which int, key string, now uint64) (what, a, b string) {
	switch which {
	case 0, 1:
		return fmt.Sprintf("Check(%q, %d)", key, now), fmt.Sprint(red.Check(key, now)), fmt.Sprint(mem.Check(key, now))
	case 2, 3, 4:
		da, errA := red.RecordFailure(key, now)
		db, errB := mem.RecordFailure(key, now)
		return fmt.Sprintf("RecordFailure(%q, %d)", key, now), fmt.Sprint(da, errA), fmt.Sprint(db, errB)
	case 5:
		return fmt.Sprintf("RecordSuccess(%q)", key), fmt.Sprint(red.RecordSuccess(key)), fmt.Sprint(mem.RecordSuccess(key))
	case 6:
		return fmt.Sprintf("Reset(%q)", key), fmt.Sprint(red.Reset(key)), fmt.Sprint(mem.Reset(key))
	}
	na, errA := red.PurgeExpired(now)
	nb, errB := mem.PurgeExpired(now)
	return fmt.Sprintf("PurgeExpired(%d)", now), fmt.Sprint(na, errA), fmt.Sprint(nb, errB)
}
