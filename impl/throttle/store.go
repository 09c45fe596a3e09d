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

// StoreError is the error of a failed store operation: the seed's
// StoreError. Key is "" for purge. Err is the cause ([ErrFault], [ErrFull]
// or a store's own). Immutable once returned; safe to share.
type StoreError struct {
	Op  Op
	Key string
	Err error
}

// Error renders the operation, the key (quoted) and the cause.
func (e *StoreError) Error() string {
	if e.Op == OpPurge {
		return fmt.Sprintf("throttle: store %s: %v", e.Op, e.Err)
	}
	return fmt.Sprintf("throttle: store %s %q: %v", e.Op, e.Key, e.Err)
}

// Unwrap returns the cause.
func (e *StoreError) Unwrap() error { return e.Err }

// Store is the seed's ThrottleStore: the state of every key behind seven
// operations. Each operation either succeeds or returns an error and has no
// effect (spec STORE-1). Times and windows are uint64 seconds. A Store used by
// a [Throttle] shared between goroutines must be safe for concurrent use.
//
// Contract (spec STORE-2..STORE-9): a key holds a multiset of failure stamps
// and a ban-until (0: none); it is tracked iff it has a stamp or a ban-until
// > 0.
//   - BanUntil returns the key's ban-until (0 when untracked).
//   - Count returns how many of the key's stamps t have t + window > now.
//   - AddFailure adds the stamp now and returns Count at now, that stamp
//     included, as one operation.
//   - Ban sets ban-until to max(ban-until, until) and returns the result.
//   - ClearFailures removes the key's stamps and keeps its ban-until.
//   - Clear removes the key's stamps and its ban-until.
//   - Purge removes the stamps out of the window at now, sets every ban-until
//     <= now to 0, and returns how many keys stopped being tracked.
//
// A store may keep only the k largest stamps per key and report min(count, k)
// (spec PROP-17); it then says so with a StampsPerKey() uint64 method, and
// [New] refuses it for a threshold above k.
type Store interface {
	BanUntil(key string) (uint64, error)
	Count(key string, now, window uint64) (uint64, error)
	AddFailure(key string, now, window uint64) (uint64, error)
	Ban(key string, until uint64) (uint64, error)
	ClearFailures(key string) error
	Clear(key string) error
	Purge(now, window uint64) (uint64, error)
}

// FusedStore is an optional interface of a [Store] that serves the
// throttle's two hot paths in one atomic operation each. [New] detects it
// and [Throttle] then uses it instead of the two-operation sequences; the
// results must equal those sequences run alone. Implementations must be safe
// for concurrent use. Seconds throughout.
//   - CheckState returns BanUntil(key) and Count(key, now, window), read
//     together.
//   - FailAndBan runs AddFailure(key, now, window) and, when the count is >=
//     threshold, Ban(key, until); it returns the count and the key's
//     ban-until after the operation. An error has the *StoreError of the
//     operation that failed and no effect.
type FusedStore interface {
	Store
	CheckState(key string, now, window uint64) (until, count uint64, err error)
	FailAndBan(key string, now, window, threshold, until uint64) (count, banUntil uint64, err error)
}

// bounded is a store that keeps only StampsPerKey() stamps per key.
type bounded interface {
	StampsPerKey() uint64
}
