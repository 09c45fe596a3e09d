package redisstore

import (
	"fmt"
	"strconv"

	"github.com/limcheck/limcheck/impl/throttle"
)

// purgeBatch is how many keys one purge script handles: a partition of at
// most this many keys is purged by one script, in one atomic step.
const purgeBatch = 100

// Purge implements throttle.Store: partition by partition, one script per
// batch of a partition's keys (purge.lua: HGETALL for a partition of at
// most purgeBatch keys, else HSCAN inside the script, its cursor carried
// from one batch to the next). Each batch is atomic; a partition of at most
// purgeBatch keys is one batch, so with Partitions 1 and that few keys the
// purge is one atomic step over every tracked key, as the model's is.
// Across batches and partitions it is not one step: an operation may land
// between two batches (spec PROP-14 holds per key, as MemStore's purge is
// atomic per shard). The count is exact: every key it counts it removed,
// and that key had no stamp in the window and no ban in force.
func (s *Store) Purge(now, window uint64) (uint64, error) {
	args := []string{be8(now), "", "0", strconv.Itoa(purgeBatch)}
	if now >= window { // else nothing is out of the window
		args[1] = be8(now - window + 1)
	}
	var n uint64
	for _, h := range s.parts {
		m, err := s.purgePartition(h, args)
		if err != nil {
			return 0, err
		}
		n += m
	}
	return n, nil
}

// purgePartition runs purge.lua over partition h until its cursor comes
// back to 0, and returns how many keys it purged.
func (s *Store) purgePartition(h string, args []string) (uint64, error) {
	args = append([]string(nil), args...)
	var n uint64
	for {
		ctx, cancel := s.ctx()
		r, err := purgeScript.Exec(ctx, s.c, []string{h}, args).ToArray()
		cancel()
		if err != nil {
			return 0, fail(throttle.OpPurge, "", err, true)
		}
		if len(r) != 2 {
			return 0, &throttle.StoreError{Op: throttle.OpPurge, Err: fmt.Errorf("redisstore: bad reply: %d elements", len(r))}
		}
		cursor, err := r[0].ToString()
		if err != nil {
			return 0, &throttle.StoreError{Op: throttle.OpPurge, Err: fmt.Errorf("redisstore: bad reply: %w", err)}
		}
		m, err := r[1].AsInt64()
		if err != nil {
			return 0, &throttle.StoreError{Op: throttle.OpPurge, Err: fmt.Errorf("redisstore: bad reply: %w", err)}
		}
		n += uint64(m)
		if args[2] = cursor; cursor == "0" {
			return n, nil
		}
	}
}
