// Package good obeys the purity rule and must get no diagnostics.
package good

import (
	"errors"
	"math/big"
	"time"
)

// Limit is a constant, not a variable.
const Limit = 10

// Window is a duration, which is a value, not the wall clock.
const Window = 3 * time.Second

// Store is an interface checked at compile time below.
type Store interface{ Get(key string) int }

// MemStore is a map-backed Store.
type MemStore struct {
	counts map[string]int
	log    []string
	total  *big.Int
}

var _ Store = (*MemStore)(nil)

var _, _ = Limit, Window

// errEmpty is built by a function instead of a package-level variable.
func errEmpty() error { return errors.New("good: empty key") }

// NewMemStore returns an empty store.
func NewMemStore() *MemStore {
	return &MemStore{counts: map[string]int{}, total: new(big.Int)}
}

// Get returns the count for key.
func (s *MemStore) Get(key string) int { return s.counts[key] }

// Add mutates the receiver, which is allowed.
func (s *MemStore) Add(key string, at time.Time) error {
	if key == "" {
		return errEmpty()
	}
	var local int // function-level variables are fine
	local = s.counts[key] + 1
	s.counts[key] = local
	s.log = append(s.log, at.Add(Window).String())
	s.total.Add(s.total, big.NewInt(1))
	return nil
}

// Elapsed uses time values and methods, never the clock.
func Elapsed(from, to time.Time) time.Duration { return to.Sub(from) }
