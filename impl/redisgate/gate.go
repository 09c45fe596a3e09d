package redisgate

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/internal/redisfault"
	"github.com/limcheck/limcheck/impl/internal/siphash"
	"github.com/limcheck/limcheck/impl/lim"
	"github.com/redis/rueidis"
)

// ErrConfig is wrapped by New's error for an invalid Config.
var ErrConfig = errors.New("redisgate: invalid config")

// ErrEvictingPolicy is wrapped by New's error when a Redis node's
// maxmemory-policy may evict keys and Config.OnEvictingPolicy is nil.
var ErrEvictingPolicy = errors.New("redisgate: redis may evict keys (maxmemory-policy is not noeviction): an evicted bucket would be born full again, silently")

// ErrUnavailable is wrapped by the error of an operation that failed
// definitely: it had no effect.
var ErrUnavailable = errors.New("redisgate: redis unavailable, no effect")

// ErrIndeterminate is wrapped by the error of an Admit of which some
// attempt was sent and got no reply: it may have passed (its lease then
// expires by itself).
var ErrIndeterminate = errors.New("redisgate: no reply to an admit, it may have taken effect")

// Config configures a [Gate].
type Config struct {
	Client    rueidis.Client // DisableCache: true (impl/redisclient.New: one server, a cluster or a Sentinel). Required.
	Name      string         // the gate's namespace: non-empty, without '{' or '}'
	Lim       lim.Config     // must be valid
	Sets      int64          // >= 1 (spec GATE-13)
	Ways      int64          // ways per set, >= 1
	TickNanos int64          // the length of one tick, >= 1
	// Seed is the secret that places keys in sets (spec GATE-18). Required,
	// unlike impl/gate's, where nil draws one: the table lives in Redis,
	// shared by every node and outliving each, so every node and every
	// restart must place a key in the same set. A seed drawn per process
	// would give a key one bucket per node (its limit multiplied by the
	// nodes) and orphan the table at each restart, and no node could tell.
	// Draw it once from a secure source (16 bytes of crypto/rand) and give it
	// to every node as a secret; any 16-byte value is valid. New copies it;
	// the gate never logs it or returns it.
	Seed *[16]byte
	// LeaseTTL is how long a pass holds its place without a release (Redis
	// time), >= 1ms: a node that dies releases its requests this way.
	// Exact only: Spread holds no lease (it ignores LeaseTTL).
	LeaseTTL time.Duration
	// TTLMargin is added to every bucket's TTL (0: 1 minute): it must cover
	// the skew between the nodes' clocks and Redis's, and any step back of
	// now, for a key never to expire before it is full. In Spread a sweep
	// drops a set only once it is full since now less TTLMargin.
	TTLMargin time.Duration
	// Timeout bounds each call, retries included (0: 2s).
	Timeout time.Duration
	// Epoch is tick 0 of Gate.Now (the zero Time: the Unix epoch). The same
	// on every node.
	Epoch time.Time
	// NodeClock makes leases expire on the nodes' wall clocks (Unix ms,
	// sent with each admit and in-flight count) instead of the Redis
	// server's: no script then calls TIME, which some managed Redis
	// offerings refuse in scripts. The nodes' clocks must then agree to
	// well within LeaseTTL: a node ahead by d counts the others' leases
	// expired d early (in-flight may pass maxif by those requests), and
	// one behind counts them d late. Spread never calls TIME: NodeClock
	// changes nothing there.
	NodeClock bool
	// OnEvictingPolicy decides what New does when a node of Client has a
	// maxmemory-policy other than noeviction, under which Redis may evict
	// a set before its TTL: its buckets are then born full again (spent
	// tokens come back) and its leases forgotten, silently. nil: New
	// refuses, with an error wrapping ErrEvictingPolicy. Else New calls it
	// with the node's address and its policy and fails with its error, or
	// goes on when it returns nil: the place to log the risk loudly.
	OnEvictingPolicy func(node, policy string) error
	// Mode is the gate's layout: Exact (the zero value) or Spread (see
	// [Mode] and the package doc).
	Mode Mode
	// Slabs is the number of hashes a Spread gate groups its sets into
	// (set mod Slabs), each its own hash tag: 0 means DefaultSlabs (or
	// Sets, when smaller), else it must be in [1, Sets]. It must be the
	// same on every node of the gate. Exact requires 0.
	Slabs int64
}

