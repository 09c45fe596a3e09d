package gate

import (
	"fmt"
	"math"
	"math/big"

	"github.com/limcheck/limcheck/model/lim"
)

// Error is the type of the gate's sentinel errors.
type Error string

func (e Error) Error() string { return string(e) }

// ErrConfig is wrapped by every error [New] returns for an invalid [Config].
const ErrConfig Error = "gate: invalid config"

// NanosPerSecond is the number of nanoseconds in the second that Retry-After counts.
const NanosPerSecond int64 = 1_000_000_000

// Config configures a [Gate]. The table holds Sets*Ways ways; the product is
// exact and need not fit in an int64 (the model allocates only the ways it
// fills, so Sets 1, Ways MaxInt64 is a gate that never evicts).
type Config struct {
	Lim       lim.Config `json:"lim"`        // the bucket and in-flight parameters; must be valid
	Sets      int64      `json:"sets"`       // number of sets, >= 1
	Ways      int64      `json:"ways"`       // ways per set, >= 1
	TickNanos int64      `json:"tick_nanos"` // length of one tick in nanoseconds, >= 1
	Seed      Seed       `json:"seed"`       // the secret that places keys in sets (GATE-18)
}

// Verdict is the kind of a gate [Decision].
type Verdict string

// The three verdicts of [Gate.Admit].
const (
	Pass    Verdict = "pass"    // both gates passed: call the next handler, then Release
	Shed    Verdict = "shed"    // the in-flight gate is full: 503, Retry-After 1
	Limited Verdict = "limited" // the key's bucket rejected: 503 with the bucket's retry
)

// NoWay is the Way of a [Decision] after which no way holds the key: a
// shed, which reads no way (GATE-4), and a newcomer whose eviction the set's
// budget refused (GATE-19).
const NoWay int64 = -1

// Decision is the outcome of one [Gate.Admit].
type Decision struct {
	Verdict    Verdict `json:"verdict"`
	Set        int64   `json:"set"`         // the set of the request's key (a shed reads none of its ways)
	Way        int64   `json:"way"`         // the way that holds the key after the take; NoWay on a shed or a refused eviction
	Retry      int64   `json:"retry"`       // the bucket's retry in ticks; 0 unless Limited
	RetryAfter int64   `json:"retry_after"` // Retry-After in seconds; 0 on Pass
	Response   string  `json:"response"`    // the exact 503 bytes; "" on Pass
}

// entry is a way that holds a key: the key and its bucket.
type entry struct {
	key int64
	bkt lim.Bucket
}

// Gate is the composition layer's state: the set-associative table of
// per-key buckets, each set's eviction budget and the in-flight count. The zero Gate is not usable; build
// one with [New]. Not safe for concurrent use.
type Gate struct {
	cfg      Config
	sets     map[int64]map[int64]entry // set -> way -> entry; an absent way is empty
	budgets  map[int64]lim.Bucket      // set -> its eviction budget (GATE-19); absent is born full
	inflight int64
}

// New returns a gate with every way empty, every set's budget absent and
// nothing in flight, or an error wrapping [ErrConfig] that names the invalid
// field. Every Seed is valid.
func New(cfg Config) (*Gate, error) {
	// spec GATE-1: "A gate needs a valid lim config, sets >= 1, ways >= 1, tick_nanos >= 1 and a seed of 16 bytes (every 16-byte value is valid); anything else is a construction error."
	switch {
	case !cfg.Lim.Valid():
		return nil, fmt.Errorf("%w: lim config %+v is not valid", ErrConfig, cfg.Lim)
	case cfg.Sets < 1:
		return nil, fmt.Errorf("%w: sets %d < 1", ErrConfig, cfg.Sets)
	case cfg.Ways < 1:
		return nil, fmt.Errorf("%w: ways %d < 1", ErrConfig, cfg.Ways)
	case cfg.TickNanos < 1:
		return nil, fmt.Errorf("%w: tick_nanos %d < 1", ErrConfig, cfg.TickNanos)
	}
	// spec GATE-2: "A new gate has nothing in flight, every way empty and every set's budget absent."
	return &Gate{cfg: cfg, sets: map[int64]map[int64]entry{}, budgets: map[int64]lim.Bucket{}}, nil
}

