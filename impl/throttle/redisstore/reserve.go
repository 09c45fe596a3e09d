package redisstore

import (
	"fmt"
	"strconv"

	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/redis/rueidis"
)

// Reserve implements throttle.ReserveStore: one script reads the key's
// ban-until, its count and its reservations, drops those out of the
// window, and adds the reservation when the key is neither banned nor
// busy. The reservation is a member of K's reservations (a sorted set
// thr:{NS:P}:r:K, in its partition's slot): hex16(now), then this store's
// opid and a sequence number, so that a lex range selects the window's
// exactly, every score 0; the set gets the TTL on
// every reservation, so that one left by a crashed node stops counting
// when the window ends and is gone with the TTL. An ambiguous failure (no
// reply) may have left a reservation: it counts as a failure until the
// window ends.
func (s *Store) Reserve(key string, now, window, threshold, held uint64) (throttle.Reserved, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	r, err := reserveScript.Exec(ctx, s.c, []string{s.hash(key), s.r(key)},
		[]string{key, bound(now, window), lower(now, window), be8(now), strconv.FormatUint(threshold, 10),
			strconv.FormatUint(held, 10), s.member(now), s.ttl}).ToArray()
	if err != nil {
		return throttle.Reserved{}, fail(throttle.OpReserve, key, err, true)
	}
	return reserved(key, r)
}

// reserved decodes reserve.lua's reply {count, ban-until (8 bytes),
// reservations, member or ""}.
func reserved(key string, r []rueidis.RedisMessage) (throttle.Reserved, error) {
	bad := func(err error) (throttle.Reserved, error) {
		return throttle.Reserved{}, &throttle.StoreError{Op: throttle.OpReserve, Key: key, Err: fmt.Errorf("redisstore: bad reply: %w", err)}
	}
	if len(r) != 4 {
		return bad(fmt.Errorf("%d elements", len(r)))
	}
	c, b, err := pair(throttle.OpReserve, key, r[:2])
	if err != nil {
		return throttle.Reserved{}, err
	}
	held, err := r[2].AsInt64()
	if err != nil {
		return bad(err)
	}
	id, err := r[3].ToString()
	if err != nil {
		return bad(err)
	}
	return throttle.Reserved{Until: b, Count: uint64(c), Held: uint64(held), ID: id}, nil
}

// FailReserved implements throttle.ReserveStore: add.lua (FailAndBan's
// script) given the reservations set, which removes reservation id in the
// same step.
func (s *Store) FailReserved(key, id string, now, window, threshold, until uint64) (uint64, uint64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	r, err := addScript.Exec(ctx, s.c, []string{s.hash(key), s.r(key)},
		[]string{key, be8(now), bound(now, window), strconv.FormatUint(s.k, 10),
			strconv.FormatUint(threshold, 10), be8(until), s.ttl, id}).ToArray()
	if err != nil {
		return 0, 0, fail(throttle.OpAddFailure, key, err, true)
	}
	return pair(throttle.OpAddFailure, key, r)
}

// CancelReserved implements throttle.ReserveStore: ZREM.
func (s *Store) CancelReserved(key, id string) error {
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.c.Do(ctx, s.c.B().Zrem().Key(s.r(key)).Member(id).Build()).Error(); err != nil {
		return fail(throttle.OpCancelReserved, key, err, true)
	}
	return nil
}
