package throttle

import (
	"slices"
	"strconv"
)

// hold is one reservation of a key in a [MemStore]: its stamp and id.
type hold struct {
	t  uint64
	id string
}

// Reserve implements [ReserveStore]: the key's ban-until, count and
// reservations are read and the reservation added under the key's shard
// lock, the lock every other operation on the key takes. Reservations are
// kept beside the records (per shard, by key), at most MaxKeys in all: when
// that many are held, Reserve first reclaims as a full store does (a sweep
// of the store at now, at most one per second of now, see [MemStore]) and
// then fails with a *StoreError (op reserve) wrapping [ErrFull], having
// reserved nothing. A reservation does not make its key tracked.
func (s *MemStore) Reserve(key string, now, window, threshold, held uint64) (Reserved, error) {
	r, full := s.reserveOnce(key, now, window, threshold, held)
	if full && s.reclaimUnlocked(nil, now, window) {
		r, full = s.reserveOnce(key, now, window, threshold, held)
	}
	if full {
		return Reserved{}, &StoreError{Op: OpReserve, Key: key, Err: ErrFull}
	}
	return r, nil
}

// reserveOnce is Reserve without its reclaim: full reports that the
// reservation was due but no room was left.
func (s *MemStore) reserveOnce(key string, now, window, threshold, held uint64) (r Reserved, full bool) {
	sh, _, h, _ := s.locate(key)
	defer sh.mu.Unlock()
	if h != nil {
		r.Until, r.Count = h.ban, uint64(inWindow(h.stamps(s.a.k), h.n(), now, window))
	}
	hs := s.liveHolds(sh, key, now, window)
	r.Held = uint64(len(hs))
	if IsBanned(r.Until, now) || busy(r.Count, r.Held, held, threshold) {
		return r, false
	}
	if !takeUpTo(&s.holds, s.maxKeys) {
		return r, true
	}
	r.ID = strconv.FormatUint(s.holdSeq.Add(1), 36)
	s.putHolds(sh, key, append(hs, hold{t: now, id: r.ID}))
	return r, false
}

// busy reports whether a key with count failures and held + more
// reservations refuses one more: some are in flight and count + all of
// them >= threshold (no overflow).
func busy(count, held, more, threshold uint64) bool {
	p := held + more
	if p < held { // more is huge: it alone passes any threshold
		return true
	}
	return p > 0 && (count >= threshold || p >= threshold-count)
}

// CancelReserved implements [ReserveStore]. It never fails.
func (s *MemStore) CancelReserved(key, id string) error {
	sh, _ := s.lock(key)
	s.dropHold(sh, key, id)
	sh.mu.Unlock()
	return nil
}

// Reservations returns how many reservations the store holds, read
// atomically: those that stopped counting included, until a purge or the
// key's next reservation drops them.
func (s *MemStore) Reservations() int { return int(s.holds.Load()) }

// liveHolds returns key's reservations that count at now, dropping the
// others. sh is locked.
func (s *MemStore) liveHolds(sh *shard, key string, now, window uint64) []hold {
	hs := sh.held[key]
	live := slices.DeleteFunc(hs, func(x hold) bool { return !InWindow(x.t, window, now) })
	if gone := len(hs) - len(live); gone > 0 {
		s.holds.Add(-int64(gone))
		s.putHolds(sh, key, live)
	}
	return live
}

// dropHold ends reservation id of key, if held. sh is locked.
func (s *MemStore) dropHold(sh *shard, key, id string) {
	hs := sh.held[key]
	i := slices.IndexFunc(hs, func(x hold) bool { return x.id == id })
	if i < 0 {
		return
	}
	s.holds.Add(-1)
	s.putHolds(sh, key, slices.Delete(hs, i, i+1))
}

// putHolds stores key's reservations, forgetting the key when there are
// none. sh is locked.
func (s *MemStore) putHolds(sh *shard, key string, hs []hold) {
	if len(hs) == 0 {
		delete(sh.held, key)
		return
	}
	if sh.held == nil {
		sh.held = make(map[string][]hold)
	}
	sh.held[key] = hs
}
