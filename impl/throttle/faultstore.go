package throttle

import (
	"math"
	"slices"
	"sync/atomic"
)

// Fault is a fault-injection rule (spec STORE-10): it makes the operations Op
// fail, for the keys in Keys, or for every key when Keys is empty. purge has
// no key, so only a rule with empty Keys matches it.
type Fault struct {
	Op   Op       `json:"op"`
	Keys []string `json:"keys,omitempty"`
}

// matches reports whether the rule fails operation op on key.
func (f Fault) matches(op Op, key string) bool {
	if f.Op != op {
		return false
	}
	if len(f.Keys) == 0 {
		return true
	}
	return op != OpPurge && slices.Contains(f.Keys, key)
}

// FaultStore wraps a [Store] and fails the operations its rules match: a
// failed operation does not reach the inner store and returns a [*StoreError]
// wrapping [ErrFault] (spec STORE-1, STORE-10). It never uses a [FusedStore]
// path, so a [Throttle] over it makes the seven operations in the model's
// order, and it holds no reservations (it is not a [ReserveStore], whatever
// its inner store). Build one with [NewFaultStore]. Safe for concurrent use when the
// inner store is; a rule change is atomic, but an operation reads the rules
// and then runs, so one racing a SetFaults may be ordered on either side of
// it (fuzz/TestLinFaultStoreRuleChangeIsNotAtomicWithOps pins a case). It is
// a test tool: change rules between phases.
type FaultStore struct {
	inner  Store
	faults atomic.Pointer[[]Fault]
}

var _ Store = (*FaultStore)(nil)

// NewFaultStore returns a wrapper of inner with no fault rule.
func NewFaultStore(inner Store) *FaultStore { return &FaultStore{inner: inner} }

// SetFaults replaces the rules as a whole; no argument clears them. The
// rules are copied.
func (s *FaultStore) SetFaults(faults ...Fault) {
	rules := cloneFaults(faults)
	s.faults.Store(&rules)
}

// Faults returns a copy of the current rules: nil before any rule was set or
// after SetFaults(), like the model.
func (s *FaultStore) Faults() []Fault {
	if p := s.faults.Load(); p != nil {
		return cloneFaults(*p)
	}
	return nil
}

// cloneFaults deep-copies rules, keeping nil slices nil.
func cloneFaults(rules []Fault) []Fault {
	out := slices.Clone(rules)
	for i := range out {
		out[i].Keys = slices.Clone(out[i].Keys)
	}
	return out
}

// StampsPerKey returns the inner store's StampsPerKey, or MaxUint64 when the
// inner store keeps every stamp, so that [New] checks the wrapped store.
func (s *FaultStore) StampsPerKey() uint64 {
	if b, ok := s.inner.(bounded); ok {
		return b.StampsPerKey()
	}
	return math.MaxUint64
}

// fail returns the injected error of op on key, or nil.
func (s *FaultStore) fail(op Op, key string) error {
	p := s.faults.Load()
	if p == nil {
		return nil
	}
	for _, f := range *p {
		if f.matches(op, key) {
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
