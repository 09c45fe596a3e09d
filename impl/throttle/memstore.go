package throttle

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Defaults and limits of [MemConfig].
const (
	DefaultStampsPerKey = DefaultThreshold // stamps kept per key by a store with StampsPerKey 0
	DefaultMaxKeys      = 1 << 20          // tracked keys of a store with MaxKeys 0
	DefaultShards       = 64               // lock shards of a store with Shards 0
	MaxShards           = 1 << 12          // most lock shards
	MaxMaxKeys          = 1 << 29          // largest MaxKeys: record ids stay below 2^31 even in one shard
	MaxStampsPerKey     = 1 << 14          // largest StampsPerKey
)

// MemConfig configures a [MemStore]. A value type.
type MemConfig struct {
	// StampsPerKey is k, the number of largest failure stamps kept per key,
	// in 1..MaxStampsPerKey; 0 means DefaultStampsPerKey, the default
	// config's threshold. A [Throttle] needs k >= its threshold.
	StampsPerKey uint64
	// MaxKeys is the most keys tracked at once, in 1..MaxMaxKeys; 0 means
	// DefaultMaxKeys.
	MaxKeys int
	// Shards is the number of locks, a power of two in 1..MaxShards; 0
	// means DefaultShards.
	Shards int
}

// MemStore is the production in-memory [Store], [FusedStore] and
// [ReserveStore]. Safe for concurrent use; every operation on a key is
// atomic.
//
// Per key it keeps only the k = StampsPerKey largest failure stamps (sorted by
// value, so clock steps back stay exact; ties kept as a multiset) and the
// ban-until, and Count reports min(count, k): exact for every decision of a
// throttle with threshold <= k (spec PROP-17). Purge's count is exact: a key
// stops being tracked iff its largest stamp left the window and its ban-until
// is <= now.
//
// Keys are spread over Shards mutexes by a per-store seeded hash
// (an inline wyhash-style hash for keys of up to 16 bytes, hash/maphash for
// longer ones), hashed once per operation. Each shard has its own index into
// a record arena the shards share (its lock is taken only to add or forget
// a key); an operation on a tracked key does not allocate. A key's
// record is one piece of 24 + 8k bytes (its key's pointer and length, its
// stamp count, its ban-until and its k stamp slots): with k = 5 one aligned
// 64-byte cache line, which the index points at, so that a lookup reads one
// index slot and one line (and the key's bytes only when the caller's string
// is not the one the store holds).
//
// Capacity: at most MaxKeys keys are tracked; the bound is exact under
// concurrency. When an operation that would start tracking a key finds the
// store full, it first reclaims: AddFailure and FailAndBan (which know now
// and the window) sweep the store as Purge(now, window) does, shard by shard,
// and then try again. A sweep drops exactly what purge_expired(now) drops:
// stamps with t + window <= now and ban-untils <= now, and the keys left with
// neither. Such a key gives the same results as an untracked one for every
// operation at any time >= now (spec PROP-14), so reclaiming changes no
// decision at now or later; like purge_expired, it can change one after the
// clock steps back below now (spec FIND-10), and a later PurgeExpired does
// not count the keys a sweep already reclaimed ([MemStore.Reclaimed] does).
// Sweeps are rate-limited: one goroutine at a time (another that finds the
// store full meanwhile fails at once), and at most one per second of now,
// unless the clock was set back by more than the window; a sweep costs
// O(MaxKeys) and runs only on a full store. Ban of an untracked key (it has
// no now) does not reclaim. A store shared by throttles with different
// windows reclaims by the window of the call that found it full: do not
// share one.
//
// When the store is still full (every tracked key is live at now), the
// operation fails with a *StoreError wrapping [ErrFull] and has no effect
// (spec STORE-1): a throttle reports it as an error of RecordFailure, never
// as a ban. Reads and operations on tracked keys keep working; Purge, Clear
// and ClearFailures free room. A caller that must not fail open on ErrFull
// keeps its own bounded record of the failure (impl/httplimit's LoginGuard
// does).
//
// Memory: per tracked key 24 + 8*k bytes of record (the store keeps the
// caller's string, whose bytes are not counted) and 8/load bytes of index
// (load 0.58..0.875): under 8*k + 48 bytes (TestMemoryPerKey measures it),
// plus a fixed cost of one partly used arena chunk (32 to 64 KiB, or one
// record when a record is larger) for the whole store. The arena and the
// indexes keep their high-water size; freed records are reused. Keys must be shorter than 2^48 bytes (every string a
// 64-bit address space holds is).
//
// Purge locks one shard at a time: it is atomic per key, not a snapshot of the
// whole store.
//
// It is a [ReserveStore] too: see [MemStore.Reserve] for where its
// reservations live and how they are bounded (at most MaxKeys, each a map
// entry and a small slice element besides the records).
type MemStore struct {
	hasher
	shards  []shard
	mask    uint64
	a       arena // every shard's records
	maxKeys int64
	tracked atomic.Int64

	holds   atomic.Int64  // reservations held, at most maxKeys
	holdSeq atomic.Uint64 // the last reservation id

	sweepMu   sync.Mutex // held by the one goroutine sweeping a full store
	swept     bool       // a sweep has run; guarded by sweepMu
	sweptNow  uint64     // the now of the last sweep; guarded by sweepMu
	reclaimed atomic.Uint64
}

