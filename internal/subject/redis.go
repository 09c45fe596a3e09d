package subject

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisclient"
	"github.com/limcheck/limcheck/impl/redisgate"
	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/limcheck/limcheck/oracle"
	"github.com/redis/rueidis"
)

// RedisTTL is the TTL of every key a Redis instance writes: far longer
// than any run, so no key expires under a history (the condition of exact
// equality).
const RedisTTL = 10 * time.Minute

// Redis is the Redis-backed subject on a target (one server, a cluster, or
// a primary under Sentinel). Build it with [NewRedis] or [NewRedisFor]; it
// is safe for concurrent use.
type Redis struct {
	// Partitions is the redisstore.Config.Partitions of every throttle
	// store it opens (0: 1). Set it before the first Open.
	Partitions int

	target redisclient.Target
	run    string // this subject's namespace prefix
	layout Layout
	seq    atomic.Uint64

	once   sync.Once
	client rueidis.Client
	err    error
}

// NewRedis returns the Redis subject for the redis-server at addr
// (host:port). It connects on first use.
func NewRedis(addr string) *Redis { return NewRedisFor(server(addr)) }

// NewRedisFor returns the Redis subject on target t. It connects on first use.
func NewRedisFor(t redisclient.Target) *Redis {
	id := make([]byte, 6)
	_, _ = rand.Read(id)
	return &Redis{target: t, run: "lc:" + hex.EncodeToString(id), layout: LayoutExact}
}

// Layout is how a Redis subject lays out its gates' keys: limcheck serve's
// -redis-layout.
type Layout string

const (
	// LayoutExact is impl/redisgate's Exact mode (the default): one hash
	// tag per gate, in-flight as leases in Redis.
	LayoutExact Layout = "exact"
	// LayoutSpread is impl/redisgate's Spread mode: the sets spread over
	// slabs, in-flight counted in this process.
	LayoutSpread Layout = "spread"
)

// ParseLayout returns the layout named s ("exact" or "spread").
func ParseLayout(s string) (Layout, error) {
	switch l := Layout(s); l {
	case LayoutExact, LayoutSpread:
		return l, nil
	}
	return "", fmt.Errorf("subject: layout %q is neither %q nor %q", s, LayoutExact, LayoutSpread)
}

// SpreadPartitions is the throttle stores' partition count in
// LayoutSpread (spec DIST-11), where Partitions is 0.
const SpreadPartitions = 64

// WithLayout sets the layout of the gates and throttle stores r opens from
// now on and returns r; call it before r's first Open. A Redis starts in
// LayoutExact: each gate on one slot, each store in one partition.
// LayoutSpread spreads both: the gate's sets over slabs (spec DIST-10), and
// the store over SpreadPartitions partitions unless Partitions is set.
func (r *Redis) WithLayout(l Layout) *Redis {
	r.layout = l
	if l == LayoutSpread && r.Partitions == 0 {
		r.Partitions = SpreadPartitions
	}
	return r
}

// OpenRedis returns the Redis subject on target t once it answers a PING,
// or the error that says why it does not.
func OpenRedis(t redisclient.Target) (*Redis, error) {
	r := NewRedisFor(t)
	if err := r.Ping(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func server(addr string) redisclient.Target {
	return redisclient.Target{Mode: redisclient.Server, Addrs: []string{addr}}
}

// NewClient is the client the Redis subject uses for the server at addr
// (redisclient.New): no client-side cache (a cached read would be a stale
// decision), reads from the primary only.
func NewClient(addr string) (rueidis.Client, error) { return redisclient.New(server(addr)) }

// Client returns the subject's client, connecting on first use.
func (r *Redis) Client() (rueidis.Client, error) {
	r.once.Do(func() { r.client, r.err = redisclient.New(r.target) })
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
		return Impl{}.Open(c, cfg)
	case oracle.Throttle, oracle.ThrottleFaults:
		client, err := r.Client()
		if err != nil {
			return nil, "", err
		}
		return openThrottleOver(cfg, c == oracle.ThrottleFaults, func(k uint64) (throttle.Store, error) {
			return redisstore.New(redisstore.Config{Client: client, Namespace: r.Namespace(), Partitions: r.Partitions, StampsPerKey: k, TTL: RedisTTL})
		})
	case oracle.Gate:
		return r.openGate(cfg)
	}
	return nil, "", fmt.Errorf("%w: %q", oracle.ErrUnsupported, c)
}

// openGate opens a Redis gate on cfg: every config the model opens (the
// Redis gate is the 3.0 table, sets, ways and seed included, DIST-2), on
// the case's seed (GATE-18: a vector gives it).
func (r *Redis) openGate(cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	cap, refil, ivl, maxif, sets, ways, tick, err := cfg.GateConfig()
	if err != nil {
		return nil, "", err
	}
	seed, err := gateSeed(cfg)
	if err != nil {
		return nil, "", err
	}
	client, err := r.Client()
	if err != nil {
		return nil, "", err
	}
	mode := redisgate.Exact
	if r.layout == LayoutSpread {
		mode = redisgate.Spread
	}
	g, err := redisgate.New(redisgate.Config{Client: client, Name: r.Namespace(), Lim: lim.NewConfig(cap, refil, ivl, maxif),
		Sets: sets, Ways: ways, TickNanos: tick, LeaseTTL: RedisTTL, TTLMargin: RedisTTL, Seed: &seed, Mode: mode})
	if errors.Is(err, redisgate.ErrConfig) {
		return nil, oracle.ErrConfig, nil
	}
	if err != nil {
		return nil, "", err
	}
	return &redisGate{g: g}, "", nil
}

// redisGate is a Redis gate; passes are its outstanding passes, oldest
// first: an anonymous release gives back the oldest (any pass's place is
// the same in-flight count, GATE-11), and with none it does nothing.
type redisGate struct {
	g      *redisgate.Gate
	passes []redisgate.Decision
}

func (m *redisGate) Do(op oracle.Op) (oracle.Result, error) {
	a, err := op.Gate()
	if err != nil {
		return oracle.Result{}, err
	}
	switch op.Kind {
	case oracle.Admit:
		d, err := m.g.Admit(a.IP, a.Now)
		if err != nil {
			return oracle.Result{}, err
		}
		if d.Verdict == gate.Pass {
			m.passes = append(m.passes, d)
		}
		return redisDecision(d), nil
	case oracle.Release:
		if len(m.passes) > 0 {
			if err := m.g.Release(m.passes[0]); err != nil {
				return oracle.Result{}, err
			}
			m.passes = m.passes[1:]
		}
		return oracle.Result{}, nil
	case oracle.InFlight:
		n, err := m.g.InFlight()
		if err != nil {
			return oracle.Result{}, err
		}
		return oracle.Result{N: oracle.I(n)}, nil
	}
	b, ok, err := m.g.Bucket(a.IP, a.Now)
	if err != nil {
		return oracle.Result{}, err
	}
	return oracle.BucketResult(ok, b.Tks, b.Last), nil
}

// redisDecision is the Result of a Redis gate decision, as oracle.GateDecision
// renders the model's.
func redisDecision(d redisgate.Decision) oracle.Result {
	return oracle.GateResult(d.Verdict.String(), d.Set, d.Way, d.Retry, d.RetryAfter, oracle.Bytes(d.AppendResponse(nil)))
}
