package throttle

import "fmt"

// Verdict is the kind of a [Decision].
type Verdict string

// The verdicts. RecordFailure returns only Allow and Banned (the seed's
// ThrottleOutcome); Check and CheckAny return all three (ThrottleDecision).
const (
	Allow       Verdict = "allow"       // not banned; Remaining failures before a ban
	Banned      Verdict = "banned"      // banned until Until (exclusive)
	Unavailable Verdict = "unavailable" // the store failed: the caller decides (not fail-closed)
)

// Decision is the seed's ThrottleDecision (and ThrottleOutcome): Remaining is
// set only for Allow, Until only for Banned.
type Decision struct {
	Verdict   Verdict `json:"verdict"`
	Remaining uint64  `json:"remaining"`
	Until     uint64  `json:"until"`
}

// Throttle is the seed's Throttle<S: ThrottleStore>. Build one with [New].
// Safe for concurrent use only if its store is (the model stores are not).
type Throttle struct {
	store Store
	cfg   Config
}

// New is the seed's Throttle::new. It returns an error wrapping [ErrConfig]
// when cfg is invalid or store is nil: a throttle that cannot limit is never
// built.
func New(store Store, cfg Config) (*Throttle, error) {
	// spec THR-6: "new(store, config) fails with a config error when the config is invalid (THR-1)" (and, in Go, refuses a nil store).
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if missing(store) {
		return nil, fmt.Errorf("%w: store is nil", ErrConfig)
	}
	return &Throttle{store: store, cfg: cfg}, nil
}

// missing reports whether store is nil, or a nil pointer to one of this
// package's stores.
func missing(store Store) bool {
	switch s := store.(type) {
	case nil:
		return true
	case *MemStore:
		return s == nil
	case *FaultStore:
		return s == nil
	}
	return false
}

// Config is the seed's Throttle::config.
func (t *Throttle) Config() Config { return t.cfg }

// Check is the seed's check(key, now): the ban first, then the remaining quota.
// A store error gives Unavailable, never Banned.
func (t *Throttle) Check(key string, now uint64) Decision {
	// spec THR-17: "Keys are opaque byte strings, the empty key included; an operation on one key never changes the result of another."
	// spec THR-7: "check reads ban_until first: a store error gives Unavailable; a ban in force gives Banned{until} without a count."
	until, err := t.store.BanUntil(key)
	if err != nil {
		return Decision{Verdict: Unavailable}
	}
	if IsBanned(until, now) {
		return Decision{Verdict: Banned, Until: until}
	}
	// spec THR-8: "check then counts: a store error gives Unavailable, else Allow{threshold - min(count, threshold)}."
	n, err := t.store.Count(key, now, t.cfg.WindowSecs)
	if err != nil {
		return Decision{Verdict: Unavailable}
	}
	return Decision{Verdict: Allow, Remaining: t.cfg.Threshold - min(n, t.cfg.Threshold)}
}

// CheckAny is the seed's check_any(keys, now): every key checked on its own,
// the strictest result wins.
func (t *Throttle) CheckAny(keys []string, now uint64) Decision {
	// spec THR-9: "check_any of no keys is Allow{remaining 0}, never full quota."
	if len(keys) == 0 {
		return Decision{Verdict: Allow, Remaining: 0}
	}
	// spec THR-10: "check_any checks every key as check does; any Banned gives Banned with the latest until, else any Unavailable gives Unavailable, else Allow with the least remaining."
	out := t.Check(keys[0], now)
	for _, key := range keys[1:] {
		out = stricter(out, t.Check(key, now))
	}
	return out
}

// stricter combines two check results by check_any's rule.
func stricter(a, b Decision) Decision {
	switch {
	case a.Verdict == Banned && b.Verdict == Banned:
		return Decision{Verdict: Banned, Until: max(a.Until, b.Until)}
	case a.Verdict == Banned:
		return a
	case b.Verdict == Banned:
		return b
	case a.Verdict == Unavailable:
		return a
	case b.Verdict == Unavailable:
		return b
	}
	return Decision{Verdict: Allow, Remaining: min(a.Remaining, b.Remaining)}
}

// RecordFailure is the seed's record_failure(key, now): count the failure, and
// ban when the count reaches the threshold. Its Decision is Allow or Banned,
// never Unavailable; a store fault is an error.
func (t *Throttle) RecordFailure(key string, now uint64) (Decision, error) {
	// spec THR-11: "record_failure first calls add_failure(key, now, window); a store error is returned and nothing is recorded."
	n, err := t.store.AddFailure(key, now, t.cfg.WindowSecs)
	if err != nil {
		return Decision{}, fmt.Errorf("throttle: record_failure: %w", err)
	}
	if n < t.cfg.Threshold {
		// spec THR-12: "A count below threshold gives Allow{threshold - count}, whether or not a ban is in force."
		return Decision{Verdict: Allow, Remaining: t.cfg.Threshold - n}, nil
	}
	// spec THR-13: "the outcome is banned{until}, where until is the key's ban-until after the write (the value STORE-5's ban returns)"; a ban error is returned and the failure stays counted.
	until, err := t.store.Ban(key, BanUntil(now, t.cfg.BanSecs))
	if err != nil {
		return Decision{}, fmt.Errorf("throttle: record_failure: %w", err)
	}
	return Decision{Verdict: Banned, Until: until}, nil
}

// RecordSuccess is the seed's record_success(key): clear the failure count and
// keep any ban, so that on a shared key another user's success cannot lift an
// attacker's ban.
func (t *Throttle) RecordSuccess(key string) error {
	// spec THR-14: "record_success calls clear_failures(key): the count is cleared, a ban is kept; a store error is returned."
	if err := t.store.ClearFailures(key); err != nil {
		return fmt.Errorf("throttle: record_success: %w", err)
	}
	return nil
}

// Reset is the seed's reset(key): the manual unban and unlimit.
func (t *Throttle) Reset(key string) error {
	// spec THR-15: "reset calls clear(key): count and ban are cleared; a store error is returned."
	if err := t.store.Clear(key); err != nil {
		return fmt.Errorf("throttle: reset: %w", err)
	}
	return nil
}

// PurgeExpired is the seed's purge_expired(now): drop state that no decision at
// any now' >= now can see, and return how many keys stopped being tracked.
func (t *Throttle) PurgeExpired(now uint64) (uint64, error) {
	// spec THR-16: "purge_expired(now) calls purge(now, window) and returns its count; a store error is returned."
	n, err := t.store.Purge(now, t.cfg.WindowSecs)
	if err != nil {
		return 0, fmt.Errorf("throttle: purge_expired: %w", err)
	}
	return n, nil
}