// Config returns the gate's configuration.
func (g *Gate) Config() Config { return g.cfg }

// SetOf returns the set of ip: SipHash-2-4 of lim_ip_key(ip) under the
// seed, mod Sets (GATE-13, GATE-18).
func (g *Gate) SetOf(ip string) int64 { return g.setOf(lim.IPKey(ip)) }

// setOf returns the set of key k.
func (g *Gate) setOf(k int64) int64 {
	// spec GATE-13: "The set of a key k is s = h mod sets, h its SipHash under the seed (GATE-18); a key is held by at most one way, a way of its own set."
	return int64(SipHash(g.cfg.Seed, uint64(k)) % uint64(g.cfg.Sets))
}

// InFlight returns the number of passed requests not yet released.
func (g *Gate) InFlight() int64 { return g.inflight }

// Bucket returns the bucket of the key of ip and true, or a zero bucket and
// false when no way holds the key or its bucket is full at now (such a way
// behaves as empty, GATE-14). The bucket is the stored one, not refilled.
func (g *Gate) Bucket(ip string, now int64) (lim.Bucket, bool) {
	k := lim.IPKey(ip)
	set := g.setOf(k)
	w, ok := g.wayOf(set, k)
	if !ok {
		return lim.Bucket{}, false
	}
	b := g.sets[set][w].bkt
	if g.full(b, now) {
		return lim.Bucket{}, false
	}
	return b, true
}

// WayOf returns the set and the way that hold the key of ip, and true, or
// false when no way holds it. A way whose bucket is full still holds its key
// until it is reused; use [Gate.Bucket] for what a decision can observe.
func (g *Gate) WayOf(ip string) (set, way int64, ok bool) {
	k := lim.IPKey(ip)
	set = g.setOf(k)
	way, ok = g.wayOf(set, k)
	return set, way, ok
}

// Admit decides one request from ip at tick now, at a cost of one token.
func (g *Gate) Admit(ip string, now int64) Decision {
	k := lim.IPKey(ip)
	set := g.setOf(k)
	// spec GATE-4: "The in-flight gate runs first: on a shed no way is read, touched or written and in-flight is unchanged."
	acq := lim.Acquire(g.inflight, g.cfg.Lim.Maxif)
	if acq.OK == 0 {
		// spec GATE-9: "A shed answers lim_resp_503(1): Retry-After 1."
		return Decision{Verdict: Shed, Set: set, Way: NoWay, RetryAfter: 1, Response: lim.Response503(1)}
	}
	way, b, refused := g.place(set, k, now)
	if refused != nil {
		// spec GATE-19: "A refused eviction is limited: no way changes and none holds k, the retry is the budget take's retry."
		secs := RetryAfterSeconds(refused.Retry, g.cfg.TickNanos)
		return Decision{Verdict: Limited, Set: set, Way: NoWay, Retry: refused.Retry, RetryAfter: secs, Response: lim.Response503(secs)}
	}
	// spec GATE-5: "Each admission takes exactly one token: lim_take(bucket, cfg, now, 1)."
	t := lim.Take(b, g.cfg.Lim, now, 1)
	// spec GATE-6: "The way keeps the bucket of the take's result on both outcomes."
	g.sets[set][way] = entry{key: k, bkt: t.Bucket()}
	if t.OK == 1 {
		// spec GATE-7: "A pass keeps the acquired place (in-flight becomes lim_acq's n) and carries no response."
		g.inflight = acq.N
		// spec GATE-17: "A decision names the set of the key and, unless shed or refused an eviction, the way that holds it after the take."
		return Decision{Verdict: Pass, Set: set, Way: way}
	}
	// spec GATE-8: "A limited request keeps no in-flight place and answers lim_resp_503 with the bucket's retry converted to seconds."
	secs := RetryAfterSeconds(t.Retry, g.cfg.TickNanos)
	return Decision{Verdict: Limited, Set: set, Way: way, Retry: t.Retry, RetryAfter: secs, Response: lim.Response503(secs)}
}

