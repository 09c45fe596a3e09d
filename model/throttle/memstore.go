package throttle

// MemStore is the exact [Store]: it keeps every failure stamp of every key. It
// never fails. The zero MemStore is not usable; build one with [NewMemStore].
// Not safe for concurrent use.
type MemStore struct {
	keys map[string]*record // tracked keys only
}

// record is the state of one tracked key.
type record struct {
	stamps []uint64 // every failure stamp, in arrival order
	until  uint64   // ban-until; 0: never banned
}

// empty reports whether the record no longer makes its key tracked.
func (r *record) empty() bool {
	// spec STORE-8: "A key is tracked iff it has at least one stamp or a ban-until > 0."
	return len(r.stamps) == 0 && r.until == 0
}

var _ Store = (*MemStore)(nil)

// NewMemStore returns an empty store.
func NewMemStore() *MemStore { return &MemStore{keys: map[string]*record{}} }

// Tracked returns the number of tracked keys.
func (s *MemStore) Tracked() int { return len(s.keys) }

// BanUntil implements [Store].
func (s *MemStore) BanUntil(key string) (uint64, error) {
	// spec STORE-2: "ban_until(key) returns the key's ban-until, 0 for an untracked key."
	if r, ok := s.keys[key]; ok {
		return r.until, nil
	}
	return 0, nil
}

// Count implements [Store].
func (s *MemStore) Count(key string, now, window uint64) (uint64, error) {
	// spec STORE-3: "count(key, now, window) returns how many of the key's stamps t satisfy t + window > now."
	r, ok := s.keys[key]
	if !ok {
		return 0, nil
	}
	var n uint64
	for _, t := range r.stamps {
		if InWindow(t, window, now) {
			n++
		}
	}
	return n, nil
}

// AddFailure implements [Store].
func (s *MemStore) AddFailure(key string, now, window uint64) (uint64, error) {
	// spec STORE-4: "add_failure(key, now, window) adds the stamp now and returns count(key, now, window), that stamp included."
	r := s.get(key)
	r.stamps = append(r.stamps, now)
	return s.Count(key, now, window)
}

// Ban implements [Store].
func (s *MemStore) Ban(key string, until uint64) (uint64, error) {
	// spec STORE-5: "ban(key, until) sets ban-until to max(ban-until, until) and returns it: a ban never shortens another."
	r := s.get(key)
	r.until = max(r.until, until)
	s.drop(key, r) // until may be 0 on an out-of-contract call
	return r.until, nil
}

// ClearFailures implements [Store].
func (s *MemStore) ClearFailures(key string) error {
	// spec STORE-6: "clear_failures(key) removes every stamp of the key and keeps its ban-until."
	if r, ok := s.keys[key]; ok {
		r.stamps = nil
		s.drop(key, r)
	}
	return nil
}

// Clear implements [Store].
func (s *MemStore) Clear(key string) error {
	// spec STORE-7: "clear(key) removes every stamp and the ban-until of the key."
	delete(s.keys, key)
	return nil
}

// Purge implements [Store].
func (s *MemStore) Purge(now, window uint64) (uint64, error) {
	var n uint64
	for key, r := range s.keys {
		// spec STORE-9: "purge(now, window) drops every stamp not in the window at now, sets every ban-until <= now to 0, and returns how many keys stopped being tracked."
		kept := r.stamps[:0]
		for _, t := range r.stamps {
			if InWindow(t, window, now) {
				kept = append(kept, t)
			}
		}
		r.stamps = kept
		if !IsBanned(r.until, now) {
			r.until = 0
		}
		if r.empty() {
			delete(s.keys, key)
			n++
		}
	}
	return n, nil
}

// get returns the record of key, creating it.
func (s *MemStore) get(key string) *record {
	r, ok := s.keys[key]
	if !ok {
		r = &record{}
		s.keys[key] = r
	}
	return r
}

// drop forgets key when its record is empty.
func (s *MemStore) drop(key string, r *record) {
	if r.empty() {
		delete(s.keys, key)
	}
}
