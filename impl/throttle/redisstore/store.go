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

	"github.com/limcheck/limcheck/impl/internal/luajoin"
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

// MaxPartitions is the largest Config.Partitions: a purge makes at least
// one round trip per partition.
const MaxPartitions = 1 << 16

// Config configures a Store.
type Config struct {
	// Client is the Redis client (rueidis.NewClient with DisableCache:
	// true; a cached read would be a stale decision; impl/redisclient.New
	// builds one for one server, a cluster or a Sentinel). Required.
	Client rueidis.Client
	// Namespace names every key; two stores with one namespace (and one
	// Partitions) share their state. Non-empty, without '{' or '}': it is
	// part of every key's hash tag, {NS:P}, and a brace in it would end
	// or start the tag elsewhere (Redis hashes the first {...} only),
	// putting two namespaces in one slot or a key's ops in two.
	Namespace string
	// Partitions is how many Redis hashes hold the keys, each with a hash
	// tag of its own, so that a Redis Cluster spreads them, and
	// different namespaces, over its slots (see the package doc). 0
	// means 1; at most MaxPartitions. Every store of a namespace must use
	// the same value: a key's partition is its FNV-1a 64 hash modulo
	// Partitions.
	Partitions int
	// StampsPerKey is k: each key keeps its k largest stamps (spec PROP-17),
	// in 1..throttle.MaxStampsPerKey. A key's record is 8 + 8k bytes at
	// most, and each operation on it costs O(k).
	StampsPerKey uint64
	// TTL is how long a partition lives after its last write (Redis time),
	// >= 1ms.
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
	parts   []string // the partitions' hash names, "thr:{NS:P}"
	k       uint64
	ttl     string // milliseconds, decimal
	timeout time.Duration
	opid    string // this store's part of every reservation member
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
	//go:embed lua/purge.lua
	purgeLua string
	//go:embed lua/reserve.lua
	reserveLua string
	//go:embed lua/lib.lua
	libLua string

	addScript           = rueidis.NewLuaScript(JoinLib(libLua, addLua))
	checkScript         = rueidis.NewLuaScriptReadOnly(JoinLib(libLua, checkLua))
	banScript           = rueidis.NewLuaScript(JoinLib(libLua, banLua))
	clearFailuresScript = rueidis.NewLuaScript(clearFailuresLua) // compares no stamps: no lib
	purgeScript         = rueidis.NewLuaScript(JoinLib(libLua, purgeLua))
	reserveScript       = rueidis.NewLuaScript(JoinLib(libLua, reserveLua))
)

// JoinLib returns the text the server runs for script, a script of this
// package that calls lua/lib.lua's function (lt, the order of two 8-byte
// big-endian uint64s), lib (that file's text): script's shebang line,
// then lib, then the rest of script, so that each EVALSHA names one
// self-contained script. The store loads every script but
// lua/clearfailures.lua so; a test that plants a bug in a script or in
// lua/lib.lua joins the texts the same way to find the loaded script by the
// SHA-1 of its text.
func JoinLib(lib, script string) string { return luajoin.Join(lib, script) }

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
		return nil, fmt.Errorf("%w: Namespace %q must be non-empty without '{' or '}' (it is inside the keys' hash tag)", ErrConfig, cfg.Namespace)
	case cfg.Partitions < 0 || cfg.Partitions > MaxPartitions:
		return nil, fmt.Errorf("%w: Partitions %d not in 0..%d", ErrConfig, cfg.Partitions, MaxPartitions)
	case cfg.StampsPerKey < 1 || cfg.StampsPerKey > throttle.MaxStampsPerKey:
		return nil, fmt.Errorf("%w: StampsPerKey %d not in 1..%d", ErrConfig, cfg.StampsPerKey, throttle.MaxStampsPerKey)
	case cfg.TTL < time.Millisecond:
		return nil, fmt.Errorf("%w: TTL %v below 1ms", ErrConfig, cfg.TTL)
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("%w: Timeout %v negative", ErrConfig, cfg.Timeout)
	}
	id := make([]byte, 8)
	_, _ = rand.Read(id)
	s := &Store{c: redisfault.Retrying(cfg.Client), parts: make([]string, max(cfg.Partitions, 1)), k: cfg.StampsPerKey,
		ttl: strconv.FormatInt(cfg.TTL.Milliseconds(), 10), timeout: cfg.Timeout, opid: ":" + hex.EncodeToString(id)}
	for p := range s.parts {
		s.parts[p] = "thr:{" + cfg.Namespace + ":" + strconv.Itoa(p) + "}"
	}
	if s.timeout == 0 {
		s.timeout = 2 * time.Second
	}
	return s, nil
}

// StampsPerKey is k (the throttle refuses a threshold above it).
func (s *Store) StampsPerKey() uint64 { return s.k }

// Partition is the partition of key: its FNV-1a 64 hash modulo
// Config.Partitions (stable across versions and processes; not secret: a
// client that aims its keys at one partition makes that hash bigger, no
// other harm).
func (s *Store) Partition(key string) int { return int(fnv1a(key) % uint64(len(s.parts))) }

// fnv1a is the FNV-1a 64 hash of key's bytes.
func fnv1a(key string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	return h
}

// hash is the name of key's partition (a Redis hash).
func (s *Store) hash(key string) string { return s.parts[s.Partition(key)] }

// r is the name of key's reservations (a sorted set in its partition's slot).
func (s *Store) r(key string) string { return s.hash(key) + ":r:" + key }

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

var (
	_ throttle.FusedStore   = (*Store)(nil)
	_ throttle.ReserveStore = (*Store)(nil)
)