// Decision is the outcome of one Admit.
type Decision struct {
	Verdict    gate.Verdict
	Set        int64      // the set of the request's key
	Way        int64      // the way that holds the key after the take; -1 on a shed, a replayed pass or a refused eviction
	Retry      int64      // the bucket's retry in ticks (the budget's on a refused eviction); 0 unless Limited
	RetryAfter int64      // Retry-After in seconds; 0 on Pass
	Bucket     lim.Bucket // the key's bucket after the take (zero on a shed, a replayed pass or a refused eviction)
	lease      string     // the pass's lease ("" unless an Exact Pass)
	place      *place     // the pass's in-flight place (nil unless a Spread Pass)
	seq        uint64     // the lease's number: lease = leaseOf(seq)
}

// AppendResponse appends the decision's exact 503 response to dst (spec
// GATE-8, GATE-9); a Pass appends nothing.
func (d Decision) AppendResponse(dst []byte) []byte {
	if d.Verdict == gate.Pass {
		return dst
	}
	return lim.AppendResponse503(dst, d.RetryAfter)
}

// Gate is a gate on Redis. Safe for concurrent use.
type Gate struct {
	c       rueidis.Client
	cfg     Config // Seed nil: the gate keeps only its key
	key     siphash.Key
	tag     string // "{lim:NAME}:"
	consts  string // admit.lua's ARGV[6]: cap_q, cap_r, refil-1, maxif, ways, lease TTL ms, ms per step, margin ms, most TTL ms, lease set TTL ms
	retry   int64  // the retry of a limited take of cost 1
	after   int64  // its Retry-After
	timeout time.Duration
	id      string
	seq     atomic.Uint64
	born    time.Time    // for the monotonic clock of refresh
	refresh atomic.Int64 // when (ns since born) an admit must give the lease set its TTL again

	inflight    atomic.Int64 // Spread: this node's passes not released
	marginTicks int64        // Spread: TTLMargin in ticks, rounded up
}

// mostTTL is the largest key TTL: 2^45 ms, about 1100 years.
const mostTTL = int64(1) << 45

var (
	//go:embed lua/admit.lua
	admitLua string
	//go:embed lua/inflight.lua
	inflightLua    string
	admitScript    = rueidis.NewLuaScript(JoinArith(arithLua, admitLua))
	inflightScript = rueidis.NewLuaScriptReadOnly(inflightLua)
)

