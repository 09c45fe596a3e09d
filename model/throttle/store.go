package throttle

import "fmt"

// Op names a store operation. Fault rules and store errors name operations by
// these values, which are also their names in spec.md and the vectors.
type Op string

// The seven store operations (spec.md, area STORE).
const (
	OpBanUntil      Op = "ban_until"
	OpCount         Op = "count"
	OpAddFailure    Op = "add_failure"
	OpBan           Op = "ban"
	OpClearFailures Op = "clear_failures"
	OpClear         Op = "clear"
	OpPurge         Op = "purge"
)

// ErrFault is the cause of every error a [FaultStore] injects.
const ErrFault Error = "throttle: injected store fault"

// StoreError is the error of a failed store operation: the seed's StoreError.
// Key is "" for purge.
type StoreError struct {
	Op  Op
	Key string
	Err error
}

func (e *StoreError) Error() string {
	if e.Op == OpPurge {
		return fmt.Sprintf("throttle: store %s: %v", e.Op, e.Err)
	}
	return fmt.Sprintf("throttle: store %s %q: %v", e.Op, e.Key, e.Err)
}

// Unwrap returns the cause.
func (e *StoreError) Unwrap() error { return e.Err }

// Store is the seed's ThrottleStore: the state of every key, behind seven
// operations. Each operation either succeeds or returns an error and has no
// effect. Times are uint64 seconds.
//
// The model's stores are exact; the throttle never relies on more than
// the top threshold stamps of a key, which is what makes a top-k store a
// permitted variant.
//
// spec STORE-11: "Two store variants are permitted; a throttle over either gives every result the clauses above give over the exact store"
//
// Contract (spec STORE-2..STORE-9): a key holds a multiset of failure stamps and
// a ban-until (0: none).
//   - BanUntil returns the key's ban-until.
//   - Count returns how many of the key's stamps are in the window at now.
//   - AddFailure adds the stamp now and returns Count at now, that stamp included.
//   - Ban sets ban-until to max(ban-until, until) and returns the result.
//   - ClearFailures removes the key's stamps and keeps its ban-until.
//   - Clear removes the key's stamps and its ban-until.
//   - Purge drops expired state and returns how many keys stopped being tracked.
type Store interface {
	BanUntil(key string) (uint64, error)
	Count(key string, now, window uint64) (uint64, error)
	AddFailure(key string, now, window uint64) (uint64, error)
	Ban(key string, until uint64) (uint64, error)
	ClearFailures(key string) error
	Clear(key string) error
	Purge(now, window uint64) (uint64, error)
}
