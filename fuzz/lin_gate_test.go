package fuzz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"github.com/anishathalye/porcupine"
	igate "github.com/limcheck/limcheck/impl/gate"
	ilim "github.com/limcheck/limcheck/impl/lim"
	mgate "github.com/limcheck/limcheck/model/gate"
	mlim "github.com/limcheck/limcheck/model/lim"
	"github.com/limcheck/limcheck/oracle"
)

// The gate of the linearizability checks: a small bucket (cap 2, one token
// per 3 ticks) so that requests are limited and buckets refill to full
// within a few ticks, maxif 2 under four clients so that requests are shed,
// 2 sets of 2 ways and 0.4 s ticks (a retry of 3 ticks is a Retry-After of
// 2 s).
const (
	linGateCap       = 2
	linGateRefil     = 1
	linGateIvl       = 3
	linGateMaxif     = 2
	linGateSets      = 2
	linGateWays      = 2
	linGateTickNanos = 400_000_000
)

// linGateMaxifs are the maxif of the concurrent gate histories, round by
// round: impl leases the places to at least four shard words, so maxif 1
// and 2 leave shards with no lease (the slow path decides), 5 gives every
// shard one (the one-CAS fast paths), and every maxif fills up.
var linGateMaxifs = []int64{linGateMaxif, 1, 3, 5}

// linGateIPs are the addresses the clients send from: keys 97..101. Five
// keys in two sets of two ways: whatever the seed, one set holds at least
// three keys, so admissions there evict and its budget refuses some
// (GATE-16, GATE-19).
var linGateIPs = []string{"a", "b", "c", "d", "e"}

// linGateSeed is the seed of linGateModel and newLinImplGate: the zero
// seed. The impl's rounds draw theirs (linGateSeeds).
var linGateSeed [16]byte

// linGateSeeds returns the seed of round r: the zero seed, all 0xff, then
// seeds drawn from rng.
func linGateSeeds(r int, rng *rand.Rand) [16]byte {
	var s [16]byte
	switch r {
	case 0:
	case 1:
		for i := range s {
			s[i] = 0xff
		}
	default:
		for i := range s {
			s[i] = byte(rng.Uint32())
		}
	}
	return s
}

// linGateIn is one gate operation: admit(ip, now), release(), in_flight()
// or bucket(ip, now).
type linGateIn struct {
	kind oracle.Kind
	ip   string
	now  int64
}

func (in linGateIn) String() string {
	switch in.kind {
	case oracle.Admit:
		return fmt.Sprintf("admit(%q, %d)", in.ip, in.now)
	case oracle.Bucket:
		return fmt.Sprintf("bucket(%q, %d)", in.ip, in.now)
	}
	return string(in.kind) + "()"
}

// linGateOut is what a gate operation returned: an admit's decision (the
// response included), in_flight's count or a bucket read.
type linGateOut struct {
	Verdict                     string
	Set, Way, Retry, RetryAfter int64
	Response                    string
	N                           int64
	Touched                     bool
	Tks, Last                   int64
}

// describe describes the operation with its output.
func (in linGateIn) describe(out any) string {
	o := out.(linGateOut)
	switch in.kind {
	case oracle.Admit:
		return fmt.Sprintf("%v -> %s set %d way %d retry %d retry_after %d", in, o.Verdict, o.Set, o.Way, o.Retry, o.RetryAfter)
	case oracle.InFlight:
		return fmt.Sprintf("%v -> %d", in, o.N)
	case oracle.Bucket:
		if !o.Touched {
			return fmt.Sprintf("%v -> none", in)
		}
		return fmt.Sprintf("%v -> {tks %d, last %d}", in, o.Tks, o.Last)
	}
	return in.String()
}

// linGateVerdict names the verdict of an output, for tallies; a limited
// admit with no way, a refused eviction (GATE-19), is linGateRefused.
func linGateVerdict(out any) string {
	o := out.(linGateOut)
	if o.Verdict == string(mgate.Limited) && o.Way == mgate.NoWay {
		return linGateRefused
	}
	return o.Verdict
}

// linGateRefused is the tally name of a refused eviction.
const linGateRefused = "limited (budget)"

// linGateMachine is model/gate as a linMachine.
type linGateMachine struct{ g *mgate.Gate }

// linGateSnap is a model gate's whole state: in-flight, for each address
// the way that holds its key (NoWay for none) and the stored bucket, and
// each set's budget (GATE-19). A key is in at most one way, every way holds
// one of the pool's keys or none, so this is every way.
type linGateSnap struct {
	inflight int64
	ways     [5]int64
	buckets  [5]linGateOut
	budgets  [linGateSets]linGateOut // Touched iff the set has a budget
}

