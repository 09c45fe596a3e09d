package throttle_test

import (
	"math/bits"

	"github.com/limcheck/limcheck/impl/throttle"
)

// refStore is the test's exact store: it keeps every stamp, like spec STORE
// says, with none of MemStore's structure. Not safe for concurrent use.
type refStore struct {
	stamps map[string][]uint64
	until  map[string]uint64
}

var _ throttle.Store = (*refStore)(nil)

func newRef() *refStore {
	return &refStore{stamps: map[string][]uint64{}, until: map[string]uint64{}}
}

// counts reports t + window > now with a 65-bit sum.
func counts(t, window, now uint64) bool {
	sum, carry := bits.Add64(t, window, 0)
	return carry == 1 || sum > now
}

func (s *refStore) BanUntil(key string) (uint64, error) { return s.until[key], nil }

func (s *refStore) Count(key string, now, window uint64) (uint64, error) {
	var n uint64
	for _, t := range s.stamps[key] {
		if counts(t, window, now) {
			n++
		}
	}
	return n, nil
}

func (s *refStore) AddFailure(key string, now, window uint64) (uint64, error) {
	s.stamps[key] = append(s.stamps[key], now)
	return s.Count(key, now, window)
}

func (s *refStore) Ban(key string, until uint64) (uint64, error) {
	if u := max(s.until[key], until); u > 0 {
		s.until[key] = u
	}
	return s.until[key], nil
}

func (s *refStore) ClearFailures(key string) error { delete(s.stamps, key); return nil }

func (s *refStore) Clear(key string) error {
	delete(s.stamps, key)
	delete(s.until, key)
	return nil
}

func (s *refStore) Purge(now, window uint64) (uint64, error) {
	before := s.tracked()
	for key, st := range s.stamps {
		var kept []uint64
		for _, t := range st {
			if counts(t, window, now) {
				kept = append(kept, t)
			}
		}
		s.stamps[key] = kept
		if len(kept) == 0 {
			delete(s.stamps, key)
		}
	}
	for key, u := range s.until {
		if u <= now {
			delete(s.until, key)
		}
	}
	return uint64(before - s.tracked()), nil
}

// tracked returns the number of keys with a stamp or a ban-until > 0.
func (s *refStore) tracked() int {
	n := len(s.stamps)
	for key := range s.until {
		if _, ok := s.stamps[key]; !ok {
			n++
		}
	}
	return n
}
