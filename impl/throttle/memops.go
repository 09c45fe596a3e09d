package throttle

// BanUntil implements [Store] (spec STORE-2). It never fails.
func (s *MemStore) BanUntil(key string) (uint64, error) {
	sh, tag := s.lock(key)
	var until uint64
	if h, _, ok := sh.find(key, tag, &s.a); ok {
		until = h.ban
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
	until, count = s.checkState(key, now, window)
	return until, count, nil
}

// checkState is CheckState without its error, which is always nil.
func (s *MemStore) checkState(key string, now, window uint64) (until, count uint64) {
	sh, _, h, _ := s.locate(key)
	if h != nil {
		until, count = h.ban, uint64(inWindow(h.stamps(s.a.k), h.n(), now, window))
	}
	sh.mu.Unlock()
	return until, count
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
	return s.FailReserved(key, "", now, window, threshold, until)
}

// FailReserved implements [ReserveStore]: FailAndBan, and the end of
// reservation id (none when id is ""), under one lock. It fails as
// FailAndBan does, and then has no effect.
func (s *MemStore) FailReserved(key, id string, now, window, threshold, until uint64) (count, banUntil uint64, err error) {
	sh, tag, h, _ := s.locate(key)
	if h == nil {
		h, err = s.addSlow(sh, key, tag, OpAddFailure, &sweepTime{now, window})
	}
	if err == nil {
		st := h.stamps(s.a.k)
		m := addStamp(st, h.n(), now)
		h.setN(m)
		count = uint64(inWindow(st, m, now, window))
		if count >= threshold {
			h.ban = max(h.ban, until)
		}
		banUntil = h.ban
		if id != "" {
			s.dropHold(sh, key, id)
		}
	}
	sh.mu.Unlock()
	return count, banUntil, err
}

// Ban implements [Store] (spec STORE-5). until 0 on an untracked key is a
// no-op; otherwise it fails with [ErrFull] only for an untracked key.
func (s *MemStore) Ban(key string, until uint64) (uint64, error) {
	sh, tag := s.lock(key)
	defer sh.mu.Unlock()
	h, _, ok := sh.find(key, tag, &s.a)
	if !ok && until == 0 {
		return 0, nil
	}
	if !ok {
		var err error
		if h, err = s.addSlow(sh, key, tag, OpBan, nil); err != nil {
			return 0, err
		}
	}
	h.ban = max(h.ban, until)
	return h.ban, nil
}

// ClearFailures implements [Store] (spec STORE-6). It never fails.
func (s *MemStore) ClearFailures(key string) error {
	sh, tag := s.lock(key)
	if h, id, ok := sh.find(key, tag, &s.a); ok {
		h.setN(0)
		if h.ban == 0 {
			s.dropID(sh, id, tag)
		}
	}
	sh.mu.Unlock()
	return nil
}

// Clear implements [Store] (spec STORE-7). It never fails.
func (s *MemStore) Clear(key string) error {
	sh, tag := s.lock(key)
	if _, id, ok := sh.find(key, tag, &s.a); ok {
		s.dropID(sh, id, tag)
	}
	sh.mu.Unlock()
	return nil
}

// Purge implements [Store] (spec STORE-9): it locks and sweeps one shard at
// a time. It also drops the reservations ([ReserveStore]) out of the window
// at now, which no count includes. It never fails.
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
	slots := sh.idx.slots
	for i := 0; i < len(slots); {
		e := slots[i]
		if e != 0 && s.purgeRecord(s.a.rec(uint32(e)-1), now, window) {
			s.dropID(sh, uint32(e)-1, e>>32)
			gone++
			continue // the next entry may have shifted back into slot i
		}
		i++
	}
	for key := range sh.held {
		s.liveHolds(sh, key, now, window)
	}
	return gone
}

// purgeRecord drops the expired stamps and ban of a live record and reports
// whether it no longer tracks its key.
func (s *MemStore) purgeRecord(h *head, now, window uint64) bool {
	n := inWindow(h.stamps(s.a.k), h.n(), now, window)
	h.setN(n)
	if h.ban <= now {
		h.ban = 0
	}
	return n == 0 && h.ban == 0
}
