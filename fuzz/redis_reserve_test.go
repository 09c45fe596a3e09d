//go:build !fuzzsmoke

package fuzz

import (
	"fmt"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"pgregory.net/rapid"
)

// reserveRig runs one sequential history of reservations on a throttle
// over redisstore and one over MemStore (threshold 3, window 10, ban 5):
// reservations are an extension of impl/throttle that the model does not
// have, so MemStore, whose Reserve is a few lines under one lock, is the
// reference the Lua is held to.
type reserveRig struct {
	red, mem *throttle.Throttle
	made     map[string][][2]string // by key: the reservations made, {redis id, mem id}
}

// reserveKeys are the rig's throttle keys.
var reserveKeys = []string{"ip:a", "acct:b"}

// same fails t when the two throttles' rendered results differ.
func (r *reserveRig) same(t *rapid.T, what string, red, mem string) {
	if red != mem {
		t.Fatalf("%s: redis %s, MemStore %s", what, red, mem)
	}
}

// reserve reserves on both and keeps the ids.
func (r *reserveRig) reserve(t *rapid.T, key string, now, held uint64) {
	a, errA := r.red.Reserve(key, now, held)
	b, errB := r.mem.Reserve(key, now, held)
	r.same(t, fmt.Sprintf("Reserve(%s, %d, held %d)", key, now, held), renderReservation(a, errA), renderReservation(b, errB))
	if a.ID != "" {
		r.made[key] = append(r.made[key], [2]string{a.ID, b.ID})
	}
}

// renderReservation is a Reserve result without its id.
func renderReservation(r throttle.Reservation, err error) string {
	return fmt.Sprintf("%+v held %d made %v err %v", r.Decision, r.Held, r.ID != "", err)
}

// TestPropRedisReserveEqualsMemStore checks the property that the Redis
// store's reservations (reserve.lua, and add.lua given the reservations
// set) give MemStore's results for every sequential history of Reserve,
// FailReserved, CancelReserved, RecordFailure, RecordSuccess and Check on
// two keys, at times that step forward and back: the window bounds
// reservations as it bounds failures, a settled one is gone, a ban
// refuses, and held adds the caller's entries.
func TestPropRedisReserveEqualsMemStore(t *testing.T) {
	srv, sr := sharedRedis(t)
	c, err := sr.Client()
	if err != nil {
		t.Fatal(err)
	}
	cfg := throttle.Config{Threshold: 3, WindowSecs: 10, BanSecs: 5}
	checkRedis(t, func(t *rapid.T) {
		ns, parts := sr.Namespace(), rapid.SampledFrom([]int{1, 2}).Draw(t, "partitions")
		rs, err := redisstore.New(redisstore.Config{Client: c, Namespace: ns, Partitions: parts, StampsPerKey: 3, TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		ms, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 3})
		if err != nil {
			t.Fatal(err)
		}
		r := &reserveRig{made: map[string][][2]string{}}
		if r.red, err = throttle.New(rs, cfg); err != nil {
			t.Fatal(err)
		}
		if r.mem, err = throttle.New(ms, cfg); err != nil {
			t.Fatal(err)
		}
		now := rapid.Uint64Range(0, 30).Draw(t, "start")
		step := func(t *rapid.T) {
			if rapid.IntRange(0, 3).Draw(t, "back") == 0 {
				now -= min(now, rapid.Uint64Range(0, 3).Draw(t, "by"))
			} else {
				now += rapid.Uint64Range(0, 4).Draw(t, "step")
			}
		}
		pick := func(t *rapid.T, key string) [2]string {
			ids := r.made[key]
			if len(ids) == 0 || rapid.IntRange(0, 5).Draw(t, "unknown") == 0 {
				return [2]string{"nope", "nope"} // never made, or settled already
			}
			return ids[rapid.IntRange(0, len(ids)-1).Draw(t, "which")]
		}
		t.Repeat(map[string]func(*rapid.T){
			"reserve": func(t *rapid.T) {
				step(t)
				r.reserve(t, rapid.SampledFrom(reserveKeys).Draw(t, "key"), now, rapid.Uint64Range(0, 2).Draw(t, "held"))
			},
			"fail": func(t *rapid.T) {
				step(t)
				key := rapid.SampledFrom(reserveKeys).Draw(t, "key")
				id := pick(t, key)
				a, errA := r.red.FailReserved(key, id[0], now)
				b, errB := r.mem.FailReserved(key, id[1], now)
				r.same(t, fmt.Sprintf("FailReserved(%s, %d)", key, now), fmt.Sprint(a, errA), fmt.Sprint(b, errB))
			},
			"cancel": func(t *rapid.T) {
				key := rapid.SampledFrom(reserveKeys).Draw(t, "key")
				id := pick(t, key)
				r.same(t, "CancelReserved", fmt.Sprint(r.red.CancelReserved(key, id[0])), fmt.Sprint(r.mem.CancelReserved(key, id[1])))
			},
			"record": func(t *rapid.T) {
				step(t)
				key := rapid.SampledFrom(reserveKeys).Draw(t, "key")
				a, errA := r.red.RecordFailure(key, now)
				b, errB := r.mem.RecordFailure(key, now)
				r.same(t, fmt.Sprintf("RecordFailure(%s, %d)", key, now), fmt.Sprint(a, errA), fmt.Sprint(b, errB))
			},
			"success": func(t *rapid.T) {
				key := rapid.SampledFrom(reserveKeys).Draw(t, "key")
				r.same(t, "RecordSuccess", fmt.Sprint(r.red.RecordSuccess(key)), fmt.Sprint(r.mem.RecordSuccess(key)))
			},
			"": func(t *rapid.T) {
				held := 0
				for _, key := range reserveKeys {
					r.same(t, fmt.Sprintf("Check(%s, %d)", key, now), fmt.Sprint(r.red.Check(key, now)), fmt.Sprint(r.mem.Check(key, now)))
					n, err := srv.Command("ZCARD", reservationsKey(ns, parts, key))
					if err != nil {
						t.Fatal(err)
					}
					var m int
					fmt.Sscanf(n, ":%d", &m)
					held += m
				}
				// Both drop a reservation when it is settled, and one out of
				// the window only at the key's next Reserve (no purge here).
				r.same(t, "reservations held", fmt.Sprint(held), fmt.Sprint(ms.Reservations()))
			},
		})
	})
}