// newLinGateMachine returns the constructor of model gates of maxif on
// the zero seed.
func newLinGateMachine(maxif int64) func() linMachine[linGateIn, linGateOut, linGateSnap] {
	return newLinGateMachineSeeded(maxif, linGateSeed)
}

// newLinGateMachineSeeded returns the constructor of model gates of maxif
// and seed.
func newLinGateMachineSeeded(maxif int64, seed [16]byte) func() linMachine[linGateIn, linGateOut, linGateSnap] {
	return func() linMachine[linGateIn, linGateOut, linGateSnap] {
		g, err := mgate.New(mgate.Config{Lim: mlim.NewConfig(linGateCap, linGateRefil, linGateIvl, maxif), Sets: linGateSets, Ways: linGateWays, TickNanos: linGateTickNanos, Seed: seed})
		if err != nil {
			panic(err) // a valid constant config
		}
		return linGateMachine{g}
	}
}

func (m linGateMachine) apply(in linGateIn) linGateOut {
	switch in.kind {
	case oracle.Admit:
		d := m.g.Admit(in.ip, in.now)
		return linGateOut{Verdict: string(d.Verdict), Set: d.Set, Way: d.Way, Retry: d.Retry, RetryAfter: d.RetryAfter, Response: d.Response}
	case oracle.Release:
		m.g.Release()
		return linGateOut{}
	case oracle.InFlight:
		return linGateOut{N: m.g.InFlight()}
	}
	b, ok := m.g.Bucket(in.ip, in.now)
	return linBucketOut(ok, b.Tks, b.Last)
}

// snapshot reads each key's stored bucket at now MinInt64, where a bucket
// is full only at tks >= cap, which no take leaves: so every held way shows.
func (m linGateMachine) snapshot() linGateSnap {
	s := linGateSnap{inflight: m.g.InFlight()}
	for i, ip := range linGateIPs {
		s.ways[i] = mgate.NoWay
		if _, w, ok := m.g.WayOf(ip); ok {
			s.ways[i] = w
		}
		s.buckets[i] = m.apply(linGateIn{kind: oracle.Bucket, ip: ip, now: math.MinInt64})
	}
	for set, b := range modelBudgets(m.g) {
		s.budgets[set] = linBucketOut(true, b.Tks, b.Last)
	}
	return s
}

// modelBudgets returns the stored budgets of a model gate, set by set
// (GATE-19). model/gate exports no reader of them, so it reads the
// unexported field budgets (a map from set to lim.Bucket) by reflection:
// a snapshot without them would be incomplete (linMachine), and porcupine
// would merge states whose budgets differ. It panics, failing the test
// that calls it, if the model's representation changes.
func modelBudgets(g *mgate.Gate) map[int64]mlim.Bucket {
	out := map[int64]mlim.Bucket{}
	it := reflect.ValueOf(g).Elem().FieldByName("budgets").MapRange()
	for it.Next() {
		b := it.Value()
		out[it.Key().Int()] = mlim.Bucket{Tks: b.FieldByName("Tks").Int(), Last: b.FieldByName("Last").Int()}
	}
	return out
}

// linBucketOut is a bucket read: tks and last only when touched.
func linBucketOut(touched bool, tks, last int64) linGateOut {
	if !touched {
		return linGateOut{}
	}
	return linGateOut{Touched: true, Tks: tks, Last: last}
}

// linGateModel is the porcupine model of the gate of maxif on the zero
// seed, never partitioned: the in-flight count couples every operation.
func linGateModel(maxif int64) porcupine.Model { return linModel(newLinGateMachine(maxif), nil) }

// linGateModelSeeded is linGateModel on seed.
func linGateModelSeeded(maxif int64, seed [16]byte) porcupine.Model {
	return linModel(newLinGateMachineSeeded(maxif, seed), nil)
}

// linGateSubject is the gate the clients drive: *igate.Gate, or a broken
// gate that the checker must catch.
type linGateSubject interface {
	Admit(ip string, now int64) igate.Decision
	Release(d igate.Decision)
	InFlight() int64
	Bucket(ip string, now int64) (ilim.Bucket, bool)
}

// newLinImplGate returns the impl gate of maxif on the zero seed.
func newLinImplGate(t *testing.T, maxif int64) *igate.Gate {
	t.Helper()
	return newLinImplGateSeeded(t, maxif, linGateSeed)
}