// place returns the way of set that key k uses at now and the bucket it
// takes from (GATE-10, GATE-15, GATE-16), allocating the set's map when
// needed. When k must evict, the set's budget pays (GATE-19); refused is the
// budget's take when it refused (then no way changed), nil otherwise.
func (g *Gate) place(set, k, now int64) (way int64, b lim.Bucket, refused *lim.TakeResult) {
	ways := g.sets[set]
	if ways == nil {
		ways = map[int64]entry{}
		g.sets[set] = ways
	}
	// spec GATE-10: "A key that no way holds, or whose bucket is full at now, takes from lim_bkt_new(cap, now)."
	born := lim.NewBucket(g.cfg.Lim.Cap, now)
	// spec GATE-15: "(a) The way that holds the key, if its bucket is not full at now, takes from that bucket."
	old, held := g.wayOf(set, k)
	if held && !g.full(ways[old].bkt, now) {
		return old, ways[old].bkt, nil
	}
	// spec GATE-15: "(b) Else the lowest way of the set that is empty or full at now holds the key (its own full way is one); any other way holding it is emptied."
	for w := int64(0); w < g.cfg.Ways; w++ { // ends by len(ways)+1: the map is finite
		if e, ok := ways[w]; !ok || g.full(e.bkt, now) {
			if held && old != w {
				delete(ways, old)
			}
			return w, born, nil
		}
	}
	// spec GATE-16: "Else evict the way whose bucket refilled at now holds the most tokens, ties to the lowest way; the evicted key's state is dropped."
	victim, most := int64(0), int64(-1)
	for w := int64(0); w < g.cfg.Ways; w++ { // every way is filled: Ways <= len(ways)
		if tks := g.refilled(ways[w].bkt, now); tks > most {
			victim, most = w, tks
		}
	}
	// spec GATE-19: "An eviction pays cap - tks' of its victim from the set's budget, a lim bucket of the gate's lim config, born full where absent or full at now; the budget keeps the take's result on both outcomes."
	budget, ok := g.budgets[set]
	if !ok || g.full(budget, now) {
		budget = born
	}
	pay := lim.Take(budget, g.cfg.Lim, now, g.cfg.Lim.Cap-most)
	g.budgets[set] = pay.Bucket()
	if pay.OK == 0 {
		return NoWay, lim.Bucket{}, &pay
	}
	return victim, born, nil
}

// wayOf returns the way of set that holds key k.
func (g *Gate) wayOf(set, k int64) (int64, bool) {
	for w, e := range g.sets[set] {
		if e.key == k {
			return w, true
		}
	}
	return 0, false
}

// full reports whether b is full at now: its refill at now reaches cap.
func (g *Gate) full(b lim.Bucket, now int64) bool {
	// spec GATE-14: "A bucket is full at now iff min(cap, tks + steps*refil) >= cap; a way whose bucket is full at now behaves as an empty way."
	return lim.Take(b, g.cfg.Lim, now, g.cfg.Lim.Cap).OK == 1
}

// refilled returns tks' of a bucket that is not full at now (LIM-10): a take
// of cap tokens rejects and reports the refilled tokens.
func (g *Gate) refilled(b lim.Bucket, now int64) int64 {
	return lim.Take(b, g.cfg.Lim, now, g.cfg.Lim.Cap).Tks
}

// Release gives back one in-flight place. The composition layer calls it once
// per [Pass], after the response is written; an extra call floors at 0.
func (g *Gate) Release() {
	// spec GATE-11: "Release sets in-flight to lim_rel(in-flight)."
	g.inflight = lim.Release(g.inflight)
}

// RetryAfterSeconds converts a retry of ticks of tickNanos nanoseconds into
// Retry-After seconds: max(1, ceil(retry*tickNanos / 1e9)), exact, saturated at
// MaxInt64. retry <= 0 gives 1.
func RetryAfterSeconds(retry, tickNanos int64) int64 {
	// spec GATE-12: "Retry-After seconds = max(1, ceil(retry * tick_nanos / 1e9)), exact, saturated at MaxInt64."
	num := new(big.Int).Mul(big.NewInt(retry), big.NewInt(tickNanos))
	q, r := new(big.Int).QuoRem(num, big.NewInt(NanosPerSecond), new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	switch {
	case q.Cmp(big.NewInt(1)) < 0:
		return 1
	case !q.IsInt64():
		return math.MaxInt64
	}
	return q.Int64()
}