// New returns a gate over cfg.Client. It reads every node's
// maxmemory-policy (one INFO memory each): it refuses one that may evict
// keys unless Config.OnEvictingPolicy accepts it, and it fails, wrapping
// ErrUnavailable, when a node cannot be read.
func New(cfg Config) (*Gate, error) {
	if err := validate(cfg); err != nil {
		return nil, err
	}
	g := newGate(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	check := redisfault.PolicyCheck{Pkg: "redisgate", Unavailable: ErrUnavailable, Evicting: ErrEvictingPolicy, Accept: cfg.OnEvictingPolicy}
	if err := check.Run(ctx, cfg.Client); err != nil {
		return nil, err
	}
	return g, nil
}

// validate checks cfg as New does before it talks to Redis.
func validate(cfg Config) error {
	switch {
	case cfg.Client == nil:
		return fmt.Errorf("%w: Client is nil", ErrConfig)
	case cfg.Name == "" || strings.ContainsAny(cfg.Name, "{}"):
		return fmt.Errorf("%w: Name %q must be non-empty without '{' or '}'", ErrConfig, cfg.Name)
	case !cfg.Lim.Valid():
		return fmt.Errorf("%w: lim config is not valid (error code %d)", ErrConfig, cfg.Lim.Err())
	case cfg.Sets < 1 || cfg.Ways < 1:
		return fmt.Errorf("%w: Sets %d and Ways %d must be >= 1", ErrConfig, cfg.Sets, cfg.Ways)
	case cfg.TickNanos < 1:
		return fmt.Errorf("%w: TickNanos %d < 1", ErrConfig, cfg.TickNanos)
	case cfg.Seed == nil:
		return fmt.Errorf("%w: Seed is nil: every node of a Redis gate needs the same seed", ErrConfig)
	case cfg.TTLMargin < 0 || cfg.Timeout < 0:
		return fmt.Errorf("%w: negative TTLMargin or Timeout", ErrConfig)
	}
	return validateSpread(cfg)
}

// newGate is the gate of a valid cfg.
func newGate(cfg Config) *Gate {
	g := &Gate{c: redisfault.Retrying(cfg.Client), cfg: cfg, key: siphash.New(*cfg.Seed), tag: "{lim:" + cfg.Name + "}:", timeout: cfg.Timeout}
	g.cfg.Seed = nil // spec GATE-18: "never logs or returns it"
	if g.timeout == 0 {
		g.timeout = 2 * time.Second
	}
	margin := cfg.TTLMargin
	if margin == 0 {
		margin = time.Minute
	}
	if cfg.Epoch.IsZero() {
		g.cfg.Epoch = time.Unix(0, 0)
	}
	// LIM-12: a limited take of cost 1 finds tks' = 0, so its retry is
	// ceil(ivl/refil): the config's alone, computed by impl/lim.
	g.retry = cfg.Lim.Take(lim.MakeBucket(0, 0), 0, 1).Retry
	g.after = gate.RetryAfterSeconds(g.retry, cfg.TickNanos)
	if cfg.Mode == Spread {
		g.initSpread(margin)
		return g
	}
	cq, cr := floorDivMod(cfg.Lim.Cap(), cfg.Lim.Refil())
	c := make([]byte, 0, 72)
	for _, v := range []int64{cq, cr, cfg.Lim.Refil() - 1, cfg.Lim.Maxif(), cfg.Ways} {
		c = binary.BigEndian.AppendUint64(c, uint64(v))
	}
	// spec DIST-3: "A pass holds a lease, with an expiry on the Redis clock (the gate's lease TTL), and `in_flight` counts the live leases."
	// spec DIST-6: "A set's TTL runs to at least the real time at which its last-written bucket is full again, plus a margin for clock skew and steps back, and only grows"
	for _, f := range []float64{float64(cfg.LeaseTTL.Milliseconds()), float64(cfg.Lim.Ivl()) * float64(cfg.TickNanos) / 1e6,
		float64(margin.Milliseconds()), float64(mostTTL), float64(leaseSetTTL(cfg.LeaseTTL).Milliseconds())} {
		c = binary.BigEndian.AppendUint64(c, math.Float64bits(f))
	}
	g.consts = string(c)
	id := make([]byte, 8)
	_, _ = rand.Read(id)
	g.id = hex.EncodeToString(id)
	g.born = time.Now()
	return g
}

// Config returns the gate's configuration, without its seed (Seed is nil).
func (g *Gate) Config() Config { return g.cfg }

// Now is this node's tick: the time since Config.Epoch in TickNanos.
//
// spec DIST-1: "The caller supplies `now` on every node (the gate's int64 ticks, the throttle's uint64 seconds), as in one process: a node converts its own clock, with one epoch for all nodes."
func (g *Gate) Now() int64 { return int64(time.Since(g.cfg.Epoch) / time.Duration(g.cfg.TickNanos)) }

// be8 is v as 8 big-endian bytes: to the admit script's struct.unpack, a
// signed high and an unsigned low 32-bit half, each exact in a double.
func be8(v int64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(v))
	return string(b[:])
}

// floorDivMod returns q, r with a = q*b + r, 0 <= r < b (b >= 1).
func floorDivMod(a, b int64) (int64, int64) {
	q, r := a/b, a%b
	if r < 0 {
		q--
		r += b
	}
	return q, r
}

// leaseOf is the lease id of this gate's seq'th admit: unique across nodes.
func (g *Gate) leaseOf(seq uint64) string { return g.id + ":" + strconv.FormatUint(seq, 16) }

// setOf is the set of key k (spec GATE-13); k >= 0.
//
// spec GATE-13: "its set is `s = h mod sets`, where `h = siphash(seed, k)`"
// spec DIST-2: "The node computes the set (GATE-13, GATE-18), so the seed never reaches Redis."
func (g *Gate) setOf(k int64) int64 { return int64(g.key.Sum64(uint64(k)) % uint64(g.cfg.Sets)) }

func (g *Gate) keyOf(set int64) string { return g.tag + "s:" + be8(set) }
func (g *Gate) leases() string         { return g.tag + "if" }

// Admit decides one request from ip at tick now, at a cost of one token.
func (g *Gate) Admit(ip string, now int64) (Decision, error) {
	if g.cfg.Mode == Spread {
		return g.admitSpread(lim.IPKey(ip), now)
	}
	return g.admit(lim.IPKey(ip), now)
}

// AdmitBytes is Admit for an address held as bytes.
func (g *Gate) AdmitBytes(ip []byte, now int64) (Decision, error) {
	if g.cfg.Mode == Spread {
		return g.admitSpread(lim.IPKeyBytes(ip), now)
	}
	return g.admit(lim.IPKeyBytes(ip), now)
}