var (
	_ FusedStore   = (*MemStore)(nil)
	_ ReserveStore = (*MemStore)(nil)
)

// NewMemStore returns an empty store, or an error wrapping [ErrConfig] when
// cfg is out of range.
func NewMemStore(cfg MemConfig) (*MemStore, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &MemStore{
		hasher:  newHasher(),
		shards:  make([]shard, cfg.Shards),
		mask:    uint64(cfg.Shards - 1),
		maxKeys: int64(cfg.MaxKeys),
	}
	s.a.init(int(cfg.StampsPerKey))
	return s, nil
}

// withDefaults fills the zero fields of c and checks the ranges.
func (c MemConfig) withDefaults() (MemConfig, error) {
	if c.StampsPerKey == 0 {
		c.StampsPerKey = DefaultStampsPerKey
	}
	if c.MaxKeys == 0 {
		c.MaxKeys = DefaultMaxKeys
	}
	if c.Shards == 0 {
		c.Shards = DefaultShards
	}
	switch {
	case c.StampsPerKey < 1 || c.StampsPerKey > MaxStampsPerKey:
		return c, fmt.Errorf("%w: stamps per key %d not in 1..%d", ErrConfig, c.StampsPerKey, MaxStampsPerKey)
	case c.MaxKeys < 1 || c.MaxKeys > MaxMaxKeys:
		return c, fmt.Errorf("%w: max keys %d not in 1..%d", ErrConfig, c.MaxKeys, MaxMaxKeys)
	case c.Shards < 1 || c.Shards > MaxShards || c.Shards&(c.Shards-1) != 0:
		return c, fmt.Errorf("%w: shards %d not a power of two in 1..%d", ErrConfig, c.Shards, MaxShards)
	}
	return c, nil
}

// StampsPerKey returns k, the number of stamps kept per key.
func (s *MemStore) StampsPerKey() uint64 { return uint64(s.a.k) }

// MaxKeys returns the most keys the store tracks at once.
func (s *MemStore) MaxKeys() int { return int(s.maxKeys) }

// Tracked returns the number of tracked keys (spec STORE-8), read atomically.
func (s *MemStore) Tracked() int { return int(s.tracked.Load()) }

// Reclaimed returns how many keys the sweeps of a full store have reclaimed
// since the store was made (not those of Purge), read atomically. A rising
// count means the store runs full: raise MaxKeys or purge more often.
func (s *MemStore) Reclaimed() uint64 { return s.reclaimed.Load() }

// lock hashes key, locks its shard and returns it with the tag (the high
// half of the hash).
func (s *MemStore) lock(key string) (*shard, uint64) {
	h := s.hash(key)
	sh := &s.shards[h&s.mask]
	sh.mu.Lock()
	return sh, h >> 32
}

