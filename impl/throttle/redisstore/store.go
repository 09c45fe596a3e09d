package redisstore

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/limcheck/limcheck/impl/internal/redisfault"
	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/redis/rueidis"
)

// ErrUnavailable is wrapped by the cause of a definite failure: the
// operation had no effect.
var ErrUnavailable = errors.New("redisstore: redis unavailable, no effect")

// ErrIndeterminate is wrapped by the cause of an ambiguous failure: a write
// was sent and no reply came; it may have taken effect.
var ErrIndeterminate = errors.New("redisstore: no reply to a write, it may have taken effect")

// ErrConfig is wrapped by New's error for an invalid Config.
var ErrConfig = errors.New("redisstore: invalid config")

// ErrEvictingPolicy is wrapped by New's error when a Redis node's
// maxmemory-policy may evict keys and Config.OnEvictingPolicy is nil.
var ErrEvictingPolicy = errors.New("redisstore: redis may evict keys (maxmemory-policy is not noeviction): an evicted key would lose its failures or its ban, silently")

// Config configures a Store.
type Config struct {
	// Client is the Redis client (rueidis.NewClient with DisableCache:
	// true; a cached read would be a stale decision; impl/redisclient.New
	// builds one for one server, a cluster or a Sentinel). Required.
	Client rueidis.Client
	// Namespace prefixes every key; two stores with one namespace share
	// their state. Non-empty, without '{' or '}'.
	Namespace string
	// StampsPerKey is k: each key keeps its k largest stamps (spec PROP-17),
	// in 1..throttle.MaxStampsPerKey.
	StampsPerKey uint64
	// TTL is how long a key lives after its last write (Redis time), >= 1ms.
	TTL time.Duration
	// Timeout bounds each operation (0: 2s).
	Timeout time.Duration
	// OnEvictingPolicy decides what New does when a node of Client has a
	// maxmemory-policy other than noeviction, under which Redis may evict a
	// key before its TTL: its failures are then forgotten and its ban
	// lifted, silently. nil: New refuses, with an error wrapping
	// ErrEvictingPolicy. Else New calls it with the node's address and its
	// policy and fails with its error, or goes on when it returns nil: the
	// place to log the risk loudly.
	OnEvictingPolicy func(node, policy string) error
}

// Store is the throttle's state in Redis. Safe for concurrent use.
type Store struct {
	c       rueidis.Client
	tag     string // "{NS}:"
	k       uint64
	ttl     string // milliseconds, decimal
	timeout time.Duration
	opid    string // this store's part of every stamp member
	seq     atomic.Uint64
}

var (
	//go:embed lua/add.lua
	addLua string
	//go:embed lua/check.lua
	checkLua string
	//go:embed lua/ban.lua
	banLua string
	//go:embed lua/clearfailures.lua
	clearFailuresLua string
	//go:embed lua/clear.lua
	clearLua string
	//go:embed lua/purge.lua
	purgeLua string
	//go:embed lua/reserve.lua
	reserveLua string

	addScript           = rueidis.NewLuaScript(addLua)
	checkScript         = rueidis.NewLuaScriptReadOnly(checkLua)
	banScript           = rueidis.NewLuaScript(banLua)
	clearFailuresScript = rueidis.NewLuaScript(clearFailuresLua)
	clearScript         = rueidis.NewLuaScript(clearLua)
	purgeScript         = rueidis.NewLuaScript(purgeLua)
	reserveScript       = rueidis.NewLuaScript(reserveLua)
)

