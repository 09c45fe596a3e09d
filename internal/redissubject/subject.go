// Package redissubject puts the Redis-backed implementations behind the
// oracle's vocabulary: [Redis] is an [oracle.Subject] whose throttle runs
// over impl/throttle/redisstore (and whose gate is impl/redisgate), so the
// rapid state machines, the vectors, the fuzz targets and limcheck serve
// --redis drive them exactly as they drive impl/. lim has no state: it is
// impl's (internal/implsubject).
//
// Every Open takes a fresh namespace, so instances never share keys; every
// key has a TTL (Config.TTL, 10 minutes here), so nothing outlives a run for
// long.
//
// Imports: the standard library, oracle, impl/..., internal/implsubject and
// rueidis.
package redissubject

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/limcheck/limcheck/internal/implsubject"
	"github.com/limcheck/limcheck/oracle"
	"github.com/redis/rueidis"
)

// TTL is the TTL of every key an instance writes: far longer than any run,
// so no key expires under a history (the condition of exact equality).
const TTL = 10 * time.Minute

// Redis is the Redis-backed subject at Addr. Build it with [New]; it is safe
// for concurrent use.
type Redis struct {
	addr string
	run  string // this subject's namespace prefix
	seq  atomic.Uint64

	once   sync.Once
	client rueidis.Client
	err    error
}

// New returns the subject for the redis-server at addr (host:port). It
// connects on first use.
func New(addr string) *Redis {
	id := make([]byte, 6)
	_, _ = rand.Read(id)
	return &Redis{addr: addr, run: "lc:" + hex.EncodeToString(id)}
}

// NewClient is the client the subject uses: no client-side cache (a cached
// read would be a stale decision), reads from the primary only.
func NewClient(addr string) (rueidis.Client, error) {
	return rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true})
}

// Client returns the subject's client, connecting on first use.
func (r *Redis) Client() (rueidis.Client, error) {
	r.once.Do(func() { r.client, r.err = NewClient(r.addr) })
	return r.client, r.err
}

// Ping checks that the server answers (PING), within 5 seconds.
func (r *Redis) Ping() error {
	c, err := r.Client()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.Do(ctx, c.B().Ping().Build()).Error()
}

// Close closes the subject's client.
func (r *Redis) Close() {
	if c, err := r.Client(); err == nil {
		c.Close()
	}
}

// Namespace returns a namespace no other instance of this subject uses.
func (r *Redis) Namespace() string { return fmt.Sprintf("%s:%d", r.run, r.seq.Add(1)) }

// Name implements oracle.Subject.
func (r *Redis) Name() string { return "redis" }

// Implements implements oracle.Subject: every component.
func (r *Redis) Implements(oracle.Component) bool { return true }

// Open implements oracle.Subject.
func (r *Redis) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	switch c {
	case oracle.Lim:
		return implsubject.Impl{}.Open(c, cfg)
	case oracle.Throttle, oracle.ThrottleFaults:
		client, err := r.Client()
		if err != nil {
			return nil, "", fmt.Errorf("redis %s: %w", r.addr, err)
		}
		return implsubject.OpenThrottle(cfg, c == oracle.ThrottleFaults, func(k uint64) (throttle.Store, error) {
			return redisstore.New(redisstore.Config{Client: client, Namespace: r.Namespace(), StampsPerKey: k, TTL: TTL})
		})
	case oracle.Gate:
		return r.openGate(cfg)
	}
	return nil, "", fmt.Errorf("%w: %q", oracle.ErrUnsupported, c)
}

// openGate opens a Redis gate (until the gate lands: unsupported).
func (r *Redis) openGate(oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	return nil, "", fmt.Errorf("%w: the Redis gate", oracle.ErrUnsupported)
}
