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

// Decision is the seed's ThrottleDecision (and ThrottleOutcome): Remaining
// (a count of failures) is set only for Allow, Until (seconds) only for
// Banned. A value type.
type Decision struct {
	Verdict   Verdict `json:"verdict"`
	Remaining uint64  `json:"remaining"`
	Until     uint64  `json:"until"`
}

// Throttle is the seed's Throttle<S: ThrottleStore>. Build one with [New].
// It holds no mutable state of its own: it is safe for concurrent use when
// its store is ([MemStore] is; [FaultStore] is when its inner store is).
// Over a [FusedStore] each Check and RecordFailure is one atomic store
// operation; over any other store they are the model's two operations, and
// another goroutine may act on the key between them.
type Throttle struct {
	store Store
	fused FusedStore   // nil: the seven operations only
	res   ReserveStore // nil: no reservations
	mem   *MemStore    // store as a *MemStore (nil: another store), called directly
	cfg   Config
}

// New is the seed's Throttle::new (spec THR-6). It returns an error wrapping
// [ErrConfig] when cfg is invalid, when store is nil (also a nil *MemStore or
// *FaultStore), or when store keeps fewer stamps per key than cfg.Threshold
// (see [MemStore]). It uses store's [FusedStore] paths when it has them,
// and its [ReserveStore] operations for Reserve and the like.
func New(store Store, cfg Config) (*Throttle, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if isNil(store) {
		return nil, fmt.Errorf("%w: store is nil", ErrConfig)
	}
	if b, ok := store.(bounded); ok && b.StampsPerKey() < cfg.Threshold {
		return nil, fmt.Errorf("%w: store keeps %d stamps per key, below threshold %d", ErrConfig, b.StampsPerKey(), cfg.Threshold)
	}
	t := &Throttle{store: store, cfg: cfg}
	t.fused, _ = store.(FusedStore)
	t.res, _ = store.(ReserveStore)
	t.mem, _ = store.(*MemStore)
	return t, nil
}