// New returns a Store over cfg.Client. It reads every node's
// maxmemory-policy (one INFO memory each): it refuses one that may evict
// keys unless Config.OnEvictingPolicy accepts it, and it fails, wrapping
// ErrUnavailable, when a node cannot be read.
func New(cfg Config) (*Store, error) {
	s, err := newStore(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	check := redisfault.PolicyCheck{Pkg: "redisstore", Unavailable: ErrUnavailable, Evicting: ErrEvictingPolicy, Accept: cfg.OnEvictingPolicy}
	if err := check.Run(ctx, cfg.Client); err != nil {
		return nil, err
	}
	return s, nil
}

// newStore is the Store of cfg, once cfg is checked, before New talks to
// Redis.
func newStore(cfg Config) (*Store, error) {
	switch {
	case cfg.Client == nil:
		return nil, fmt.Errorf("%w: Client is nil", ErrConfig)
	case cfg.Namespace == "" || strings.ContainsAny(cfg.Namespace, "{}"):
		return nil, fmt.Errorf("%w: Namespace %q must be non-empty without '{' or '}'", ErrConfig, cfg.Namespace)
	case cfg.StampsPerKey < 1 || cfg.StampsPerKey > throttle.MaxStampsPerKey:
		return nil, fmt.Errorf("%w: StampsPerKey %d not in 1..%d", ErrConfig, cfg.StampsPerKey, throttle.MaxStampsPerKey)
	case cfg.TTL < time.Millisecond:
		return nil, fmt.Errorf("%w: TTL %v below 1ms", ErrConfig, cfg.TTL)
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("%w: Timeout %v negative", ErrConfig, cfg.Timeout)
	}
	id := make([]byte, 8)
	_, _ = rand.Read(id)
	s := &Store{c: redisfault.Retrying(cfg.Client), tag: "{" + cfg.Namespace + "}:", k: cfg.StampsPerKey,
		ttl: strconv.FormatInt(cfg.TTL.Milliseconds(), 10), timeout: cfg.Timeout, opid: ":" + hex.EncodeToString(id)}
	if s.timeout == 0 {
		s.timeout = 2 * time.Second
	}
	return s, nil
}

// StampsPerKey is k (the throttle refuses a threshold above it).
func (s *Store) StampsPerKey() uint64 { return s.k }

func hex16(v uint64) string { return fmt.Sprintf("%016x", v) }

func (s *Store) z(key string) string { return s.tag + "z:" + key }
func (s *Store) b(key string) string { return s.tag + "b:" + key }
func (s *Store) r(key string) string { return s.tag + "r:" + key }
func (s *Store) tracked() string     { return s.tag + "t" }

// member is a fresh stamp member for t: unique per call.
func (s *Store) member(t uint64) string {
	return hex16(t) + s.opid + hex16(s.seq.Add(1))
}

// lower is the ZLEXCOUNT lower bound of the stamps t with t + window > now
// (exact: every stamp when now < window, else t >= now - window + 1).
//
// spec DIST-8: "the window's bound is computed in Go"
func lower(now, window uint64) string {
	if now < window {
		return "-"
	}
	return "[" + hex16(now-window+1)
}

// parseU64 reads 16 hex digits.
func parseU64(h string) (uint64, error) {
	if len(h) != 16 {
		return 0, fmt.Errorf("redisstore: bad u64 record %q", h)
	}
	return strconv.ParseUint(h, 16, 64)
}

func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.timeout)
}

// fail is the *throttle.StoreError of op on key for err, its cause
// classified: definite (ErrUnavailable) or, for a write, ambiguous
// (ErrIndeterminate).
func fail(op throttle.Op, key string, err error, write bool) error {
	return &throttle.StoreError{Op: op, Key: key, Err: classify(err, write)}
}

// spec DIST-5: "A failure is *definite* when the operation cannot have run (a refused connect, a Redis error reply: every script validates before its first write and starts with `#!lua`, so an out-of-memory refusal comes before it runs): it has no effect (STORE-1). It is *ambiguous* when a write was sent and no reply came (a reset, a timeout): it may have taken effect"
func classify(err error, write bool) error {
	if !write || redisfault.Definite(err) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return fmt.Errorf("%w: %w", ErrIndeterminate, err)
}

// BanUntil implements throttle.Store: GET.
func (s *Store) BanUntil(key string) (uint64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	v, err := s.c.Do(ctx, s.c.B().Get().Key(s.b(key)).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fail(throttle.OpBanUntil, key, err, false)
	}
	u, err := parseU64(v)
	if err != nil {
		return 0, &throttle.StoreError{Op: throttle.OpBanUntil, Key: key, Err: err}
	}
	return u, nil
}

// Count implements throttle.Store: ZLEXCOUNT.
func (s *Store) Count(key string, now, window uint64) (uint64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	n, err := s.c.Do(ctx, s.c.B().Zlexcount().Key(s.z(key)).Min(lower(now, window)).Max("+").Build()).AsInt64()
	if err != nil {
		return 0, fail(throttle.OpCount, key, err, false)
	}
	return uint64(n), nil
}

// AddFailure implements throttle.Store.
func (s *Store) AddFailure(key string, now, window uint64) (uint64, error) {
	c, _, err := s.add(throttle.OpAddFailure, key, now, window, 0, 0)
	return c, err
}

// FailAndBan implements throttle.FusedStore: one script.
func (s *Store) FailAndBan(key string, now, window, threshold, until uint64) (uint64, uint64, error) {
	return s.add(throttle.OpAddFailure, key, now, window, threshold, until)
}

func (s *Store) add(op throttle.Op, key string, now, window, threshold, until uint64) (uint64, uint64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	r, err := addScript.Exec(ctx, s.c, []string{s.z(key), s.b(key), s.tracked()},
		[]string{s.member(now), lower(now, window), strconv.FormatUint(s.k, 10), key,
			strconv.FormatUint(threshold, 10), hex16(until), s.ttl}).ToArray()
	if err != nil {
		return 0, 0, fail(op, key, err, true)
	}
	return pair(op, key, r)
}