// newLinImplGateSeeded returns the impl gate of maxif on seed.
func newLinImplGateSeeded(t *testing.T, maxif int64, seed [16]byte) *igate.Gate {
	t.Helper()
	g, err := igate.New(igate.Config{Lim: ilim.NewConfig(linGateCap, linGateRefil, linGateIvl, maxif), Sets: linGateSets, Ways: linGateWays, TickNanos: linGateTickNanos, Seed: &seed})
	if err != nil {
		t.Fatalf("gate.New: %v", err)
	}
	return g
}

// linGateClient returns the body of one client: n operations on g, mostly
// admits from the address pool at the shared clock, releases of its own
// passes (Release(d) with the pass's decision), in_flight and bucket reads,
// yielding now and then; at the end it releases what it still holds.
func linGateClient(g linGateSubject, clock *linClock, n int) func(*linClient, *rand.Rand) {
	return func(c *linClient, rng *rand.Rand) {
		var held []igate.Decision
		for range n {
			switch r := rng.IntN(100); {
			case len(held) > 0 && r < 30:
				linGateRelease(c, g, held[0])
				held = held[1:]
			case r < 36:
				linGateRead(c, g, linGateIn{kind: oracle.InFlight})
			case r < 42:
				linGateRead(c, g, linGateIn{kind: oracle.Bucket, ip: linGateIPs[rng.IntN(len(linGateIPs))], now: clock.next(rng)})
			default:
				if d := linGateAdmit(c, g, linGateIPs[rng.IntN(len(linGateIPs))], clock.next(rng)); d.Verdict == igate.Pass {
					held = append(held, d)
				}
			}
			if rng.IntN(3) == 0 {
				runtime.Gosched()
			}
		}
		for _, d := range held {
			linGateRelease(c, g, d)
		}
	}
}

// linGateAdmit records g.Admit(ip, now) and returns its decision.
func linGateAdmit(c *linClient, g linGateSubject, ip string, now int64) igate.Decision {
	var d igate.Decision
	linDo(c, linGateIn{kind: oracle.Admit, ip: ip, now: now}, func() linGateOut {
		d = g.Admit(ip, now)
		return linGateOut{Verdict: d.Verdict.String(), Set: d.Set, Way: d.Way, Retry: d.Retry, RetryAfter: d.RetryAfter, Response: string(d.AppendResponse(nil))}
	})
	return d
}

// linGateRelease records g.Release(d): the model's release() takes no
// argument, impl's the pass whose place it gives back.
func linGateRelease(c *linClient, g linGateSubject, d igate.Decision) {
	linDo(c, linGateIn{kind: oracle.Release}, func() linGateOut { g.Release(d); return linGateOut{} })
}

// linGateRead records g.InFlight() or g.Bucket(ip, now).
func linGateRead(c *linClient, g linGateSubject, in linGateIn) {
	linDo(c, in, func() linGateOut {
		if in.kind == oracle.InFlight {
			return linGateOut{N: g.InFlight()}
		}
		b, ok := g.Bucket(in.ip, in.now)
		return linBucketOut(ok, b.Tks, b.Last)
	})
}

// TestLinGateAdmitReleaseIsLinearizable checks that concurrent histories of
// one impl/gate are linearizable with respect to model/gate: four clients
// admit from five addresses, three of them in a set of two ways (so
// admissions evict and full buckets are reused) at a clock that also steps
// back, release their passes and read in_flight and buckets, and some order
// of all the operations, consistent with real time, makes model/gate return
// every decision (verdict, set, way, retry, Retry-After, response), count and
// bucket that impl returned. maxif and the seed vary by round (the zero
// seed, all 0xff, then drawn; model and impl share it); the histories must
// pass, shed, limit by a key's bucket and refuse an eviction by a set's
// budget.
func TestLinGateAdmitReleaseIsLinearizable(t *testing.T) {
	seen := map[string]int{}
	for round := range *linRounds {
		maxif := linGateMaxifs[round%len(linGateMaxifs)]
		seed := linGateSeeds(round, rand.New(rand.NewPCG(linSeed(t.Name(), round), 24)))
		g := newLinImplGateSeeded(t, maxif, seed)
		h := linRun(linClients, linSeed(t.Name(), round), linGateClient(g, new(linClock), linOpsPerClient))
		linRequire(t, linGateModelSeeded(maxif, seed), h, fmt.Sprintf("gate history %d (maxif %d, seed %x)", round, maxif, seed))
		linTally(seen, h, linGateVerdict)
	}
	linRequireSeen(t, seen, string(mgate.Pass), string(mgate.Shed), string(mgate.Limited), linGateRefused)
}
