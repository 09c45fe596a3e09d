package throttle

import "slices"

// Fault is a fault-injection rule: it makes the operations Op fail, for the
// keys in Keys, or for every key when Keys is empty. purge has no key, so only a
// rule with empty Keys matches it.
type Fault struct {
	Op   Op       `json:"op"`
	Keys []string `json:"keys,omitempty"`
}

// matches reports whether the rule fails operation op on key.
func (f Fault) matches(op Op, key string) bool {
	// spec STORE-10: "An operation fails iff some fault rule names its op and either lists no keys or lists its key; purge matches only rules that list no keys."
	if f.Op != op {
		return false
	}
	if len(f.Keys) == 0 {
		return true
	}
	return op != OpPurge && slices.Contains(f.Keys, key)
}

// FaultStore wraps a [Store] and fails the operations its rules match: a failed
// operation does not reach the inner store and returns a [*StoreError]
// wrapping [ErrFault]. Build one with [NewFaultStore]; not safe for concurrent use.
type FaultStore struct {
	inner  Store
	faults []Fault
}

var _ Store = (*FaultStore)(nil)

// NewFaultStore returns a wrapper of inner with no fault rule.
func NewFaultStore(inner Store) *FaultStore { return &FaultStore{inner: inner} }

// SetFaults replaces the fault rules; no argument clears them.
func (s *FaultStore) SetFaults(faults ...Fault) { s.faults = slices.Clone(faults) }

// Faults returns a copy of the current rules.
func (s *FaultStore) Faults() []Fault { return slices.Clone(s.faults) }

// fail returns the injected error of op on key, or nil.
func (s *FaultStore) fail(op Op, key string) error {
	for _, f := range s.faults {
		if f.matches(op, key) {
			// spec STORE-1: "A store operation either succeeds or fails with a store error and no effect."
			return &StoreError{Op: op, Key: key, Err: ErrFault}
		}
	}
	return nil
}

// BanUntil implements [Store].
func (s *FaultStore) BanUntil(key string) (uint64, error) {
	if err := s.fail(OpBanUntil, key); err != nil {
		return 0, err
	}
	return s.inner.BanUntil(key)
}

// Count implements [Store].
func (s *FaultStore) Count(key string, now, window uint64) (uint64, error) {
	if err := s.fail(OpCount, key); err != nil {
		return 0, err
	}
	return s.inner.Count(key, now, window)
}

// AddFailure implements [Store].
func (s *FaultStore) AddFailure(key string, now, window uint64) (uint64, error) {
	if err := s.fail(OpAddFailure, key); err != nil {
		return 0, err
	}
	return s.inner.AddFailure(key, now, window)
}

// Ban implements [Store].
func (s *FaultStore) Ban(key string, until uint64) (uint64, error) {
	if err := s.fail(OpBan, key); err != nil {
		return 0, err
	}
	return s.inner.Ban(key, until)
}

// ClearFailures implements [Store].
func (s *FaultStore) ClearFailures(key string) error {
	if err := s.fail(OpClearFailures, key); err != nil {
		return err
	}
	return s.inner.ClearFailures(key)
}

// Clear implements [Store].
func (s *FaultStore) Clear(key string) error {
	if err := s.fail(OpClear, key); err != nil {
		return err
	}
	return s.inner.Clear(key)
}

// Purge implements [Store].
func (s *FaultStore) Purge(now, window uint64) (uint64, error) {
	if err := s.fail(OpPurge, ""); err != nil {
		return 0, err
	}
	return s.inner.Purge(now, window)
}
