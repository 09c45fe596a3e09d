package throttle

import (
	"errors"
	"fmt"
)

// The operations of a [ReserveStore], as store errors name them. They are
// this package's extension, not spec.md's store operations.
const (
	OpReserve        Op = "reserve"         // OpReserve is Reserve's: check and reserve
	OpCancelReserved Op = "cancel_reserved" // OpCancelReserved is CancelReserved's
)

// ReserveStore is an optional interface of a [Store] that holds
// reservations: attempts in flight (a login whose password is being
// verified) that count as failures until they are settled. Kept where the
// failures are, in the step that checks them, they bound the attempts of
// every process that shares the store, not of one. It is an extension of
// this package, not a spec.md operation: reservations change no result of
// the seven operations (Count, tracking and Purge's count ignore them), and
// a store with none held behaves as the spec says. [New] detects it; use it
// through [Throttle.Reserve], [Throttle.FailReserved] and
// [Throttle.CancelReserved]. Implementations must be safe for concurrent
// use. Seconds throughout.
//
//   - Reserve, as one atomic operation, reads key's ban-until (Until), its
//     Count(key, now, window) (Count) and its reservations stamped t with
//     InWindow(t, window, now) (Held); then, unless the key is banned at
//     now (IsBanned) or p = held + Held > 0 and Count + p >= threshold,
//     adds a reservation stamped now and returns its ID: non-empty, unique
//     in the store. held is what the caller counts besides (its own
//     entries kept outside the store). ID is "" when nothing was reserved.
//     A reservation never settled stops counting when a failure stamped
//     now would leave the window (spec THR-4), and its memory is freed by
//     then or later (a purge, a TTL): a crashed caller leaks nothing for
//     good. An error has no effect.
//   - FailReserved is FailAndBan(key, now, window, threshold, until) and
//     the end of reservation id (if it is still held, and id is not ""),
//     as one atomic operation: the reservation becomes the failure, with no
//     moment in which neither counts. An error has no effect.
//   - CancelReserved ends reservation id, if it is held, recording nothing.
type ReserveStore interface {
	Store
	Reserve(key string, now, window, threshold, held uint64) (Reserved, error)
	FailReserved(key, id string, now, window, threshold, until uint64) (count, banUntil uint64, err error)
	CancelReserved(key, id string) error
}

// Reserved is what [ReserveStore.Reserve] read and made: the key's
// ban-until and count at now, its reservations that count at now (before
// the new one) and the new reservation's id ("" when none was made). A
// value type.
type Reserved struct {
	Until uint64 // the ban-until read (seconds; 0: none)
	Count uint64 // failures in the window at now, min(count, k)
	Held  uint64 // reservations that count at now, the new one not included
	ID    string // the reservation made; "" when none
}

// Reservation is the outcome of [Throttle.Reserve]. A value type.
type Reservation struct {
	// Decision is check's at now, from the same read: Banned (Until), or
	// Allow with the quota left after the key's failures (reservations not
	// subtracted).
	Decision Decision
	// Held is the key's reservations that count at now, every process's,
	// before this one.
	Held uint64
	// ID names the reservation made, for [Throttle.FailReserved] or
	// [Throttle.CancelReserved]; "" when Reserve refused: the key is
	// banned, or busy (Held + held > 0 and failures + Held + held >=
	// threshold).
	ID string
}

// Reserves reports whether t's store holds reservations (a [ReserveStore]).
func (t *Throttle) Reserves() bool { return t.res != nil }

// Reserve checks key at now and reserves an attempt on it in one atomic
// store operation ([ReserveStore]): refused (ID "") when the key is banned
// or when held + its reservations > 0 and failures + reservations + held
// >= threshold, else reserved. With held 0 and no reservation in flight
// this is the seed's check (spec THR-7, THR-8): one attempt goes ahead
// whatever the count, as check allows it. held counts the caller's own
// entries kept outside the store. Settle a reservation once, with
// FailReserved or CancelReserved; one never settled expires at the end of
// the window. Over a store that is not a ReserveStore, or when the store
// fails, it returns an error (errors.ErrUnsupported for the former) and
// reserves nothing. now is in seconds.
func (t *Throttle) Reserve(key string, now, held uint64) (Reservation, error) {
	if t.res == nil {
		return Reservation{}, unsupported(OpReserve, key)
	}
	r, err := t.res.Reserve(key, now, t.cfg.WindowSecs, t.cfg.Threshold, held)
	if err != nil {
		return Reservation{}, fmt.Errorf("throttle: reserve: %w", err)
	}
	return Reservation{Decision: t.decide(r.Until, r.Count, now), Held: r.Held, ID: r.ID}, nil
}

// FailReserved is RecordFailure(key, now) that also ends reservation id,
// in one atomic store operation: the reservation becomes the failure. Its
// Decision and errors are RecordFailure's; an error has no effect (the
// reservation stays until the window ends or CancelReserved). Over a store
// that is not a [ReserveStore] it returns an error wrapping
// errors.ErrUnsupported. now is in seconds.
func (t *Throttle) FailReserved(key, id string, now uint64) (Decision, error) {
	if t.res == nil {
		return Decision{}, unsupported(OpAddFailure, key)
	}
	c := &t.cfg
	n, until, err := t.res.FailReserved(key, id, now, c.WindowSecs, c.Threshold, BanUntil(now, c.BanSecs))
	if err != nil {
		return Decision{}, fmt.Errorf("throttle: record_failure: %w", err)
	}
	return t.outcome(n, until), nil
}

// CancelReserved ends reservation id of key, recording nothing (a success,
// or an attempt given back). A store failure is returned; the reservation
// then expires at the end of its window. Over a store that is not a
// [ReserveStore] it returns an error wrapping errors.ErrUnsupported.
func (t *Throttle) CancelReserved(key, id string) error {
	if t.res == nil {
		return unsupported(OpCancelReserved, key)
	}
	if err := t.res.CancelReserved(key, id); err != nil {
		return fmt.Errorf("throttle: cancel_reserved: %w", err)
	}
	return nil
}

// unsupported is the error of a reservation over a store without them.
func unsupported(op Op, key string) error {
	return fmt.Errorf("throttle: %s: %w", op, &StoreError{Op: op, Key: key, Err: errors.ErrUnsupported})
}