// sweepEvery is how often (in admits of one node) an admit drops the
// expired leases even when the live ones are far from maxif: the lease set
// stays bounded by the leases of the last sweepEvery admits and those of
// crashed nodes that have not expired.
const sweepEvery = 64

// leaseSetTTL is the TTL a sweeping pass gives the lease set: 4 lease TTLs
// and a minute. A node sweeps at least every quarter lease TTL (of its
// monotonic clock) in which it passes, and other passes leave the TTL as
// it is, so a lease that lands before the set's TTL ends stays covered
// while the pass that adds it runs within 2.75 lease TTLs and a minute of
// its send: far past any Config.Timeout.
func leaseSetTTL(lease time.Duration) time.Duration { return 4*lease + time.Minute }

// spec DIST-8: "An admit is one script (the in-flight test, the set's ways, the refill, the take and the lease), a release one command"
func (g *Gate) admit(k, now int64) (Decision, error) {
	nq, nr := floorDivMod(now, g.cfg.Lim.Ivl())
	seq := g.seq.Add(1)
	lease := g.leaseOf(seq)
	set := g.setOf(k)
	keys := []string{g.leases(), g.keyOf(set)}
	sent := time.Since(g.born)
	sweep := "0"
	if seq%sweepEvery == 0 || int64(sent) >= g.refresh.Load() {
		sweep = "1"
	}
	args := []string{be8(nq) + be8(nr), be8(k), lease, "0", sweep, g.consts, g.leaseNow()}
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	var err error
	ambiguous := false // an attempt was sent and got no reply: it may have run
	for attempt := 0; ; attempt++ {
		var r []rueidis.RedisMessage
		if r, err = admitScript.Exec(ctx, g.c, keys, args).ToArray(); err == nil {
			d, err := g.decision(r, lease, now)
			d.seq, d.Set = seq, set
			if err == nil && sweep == "1" && d.Verdict == gate.Pass && d.Way >= 0 { // not a replay: it swept
				g.refresh.Store(int64(sent + g.cfg.LeaseTTL/4))
			}
			return d, err
		}
		// spec DIST-5: "It is *ambiguous* when a write was sent and no reply came (a reset, a timeout): it may have taken effect"
		ambiguous = ambiguous || !redisfault.Definite(err)
		if ctx.Err() != nil || attempt == 3 {
			break
		}
		args[3] = "1" // a replay: an earlier attempt may have passed, and its lease says so
		time.Sleep(time.Duration(attempt+1) * 5 * time.Millisecond)
	}
	if ambiguous { // whatever the last attempt's error: one that may have run decides
		return Decision{}, fmt.Errorf("%w: %w", ErrIndeterminate, err)
	}
	return Decision{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// leaseNow is the lease clock's now for a script: "" (the script reads the
// Redis clock) unless Config.NodeClock, then this node's Unix ms.
func (g *Gate) leaseNow() string {
	if !g.cfg.NodeClock {
		return ""
	}
	return strconv.FormatInt(time.Now().UnixMilli(), 10)
}

func (g *Gate) decision(r []rueidis.RedisMessage, lease string, now int64) (Decision, error) {
	if len(r) != 4 {
		return Decision{}, fmt.Errorf("redisgate: bad admit reply (%d elements)", len(r))
	}
	v, err1 := r[0].ToString()
	way, err2 := r[1].AsInt64()
	rec, err3 := r[2].ToString()
	deficit, err4 := r[3].ToString()
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return Decision{}, fmt.Errorf("redisgate: bad admit reply: %w", err)
	}
	if deficit != "" {
		return g.refused(v, deficit, now)
	}
	if way < -1 {
		return Decision{}, fmt.Errorf("redisgate: bad way %d", way)
	}
	d := Decision{Way: way}
	if rec != "" {
		b, err := g.decode(rec)
		if err != nil {
			return Decision{}, err
		}
		d.Bucket = b
	}
	switch v {
	case "pass":
		d.Verdict, d.lease = gate.Pass, lease
	case "limited":
		d.Verdict, d.Retry, d.RetryAfter = gate.Limited, g.retry, g.after
	case "shed":
		d.Verdict, d.RetryAfter = gate.Shed, 1 // GATE-9
	default:
		return Decision{}, fmt.Errorf("redisgate: bad verdict %q", v)
	}
	return d, nil
}

// refused is the decision of an eviction the set's budget refused: limited,
// no way, the retry of the budget's take at now (LIM-12: ceil((cost -
// tks') * ivl / refil), that is a take of cost - tks' from an empty bucket).
func (g *Gate) refused(verdict, deficit string, now int64) (Decision, error) {
	d, err := g.decodeQR(deficit)
	if err != nil || verdict != "limited" || d < 1 {
		return Decision{}, fmt.Errorf("redisgate: bad refusal %q, deficit %q (%v)", verdict, deficit, err)
	}
	// spec GATE-19: "If it rejects, the verdict is `limited` as in GATE-8, with the budget take's `retry` and its GATE-12 conversion and `lim_resp_503`"
	retry := g.cfg.Lim.Take(lim.MakeBucket(0, now), now, d).Retry
	return Decision{Verdict: gate.Limited, Way: -1, Retry: retry, RetryAfter: gate.RetryAfterSeconds(retry, g.cfg.TickNanos)}, nil
}

// decodeQR reads a token count written as (q, r), two big-endian int64
// (16 bytes): q*refil + r.
func (g *Gate) decodeQR(rec string) (int64, error) {
	if len(rec) != 16 {
		return 0, fmt.Errorf("redisgate: bad token record %x", rec)
	}
	return int64(binary.BigEndian.Uint64([]byte(rec[:8])))*g.cfg.Lim.Refil() + int64(binary.BigEndian.Uint64([]byte(rec[8:]))), nil
}

// decode reads a bucket record, four big-endian int64 (32 bytes): tks =
// tq*refil + tr, last = lq*ivl + lr, in wrapping int64 arithmetic, exact
// because the true values fit in int64.
func (g *Gate) decode(rec string) (lim.Bucket, error) {
	if len(rec) != 32 {
		return lim.Bucket{}, fmt.Errorf("redisgate: bad bucket record %x", rec)
	}
	var v [4]int64
	for i := range v {
		v[i] = int64(binary.BigEndian.Uint64([]byte(rec[8*i : 8*i+8])))
	}
	return lim.MakeBucket(v[0]*g.cfg.Lim.Refil()+v[1], v[2]*g.cfg.Lim.Ivl()+v[3]), nil
}

// Release gives back the place of a passed decision: in Exact one ZREM of
// its lease, in Spread a decrement of the node's count in memory (no round
// trip, never an error). A decision that did not pass, one released
// already, or another gate's is a no-op (spec DIST-3).
//
// spec DIST-4: "A release names its pass: releasing one pass twice, a decision that did not pass, or a pass whose lease expired gives back no other request's place"
func (g *Gate) Release(d Decision) error {
	if g.cfg.Mode == Spread {
		d.place.release(&g.inflight)
		return nil
	}
	if d.lease == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	cmd := g.c.B().Zrem().Key(g.leases()).Member(d.lease).Build().ToRetryable() // idempotent
	if err := g.c.Do(ctx, cmd).Error(); err != nil {
		return fmt.Errorf("%w: release: %w", ErrUnavailable, err)
	}
	return nil
}

// InFlight returns the number of live leases in Exact, the number of this
// node's passes not released in Spread (no round trip).
func (g *Gate) InFlight() (int64, error) {
	if g.cfg.Mode == Spread {
		return g.inflight.Load(), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	n, err := inflightScript.Exec(ctx, g.c, []string{g.leases()}, []string{g.leaseNow()}).AsInt64()
	if err != nil {
		return 0, fmt.Errorf("%w: in-flight: %w", ErrUnavailable, err)
	}
	return n, nil
}

// Bucket returns the stored bucket of ip's key and true, or false when no
// way holds the key or its bucket is full at now (it then behaves as an
// empty way, spec GATE-14).
func (g *Gate) Bucket(ip string, now int64) (lim.Bucket, bool, error) {
	k := lim.IPKey(ip)
	if g.cfg.Mode == Spread {
		return g.bucketSpread(k, now)
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	ways, err := g.c.Do(ctx, g.c.B().Hgetall().Key(g.keyOf(g.setOf(k))).Build()).AsStrMap()
	if err != nil {
		return lim.Bucket{}, false, fmt.Errorf("%w: bucket: %w", ErrUnavailable, err)
	}
	var rec string
	for f, v := range ways {
		if f != "b" && len(v) == 48 && v[:8] == be8(k) {
			rec = v[8:40]
		}
	}
	if rec == "" {
		return lim.Bucket{}, false, nil
	}
	return g.fullOrNot(rec, now)
}
