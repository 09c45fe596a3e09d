package throttle

import "hash/maphash"

// BanUntil implements [Store] (spec STORE-2). It never fails.
func (s *MemStore) BanUntil(key string) (uint64, error) {
	sh, tag := s.lock(key)
	var until uint64
	if id, ok := sh.find(key, tag); ok {
		r, _, _ := s.words(sh, id)
		until = r[0]
	}
	sh.mu.Unlock()
	return until, nil
}

// Count implements [Store] (spec STORE-3): min(count, k). It never fails.
func (s *MemStore) Count(key string, now, window uint64) (uint64, error) {
	_, c, err := s.CheckState(key, now, window)
	return c, err
}

// CheckState implements [FusedStore]: BanUntil and Count under one lock. It
// never fails.
func (s *MemStore) CheckState(key string, now, window uint64) (until, count uint64, err error) {
	sh, tag := s.lock(key)
	if id, ok := sh.find(key, tag); ok {
		r, c, slot := s.words(sh, id)
		until, count = r[0], uint64(inWindow(r[1:], int(c.n[slot]), now, window))
	}
	sh.mu.Unlock()
	return until, count, nil
}

// AddFailure implements [Store] (spec STORE-4): min(count, k) after adding
// the stamp now. It fails with [ErrFull] only for an untracked key on a store
// still full after reclaiming (see [MemStore]).
func (s *MemStore) AddFailure(key string, now, window uint64) (uint64, error) {
	count, _, err := s.FailAndBan(key, now, window, 0, 0) // ban 0: no effect
	return count, err
}

// FailAndBan implements [FusedStore]: AddFailure, then Ban(key, until) when
// the count is >= threshold, under one lock; it returns the count and the
// ban-until after. It fails with [ErrFull] (op add_failure) only for an
// untracked key on a store still full after reclaiming (see [MemStore]),
// and then has no effect.
func (s *MemStore) FailAndBan(key string, now, window, threshold, until uint64) (count, banUntil uint64, err error) {
	sh, tag := s.lock(key)
	id, err := s.getOrAdd(sh, key, tag, OpAddFailure, &sweepTime{now, window})
	if err == nil {
		r, c, slot := s.words(sh, id)
		m := addStamp(r[1:], int(c.n[slot]), now)
		c.n[slot] = uint16(m)
		count = uint64(inWindow(r[1:], m, now, window))
		if count >= threshold {
			r[0] = max(r[0], until)
		}
		banUntil = r[0]
	}
	sh.mu.Unlock()
	return count, banUntil, err
}

// Ban implements [Store] (spec STORE-5). until 0 on an untracked key is a
// no-op; otherwise it fails with [ErrFull] only for an untracked key.
func (s *MemStore) Ban(key string, until uint64) (uint64, error) {
	sh, tag := s.lock(key)
	defer sh.mu.Unlock()
	id, ok := sh.find(key, tag)
	if !ok && until == 0 {
		return 0, nil
	}
	if !ok {
		var err error
		if id, err = s.getOrAdd(sh, key, tag, OpBan, nil); err != nil {
			return 0, err
		}
	}
	r, _, _ := s.words(sh, id)
	r[0] = max(r[0], until)
	return r[0], nil
}

// ClearFailures implements [Store] (spec STORE-6). It never fails.
func (s *MemStore) ClearFailures(key string) error {
	sh, tag := s.lock(key)
	if id, ok := sh.find(key, tag); ok {
		r, c, slot := s.words(sh, id)
		c.n[slot] = 0
		if r[0] == 0 {
			s.dropID(sh, id, tag)
		}
	}
	sh.mu.Unlock()
	return nil
}

// Clear implements [Store] (spec STORE-7). It never fails.
func (s *MemStore) Clear(key string) error {
	sh, tag := s.lock(key)
	if id, ok := sh.find(key, tag); ok {
		s.dropID(sh, id, tag)
	}
	sh.mu.Unlock()
	return nil
}

// Purge implements [Store] (spec STORE-9): it locks and sweeps one shard at
// a time. It never fails.
func (s *MemStore) Purge(now, window uint64) (uint64, error) {
	var gone uint64
	for i := range s.shards {
		gone += s.purgeShard(&s.shards[i], now, window)
	}
	return gone, nil
}

// purgeShard purges the records of sh and returns how many it freed.
func (s *MemStore) purgeShard(sh *shard, now, window uint64) uint64 {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	var gone uint64
	for ci, c := range sh.chunks {
		for slot := range c.n {
			if c.n[slot] != freeMark && s.purgeRecord(c, slot, now, window) {
				id := uint32(ci)<<slotBits | uint32(slot)
				s.dropID(sh, id, maphash.String(s.seed, c.keys[slot])>>32)
				gone++
			}
		}
	}
	return gone
}

// purgeRecord drops the expired stamps and ban of a live record and reports
// whether it no longer tracks its key.
func (s *MemStore) purgeRecord(c *chunk, slot int, now, window uint64) bool {
	r := c.data[slot*s.stride : (slot+1)*s.stride]
	n := inWindow(r[1:], int(c.n[slot]), now, window)
	c.n[slot] = uint16(n)
	if r[0] <= now {
		r[0] = 0
	}
	return n == 0 && r[0] == 0
}