// isNil reports whether store is missing: nil, or a nil pointer of this
// package's stores.
func isNil(store Store) bool {
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

// Config is the seed's Throttle::config: the config t was built with.
func (t *Throttle) Config() Config { return t.cfg }

// Check is the seed's check(key, now) (spec THR-7, THR-8): the ban first,
// then the remaining quota. A store error gives Unavailable, never Banned.
// now is in seconds.
func (t *Throttle) Check(key string, now uint64) Decision {
	if t.mem != nil {
		until, n := t.mem.checkState(key, now, t.cfg.WindowSecs)
		return t.decide(until, n, now)
	}
	if t.fused != nil {
		until, n, err := t.fused.CheckState(key, now, t.cfg.WindowSecs)
		if err != nil {
			return Decision{Verdict: Unavailable}
		}
		return t.decide(until, n, now)
	}
	until, err := t.store.BanUntil(key)
	if err != nil {
		return Decision{Verdict: Unavailable}
	}
	if IsBanned(until, now) {
		return Decision{Verdict: Banned, Until: until}
	}
	n, err := t.store.Count(key, now, t.cfg.WindowSecs)
	if err != nil {
		return Decision{Verdict: Unavailable}
	}
	return t.allow(n)
}

// decide is check's decision from a ban-until and a count.
func (t *Throttle) decide(until, n, now uint64) Decision {
	if IsBanned(until, now) {
		return Decision{Verdict: Banned, Until: until}
	}
	return t.allow(n)
}

// allow is Allow with the quota left after n failures.
func (t *Throttle) allow(n uint64) Decision {
	return Decision{Verdict: Allow, Remaining: t.cfg.Threshold - min(n, t.cfg.Threshold)}
}

// CheckAny is the seed's check_any(keys, now) (spec THR-9, THR-10): every key
// checked on its own, duplicates included; any Banned wins with the latest
// until, else any Unavailable, else Allow with the least remaining. No keys
// gives Allow{0}. now is in seconds.
//
// Each key's check is atomic, the set of them is not: a CheckAny over two
// keys running beside a record_failure on one and a reset of the other can
// see the first before and the second after, a result no sequential order
// gives (fuzz/TestLinCheckAnyOfDistinctKeysIsNotLinearizable pins a case).
// The seed specifies the keys as looked up one by one; a snapshot across keys
// would take every key's shard lock at once.
func (t *Throttle) CheckAny(keys []string, now uint64) Decision {
	if len(keys) == 0 {
		return Decision{Verdict: Allow, Remaining: 0}
	}
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

// RecordFailure is the seed's record_failure(key, now) (spec THR-11..THR-13):
// count the failure, and ban until now + BanSecs (saturated) when the count
// reaches the threshold. Its Decision is Allow or Banned; a store failure is
// an error wrapping the *StoreError (add_failure: nothing recorded; ban: the
// failure stays counted). now is in seconds.
func (t *Throttle) RecordFailure(key string, now uint64) (Decision, error) {
	if t.fused != nil {
		return t.recordFused(key, now)
	}
	n, err := t.store.AddFailure(key, now, t.cfg.WindowSecs)
	if err != nil {
		return Decision{}, fmt.Errorf("throttle: record_failure: %w", err)
	}
	if n < t.cfg.Threshold {
		return Decision{Verdict: Allow, Remaining: t.cfg.Threshold - n}, nil
	}
	until, err := t.store.Ban(key, BanUntil(now, t.cfg.BanSecs))
	if err != nil {
		return Decision{}, fmt.Errorf("throttle: record_failure: %w", err)
	}
	return Decision{Verdict: Banned, Until: until}, nil
}

// recordFused is RecordFailure over a [FusedStore]: one atomic operation.
func (t *Throttle) recordFused(key string, now uint64) (Decision, error) {
	c := &t.cfg
	var n, until uint64
	var err error
	if t.mem != nil {
		n, until, err = t.mem.FailAndBan(key, now, c.WindowSecs, c.Threshold, BanUntil(now, c.BanSecs))
	} else {
		n, until, err = t.fused.FailAndBan(key, now, c.WindowSecs, c.Threshold, BanUntil(now, c.BanSecs))
	}
	if err != nil {
		return Decision{}, fmt.Errorf("throttle: record_failure: %w", err)
	}
	return t.outcome(n, until), nil
}

// outcome is record_failure's outcome from the count after the failure and
// the key's ban-until after it.
func (t *Throttle) outcome(n, until uint64) Decision {
	if n < t.cfg.Threshold {
		return Decision{Verdict: Allow, Remaining: t.cfg.Threshold - n}
	}
	return Decision{Verdict: Banned, Until: until}
}

// RecordSuccess is the seed's record_success(key) (spec THR-14): clear the
// failure count and keep any ban, so that on a shared key another user's
// success cannot lift an attacker's ban. A store failure is returned.
func (t *Throttle) RecordSuccess(key string) error {
	if err := t.store.ClearFailures(key); err != nil {
		return fmt.Errorf("throttle: record_success: %w", err)
	}
	return nil
}

// Reset is the seed's reset(key) (spec THR-15): the manual unban and
// unlimit. A store failure is returned.
func (t *Throttle) Reset(key string) error {
	if err := t.store.Clear(key); err != nil {
		return fmt.Errorf("throttle: reset: %w", err)
	}
	return nil
}

// PurgeExpired is the seed's purge_expired(now) (spec THR-16): drop state
// that no decision at any now' >= now (seconds) can see, and return how many
// keys stopped being tracked. A store failure is returned with count 0.
func (t *Throttle) PurgeExpired(now uint64) (uint64, error) {
	n, err := t.store.Purge(now, t.cfg.WindowSecs)
	if err != nil {
		return 0, fmt.Errorf("throttle: purge_expired: %w", err)
	}
	return n, nil
}
