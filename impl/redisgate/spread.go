package redisgate

import (
	"context"
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/internal/redisfault"
	"github.com/limcheck/limcheck/impl/lim"
	"github.com/redis/rueidis"
)

// Mode is a gate's layout in Redis: [Exact] (the zero value) or [Spread].
type Mode int

const (
	// Exact is one global in-flight count, exact across every node of the
	// gate: the in-flight places are leases in Redis, and the whole gate
	// lives under one hash tag (one Redis Cluster slot, one primary).
	Exact Mode = iota
	// Spread is the cluster layout: in-flight is counted per node, in its
	// memory (a fleet's cap is nodes x maxif), and the sets are spread over
	// Config.Slabs hashes, each its own hash tag, so that a gate uses every
	// slot and primary. Per-key buckets and decisions stay exact.
	Spread
)

// String returns "exact" or "spread" (or "Mode(N)" for another value).
func (m Mode) String() string {
	switch m {
	case Exact:
		return "exact"
	case Spread:
		return "spread"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// DefaultSlabs is the number of slabs of a Spread gate whose Config.Slabs
// is 0 (or Config.Sets, when that is smaller).
const DefaultSlabs = 1024

var (
	//go:embed lua/spread.lua
	spreadLua    string
	spreadScript = rueidis.NewLuaScript(JoinArith(arithLua, spreadLua))
)

// place is the in-flight place a Spread pass holds on its node; a release
// gives it back once.
type place struct {
	n    *atomic.Int64 // the node's count the place is in
	done atomic.Bool
}

// validateSpread checks the fields of cfg that depend on its Mode.
func validateSpread(cfg Config) error {
	switch {
	case cfg.Mode != Exact && cfg.Mode != Spread:
		return fmt.Errorf("%w: Mode %v is neither Exact nor Spread", ErrConfig, cfg.Mode)
	case cfg.Mode == Exact && cfg.Slabs != 0:
		return fmt.Errorf("%w: Slabs %d is for Mode Spread only", ErrConfig, cfg.Slabs)
	case cfg.Mode == Spread && (cfg.Slabs < 0 || cfg.Slabs > cfg.Sets):
		return fmt.Errorf("%w: Slabs %d must be in [1, Sets %d] (0: the default)", ErrConfig, cfg.Slabs, cfg.Sets)
	case cfg.Mode == Exact && cfg.LeaseTTL < time.Millisecond:
		return fmt.Errorf("%w: LeaseTTL %v below 1ms", ErrConfig, cfg.LeaseTTL)
	}
	return nil
}

// initSpread sets what a Spread gate needs beside newGate's: its slab
// count, its script's constants and the margin in ticks.
func (g *Gate) initSpread(margin time.Duration) {
	if g.cfg.Slabs == 0 {
		g.cfg.Slabs = min(DefaultSlabs, g.cfg.Sets)
	}
	g.tag = "{lim:" + g.cfg.Name + ":"
	cfg := g.cfg
	cq, cr := floorDivMod(cfg.Lim.Cap(), cfg.Lim.Refil())
	c := make([]byte, 0, 56)
	for _, v := range []int64{cq, cr, cfg.Lim.Refil() - 1, cfg.Ways} {
		c = binary.BigEndian.AppendUint64(c, uint64(v))
	}
	for _, f := range []float64{float64(cfg.Lim.Ivl()) * float64(cfg.TickNanos) / 1e6, float64(margin.Milliseconds()), float64(mostTTL)} {
		c = binary.BigEndian.AppendUint64(c, math.Float64bits(f))
	}
	g.consts = string(c)
	g.marginTicks = int64(margin) / cfg.TickNanos
	if int64(margin)%cfg.TickNanos != 0 {
		g.marginTicks++
	}
}

// slabOf is the key of the slab that holds set: its own hash tag.
func (g *Gate) slabOf(set int64) string {
	return g.tag + strconv.FormatInt(set%g.cfg.Slabs, 10) + "}"
}

// sweepNow is now less the margin in ticks, saturating at math.MinInt64:
// a sweep drops what is full since then, as an expiry would.
func (g *Gate) sweepNow(now int64) int64 {
	if now < math.MinInt64+g.marginTicks {
		return math.MinInt64
	}
	return now - g.marginTicks
}

// reserve takes a place in the node's in-flight count, or reports that it
// is at maxif.
//
// spec GATE-4: the node's own count, lim_acq(n, maxif), before any Redis trip.
func (g *Gate) reserve() bool {
	for {
		n := g.inflight.Load()
		if n >= g.cfg.Lim.Maxif() {
			return false
		}
		if g.inflight.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// admitSpread is Admit in the Spread layout: the node's place first (a shed
// costs no round trip), then one script on the set's slab. A pass keeps the
// place; a limited decision or an error gives it back.
func (g *Gate) admitSpread(k, now int64) (Decision, error) {
	set := g.setOf(k)
	if !g.reserve() {
		return Decision{Verdict: gate.Shed, Set: set, Way: -1, RetryAfter: 1}, nil // GATE-9
	}
	d, err := g.runSpread(k, set, now)
	if err != nil || d.Verdict != gate.Pass {
		g.inflight.Add(-1)
		return d, err
	}
	d.place, d.seq = &place{n: &g.inflight}, g.seq.Add(1)
	return d, nil
}

// runSpread runs the Spread script for key k of set at now. It retries a
// definite failure until Config.Timeout (a Busy reply is retried by the
// client); an ambiguous one ends the admit at once with ErrIndeterminate:
// with no lease, a retry could not tell a replayed pass from a new one.
//
// spec DIST-5: "It is *ambiguous* when a write was sent and no reply came (a reset, a timeout): it may have taken effect"
func (g *Gate) runSpread(k, set, now int64) (Decision, error) {
	nq, nr := floorDivMod(now, g.cfg.Lim.Ivl())
	sq, sr := floorDivMod(g.sweepNow(now), g.cfg.Lim.Ivl())
	keys := []string{g.slabOf(set)}
	args := []string{be8(nq) + be8(nr), be8(k), be8(set), g.consts, strconv.FormatInt(time.Now().UnixMilli(), 10), be8(sq) + be8(sr)}
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	for attempt := 0; ; attempt++ {
		r, err := spreadScript.Exec(ctx, g.c, keys, args).ToArray()
		if err == nil {
			d, err := g.decision(r, "", now)
			d.Set = set
			return d, err
		}
		if !redisfault.Definite(err) {
			return Decision{}, fmt.Errorf("%w: %w", ErrIndeterminate, err)
		}
		if ctx.Err() != nil || attempt == 3 {
			return Decision{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		args[4] = strconv.FormatInt(time.Now().UnixMilli(), 10)
		time.Sleep(time.Duration(attempt+1) * 5 * time.Millisecond)
	}
}

// release gives back p's place in n, once; nil, another node's place or
// one given back already is a no-op.
func (p *place) release(n *atomic.Int64) {
	if p != nil && p.n == n && p.done.CompareAndSwap(false, true) {
		n.Add(-1)
	}
}

// bucketSpread is Bucket in the Spread layout: one HGET of the set's field.
func (g *Gate) bucketSpread(k, now int64) (lim.Bucket, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	set := g.setOf(k)
	v, err := g.c.Do(ctx, g.c.B().Hget().Key(g.slabOf(set)).Field(be8(set)).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return lim.Bucket{}, false, nil
	}
	if err != nil {
		return lim.Bucket{}, false, fmt.Errorf("%w: bucket: %w", ErrUnavailable, err)
	}
	size := 44 // way (4 bytes), key, bucket
	if g.cfg.Ways == 1 {
		size = 40 // key, bucket
	}
	if len(v)%size != 0 {
		return lim.Bucket{}, false, fmt.Errorf("redisgate: bad set record %x", v)
	}
	for p := 0; p < len(v); p += size {
		r := v[p+size-40 : p+size]
		if r[:8] == be8(k) {
			return g.fullOrNot(r[8:], now)
		}
	}
	return lim.Bucket{}, false, nil
}

// fullOrNot decodes rec and returns its bucket and true, or false when it
// is full at now (it then behaves as an empty way, spec GATE-14).
func (g *Gate) fullOrNot(rec string, now int64) (lim.Bucket, bool, error) {
	b, err := g.decode(rec)
	if err != nil {
		return lim.Bucket{}, false, err
	}
	if g.cfg.Lim.Take(b, now, g.cfg.Lim.Cap()).OK == 1 { // full at now
		return lim.Bucket{}, false, nil
	}
	return b, true, nil
}