// locate is lock and find in one piece, the hot path of every operation on a
// known key: it hashes key (the inline hash of short keys written out, see
// [hasher.hash]), locks its shard and returns the shard (locked), the tag,
// and key's record and id (nil, 0: untracked). It equals
// sh, tag := s.lock(key); h, id, ok := sh.find(key, tag, &s.a)
// (TestLocateIsLockThenFind), one call instead of three.
func (s *MemStore) locate(key string) (sh *shard, tag uint64, h *head, id uint32) {
	var x uint64
	switch n := len(key); {
	case n > 16:
		x = s.hash(key)
	case n >= 8:
		x = mix(s.s1^uint64(n), mix(le64(key)^s.s1, le64(key[n-8:])^s.s0))
	default:
		x = s.hash(key)
	}
	sh, tag = &s.shards[x&s.mask], x>>32
	sh.mu.Lock()
	slots := sh.idx.slots
	n := len(slots)
	if n == 0 {
		return sh, tag, nil, 0
	}
	i := home(tag, n)
	for d := 0; ; d++ {
		e := slots[i]
		if e == 0 {
			return sh, tag, nil, 0
		}
		if e>>32 == tag {
			if r := s.a.rec(uint32(e) - 1); r.is(key) {
				return sh, tag, r, uint32(e) - 1
			}
		}
		if dist(e, i, n) < d {
			return sh, tag, nil, 0
		}
		if i++; i == n {
			i = 0
		}
	}
}

// takeRoom takes room for one more tracked key, or reports the store full.
func (s *MemStore) takeRoom() bool { return takeUpTo(&s.tracked, s.maxKeys) }

// takeUpTo adds one to *n unless it is max already, and reports whether it
// did: a bound exact under concurrency.
func takeUpTo(n *atomic.Int64, max int64) bool {
	for {
		v := n.Load()
		if v >= max {
			return false
		}
		if n.CompareAndSwap(v, v+1) {
			return true
		}
	}
}

// sweepTime is the time of an operation that may reclaim a full store: its
// now and window. nil: the operation has no time (Ban).
type sweepTime struct{ now, window uint64 }

// addSlow creates the record of key, which sh (locked) does not track, for op
// if there is room. On a full store it reclaims when at is not nil,
// unlocking sh meanwhile: the caller has read and written nothing of key's
// state yet, so the operation stays atomic.
func (s *MemStore) addSlow(sh *shard, key string, tag uint64, op Op, at *sweepTime) (*head, error) {
	if s.takeRoom() {
		h, _ := sh.add(key, tag, &s.a)
		return h, nil
	}
	if at != nil && s.reclaimUnlocked(sh, at.now, at.window) {
		if h, _, ok := sh.find(key, tag, &s.a); ok {
			return h, nil // another goroutine added it meanwhile
		}
		if s.takeRoom() {
			h, _ := sh.add(key, tag, &s.a)
			return h, nil
		}
	}
	return nil, &StoreError{Op: op, Key: key, Err: ErrFull}
}

// reclaimUnlocked sweeps a full store at now with sh (locked by the caller;
// nil: none) unlocked, and locks sh again. It reports whether it swept:
// false when another goroutine is sweeping or shouldSweep says a sweep at
// now would free nothing new. A sweep is a Purge: it frees records and
// reservations alike.
func (s *MemStore) reclaimUnlocked(sh *shard, now, window uint64) bool {
	if !s.sweepMu.TryLock() {
		return false // another goroutine sweeps: do not queue behind it
	}
	defer s.sweepMu.Unlock()
	if !s.shouldSweep(now, window) {
		return false
	}
	if sh != nil {
		sh.mu.Unlock()
		defer sh.mu.Lock()
	}
	n, _ := s.Purge(now, window)
	s.reclaimed.Add(n)
	return true
}

// shouldSweep reports whether a sweep at now may find anything the last one
// did not, and records now as the last sweep's when it does: true for the
// first sweep, for a now later than the last sweep's (a second sweep at the
// same second would free nothing: records only expire as now grows), and for
// a now more than window before it (the clock was set back). sweepMu is held.
func (s *MemStore) shouldSweep(now, window uint64) bool {
	if s.swept && now <= s.sweptNow && s.sweptNow-now <= window {
		return false
	}
	s.swept, s.sweptNow = true, now
	return true
}

// dropID frees record id of sh and gives its room back.
func (s *MemStore) dropID(sh *shard, id uint32, tag uint64) {
	sh.drop(id, tag, &s.a)
	s.tracked.Add(-1)
}
