//go:build !fuzzsmoke && !race

package fuzz

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/redis/rueidis"
)

// mutantReserveHistories is TestPropRedisReserveEqualsMemStore as a kill
// check: seeded sequential histories, half of them at times past 2^53, of Reserve, FailReserved, CancelReserved
// and RecordFailure on the rig's two keys, over the Redis store behind c
// (namespace ns) and over a MemStore, must agree. It names the first
// difference, or returns "".
func mutantReserveHistories(c rueidis.Client, ns string) (mutantKill, error) {
	rng := rand.New(rand.NewPCG(24, 25))
	for h := range 40 {
		base := uint64(0)
		if h%2 == 1 {
			base = 1 << 60 // times where a double cannot tell a second from the next
		}
		if diff, err := reserveHistory(c, fmt.Sprintf("%s-res%d", ns, h), base, rng); diff != "" || err != nil {
			return mutantKill(diff), err
		}
	}
	return "", nil
}

// reserveHistory runs one history of 30 ops drawn from rng, at times from
// base on, on fresh throttles (threshold 3, window 10, ban 5) over
// namespace ns and over a MemStore, and returns the first op whose results
// differ, or "".
func reserveHistory(c rueidis.Client, ns string, base uint64, rng *rand.Rand) (string, error) {
	rs, err := redisstore.New(redisstore.Config{Client: c, Namespace: ns, StampsPerKey: 3, TTL: time.Hour})
	if err != nil {
		return "", err
	}
	ms, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 3})
	if err != nil {
		return "", err
	}
	cfg := throttle.Config{Threshold: 3, WindowSecs: 10, BanSecs: 5}
	red, err := throttle.New(rs, cfg)
	if err != nil {
		return "", err
	}
	mem, err := throttle.New(ms, cfg)
	if err != nil {
		return "", err
	}
	made := map[string][][2]string{}
	now := base + rng.Uint64N(30)
	for i := range 30 {
		if rng.IntN(4) == 0 {
			now -= min(now-base, rng.Uint64N(4))
		} else {
			now += rng.Uint64N(5)
		}
		key := reserveKeys[rng.IntN(len(reserveKeys))]
		id := [2]string{"nope", "nope"}
		if ids := made[key]; len(ids) > 0 && rng.IntN(6) != 0 {
			id = ids[rng.IntN(len(ids))]
		}
		var what, a, b string
		switch rng.IntN(4) {
		case 0, 1:
			held := rng.Uint64N(3)
			ra, errA := red.Reserve(key, now, held)
			rb, errB := mem.Reserve(key, now, held)
			what, a, b = fmt.Sprintf("Reserve(%s, %d, held %d)", key, now, held), renderReservation(ra, errA), renderReservation(rb, errB)
			if ra.ID != "" && rb.ID != "" {
				made[key] = append(made[key], [2]string{ra.ID, rb.ID})
			}
		case 2:
			da, errA := red.FailReserved(key, id[0], now)
			db, errB := mem.FailReserved(key, id[1], now)
			what, a, b = fmt.Sprintf("FailReserved(%s, %d)", key, now), fmt.Sprint(da, errA), fmt.Sprint(db, errB)
		default:
			da, errA := red.RecordFailure(key, now)
			db, errB := mem.RecordFailure(key, now)
			what, a, b = fmt.Sprintf("RecordFailure(%s, %d)", key, now), fmt.Sprint(da, errA), fmt.Sprint(db, errB)
		}
		if a != b {
			return fmt.Sprintf("reservations: op %d %s: redis %s, MemStore %s", i, what, a, b), nil
		}
	}
	return "", nil
}