// pair decodes a script's reply {count, ban-until as 16 hex digits}.
func pair(op throttle.Op, key string, r []rueidis.RedisMessage) (uint64, uint64, error) {
	bad := func(err error) (uint64, uint64, error) {
		return 0, 0, &throttle.StoreError{Op: op, Key: key, Err: fmt.Errorf("redisstore: bad reply: %w", err)}
	}
	if len(r) != 2 {
		return bad(fmt.Errorf("%d elements", len(r)))
	}
	c, err := r[0].AsInt64()
	if err != nil {
		return bad(err)
	}
	h, err := r[1].ToString()
	if err != nil {
		return bad(err)
	}
	b, err := parseU64(h)
	if err != nil {
		return bad(err)
	}
	return uint64(c), b, nil
}

// CheckState implements throttle.FusedStore: one read-only script
// (EVALSHA_RO).
func (s *Store) CheckState(key string, now, window uint64) (uint64, uint64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	r, err := checkScript.Exec(ctx, s.c, []string{s.z(key), s.b(key)}, []string{lower(now, window)}).ToArray()
	if err != nil {
		return 0, 0, fail(throttle.OpBanUntil, key, err, false)
	}
	c, b, err := pair(throttle.OpBanUntil, key, r)
	return b, c, err
}

// Ban implements throttle.Store.
func (s *Store) Ban(key string, until uint64) (uint64, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	h, err := banScript.Exec(ctx, s.c, []string{s.z(key), s.b(key), s.tracked()}, []string{hex16(until), key, s.ttl}).ToString()
	if err != nil {
		return 0, fail(throttle.OpBan, key, err, true)
	}
	b, err := parseU64(h)
	if err != nil {
		return 0, &throttle.StoreError{Op: throttle.OpBan, Key: key, Err: err}
	}
	return b, nil
}

// ClearFailures implements throttle.Store.
func (s *Store) ClearFailures(key string) error {
	ctx, cancel := s.ctx()
	defer cancel()
	if err := clearFailuresScript.Exec(ctx, s.c, []string{s.z(key), s.b(key), s.tracked()}, []string{key}).Error(); err != nil {
		return fail(throttle.OpClearFailures, key, err, true)
	}
	return nil
}

// Clear implements throttle.Store.
func (s *Store) Clear(key string) error {
	ctx, cancel := s.ctx()
	defer cancel()
	if err := clearScript.Exec(ctx, s.c, []string{s.z(key), s.b(key), s.tracked()}, []string{key}).Error(); err != nil {
		return fail(throttle.OpClear, key, err, true)
	}
	return nil
}

// purgeBatch is how many tracked keys one purge script handles.
const purgeBatch = 100

// purgeRescans is how many times Purge scans again when keys were tracked
// between its scan and its script, before it settles for atomic batches.
const purgeRescans = 8

// Purge implements throttle.Store: SSCAN over the tracked set, one script
// per batch of keys. When one batch is the whole set (fewer tracked keys
// than purgeBatch), the purge is one atomic step over every tracked key, as
// the model's is: the script refuses, before any write, when a key was
// tracked since the scan, and Purge scans again (up to purgeRescans times;
// then, and for larger sets, it is atomic per batch, as MemStore is per
// shard; spec PROP-14 holds per key).
func (s *Store) Purge(now, window uint64) (uint64, error) {
	bound := "" // nothing is out of the window when now < window
	if now >= window {
		bound = "(" + hex16(now-window+1)
	}
	for range purgeRescans {
		if n, stale, err := s.purge(now, bound, true); !stale {
			return n, err
		}
	}
	n, _, err := s.purge(now, bound, false)
	return n, err
}

// purge is one pass of Purge; with whole, a single-batch pass whose script
// finds a key it was not given reports stale (nothing was written).
func (s *Store) purge(now uint64, bound string, whole bool) (uint64, bool, error) {
	var n uint64
	ran := false // a batch script ran: a later failure is not "no effect"
	cursor := uint64(0)
	for {
		ctx, cancel := s.ctx()
		e, err := s.c.Do(ctx, s.c.B().Sscan().Key(s.tracked()).Cursor(cursor).Count(purgeBatch).Build()).AsScanEntry()
		if err != nil {
			cancel()
			return 0, false, fail(throttle.OpPurge, "", err, ran)
		}
		all := "0"
		if whole && cursor == 0 && e.Cursor == 0 {
			all = "1"
		}
		if len(e.Elements) > 0 {
			keys := make([]string, 0, 1+2*len(e.Elements))
			keys = append(keys, s.tracked())
			args := make([]string, 0, 3+len(e.Elements))
			args = append(args, hex16(now), bound, all)
			for _, k := range e.Elements {
				keys = append(keys, s.z(k), s.b(k))
				args = append(args, k)
			}
			m, err := purgeScript.Exec(ctx, s.c, keys, args).AsInt64()
			if err != nil {
				cancel()
				return 0, false, fail(throttle.OpPurge, "", err, true)
			}
			if m < 0 {
				cancel()
				return 0, true, nil
			}
			ran = true
			n += uint64(m)
		}
		cancel()
		if cursor = e.Cursor; cursor == 0 {
			return n, false, nil
		}
	}
}

var (
	_ throttle.FusedStore   = (*Store)(nil)
	_ throttle.ReserveStore = (*Store)(nil)
)
