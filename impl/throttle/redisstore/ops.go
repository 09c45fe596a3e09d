package redisstore

import (
	"fmt"
	"strconv"

	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/redis/rueidis"
)

// get reads key's record (HGET): "" and no error when the key is
// untracked.
func (s *Store) get(op throttle.Op, key string) (string, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	v, err := s.c.Do(ctx, s.c.B().Hget().Key(s.hash(key)).Field(key).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return "", nil
	}
	if err != nil {
		return "", fail(op, key, err, false)
	}
	if err := record(v); err != nil {
		return "", &throttle.StoreError{Op: op, Key: key, Err: err}
	}
	return v, nil
}

// BanUntil implements throttle.Store: HGET.
func (s *Store) BanUntil(key string) (uint64, error) {
	v, err := s.get(throttle.OpBanUntil, key)
	if err != nil || v == "" {
		return 0, err
	}
	return banOf(v), nil
}

// Count implements throttle.Store: HGET.
func (s *Store) Count(key string, now, window uint64) (uint64, error) {
	v, err := s.get(throttle.OpCount, key)
	if err != nil || v == "" {
		return 0, err
	}
	return countOf(v, bound(now, window)), nil
}

// AddFailure implements throttle.Store.
func (s *Store) AddFailure(key string, now, window uint64) (uint64, error) {
	c, _, err := s.add(throttle.OpAddFailure, key, now, window, 0, 0)
	return c, err
}

// FailAndBan implements throttle.FusedStore: one script.
func (s *Store) FailAndBan(key string, now, window, threshold, until uint64) (uint64, uint64, error) {
	return s.add(throttle.OpAddFailure, key, now, window, threshold, until)
}

// add runs add.lua: HGET, HSET, and PEXPIRE ... GT on the partition.
func (s *Store) add(op throttle.Op, key string, now, window, threshold, until uint64) (uint64, uint64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	r, err := addScript.Exec(ctx, s.c, []string{s.hash(key)},
		[]string{key, be8(now), bound(now, window), strconv.FormatUint(s.k, 10),
			strconv.FormatUint(threshold, 10), be8(until), s.ttl}).ToArray()
	if err != nil {
		return 0, 0, fail(op, key, err, true)
	}
	return pair(op, key, r)
}

// pair decodes a script's reply {count, ban-until as 8 bytes}.
func pair(op throttle.Op, key string, r []rueidis.RedisMessage) (uint64, uint64, error) {
	bad := func(err error) (uint64, uint64, error) {
		return 0, 0, &throttle.StoreError{Op: op, Key: key, Err: fmt.Errorf("redisstore: bad reply: %w", err)}
	}
	if len(r) != 2 {
		return bad(fmt.Errorf("%d elements", len(r)))
	}
	c, err := r[0].AsInt64()
	if err != nil {
		return bad(err)
	}
	b, err := r[1].ToString()
	if err != nil {
		return bad(err)
	}
	if len(b) != 8 {
		return bad(fmt.Errorf("ban-until of %d bytes", len(b)))
	}
	return uint64(c), banOf(b), nil
}

// CheckState implements throttle.FusedStore: one read-only script
// (EVALSHA_RO).
func (s *Store) CheckState(key string, now, window uint64) (uint64, uint64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	r, err := checkScript.Exec(ctx, s.c, []string{s.hash(key)}, []string{key, bound(now, window)}).ToArray()
	if err != nil {
		return 0, 0, fail(throttle.OpBanUntil, key, err, false)
	}
	c, b, err := pair(throttle.OpBanUntil, key, r)
	return b, c, err
}

// Ban implements throttle.Store.
func (s *Store) Ban(key string, until uint64) (uint64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	b, err := banScript.Exec(ctx, s.c, []string{s.hash(key)}, []string{key, be8(until), s.ttl}).ToString()
	if err != nil {
		return 0, fail(throttle.OpBan, key, err, true)
	}
	if len(b) != 8 {
		return 0, &throttle.StoreError{Op: throttle.OpBan, Key: key, Err: fmt.Errorf("redisstore: bad reply: ban-until of %d bytes", len(b))}
	}
	return banOf(b), nil
}

// ClearFailures implements throttle.Store.
func (s *Store) ClearFailures(key string) error {
	ctx, cancel := s.ctx()
	defer cancel()
	if err := clearFailuresScript.Exec(ctx, s.c, []string{s.hash(key)}, []string{key}).Error(); err != nil {
		return fail(throttle.OpClearFailures, key, err, true)
	}
	return nil
}

// Clear implements throttle.Store: HDEL.
func (s *Store) Clear(key string) error {
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.c.Do(ctx, s.c.B().Hdel().Key(s.hash(key)).Field(key).Build()).Error(); err != nil {
		return fail(throttle.OpClear, key, err, true)
	}
	return nil
}
