package fuzz

import (
	"fmt"
	"math"
	"math/rand/v2"
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
// per 3 ticks) so that requests are limited, maxif 2 under four clients so
// that requests are shed, 3 slots and 0.4 s ticks (a retry of 3 ticks is a
// Retry-After of 2 s).
const (
	linGateCap       = 2
	linGateRefil     = 1
	linGateIvl       = 3
	linGateMaxif     = 2
	linGateSlots     = 3
	linGateTickNanos = 400_000_000
)

// linGateMaxifs are the maxif of the concurrent gate histories, round by
// round: impl leases the places to at least four shard words, so maxif 1
// and 2 leave shards with no lease (the slow path decides), 5 gives every
// shard one (the one-CAS fast paths), and every maxif fills up.
var linGateMaxifs = []int64{linGateMaxif, 1, 3, 5}

// linGateIPs are the addresses the clients send from: keys 97..100, slots 1,
// 2, 0 and 1, so "a" and "d" share a bucket.
var linGateIPs = [4]string{"a", "b", "c", "d"}

// linGateIn is one gate operation: admit(ip, now), release(), in_flight()
// or bucket(ip, now).
type linGateIn struct {
	kind oracle.Kind
	ip   string
	now  int64
}

func (in linGateIn) String() string {
	switch in.kind {
	case oracle.Admit, oracle.Bucket:
		return fmt.Sprintf("%s(%q, %d)", in.kind, in.ip, in.now)
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
			return fmt.Sprintf("%v -> untouched", in)
		}
		return fmt.Sprintf("%v -> {tks %d, last %d}", in, o.Tks, o.Last)
	}
	return in.String()
}

// linGateVerdict names the verdict of an output, for tallies.
func linGateVerdict(out any) string { return out.(linGateOut).Verdict }

// linGateMachine is model/gate as a linMachine.
type linGateMachine struct{ g *mgate.Gate }

// linGateSnap is a model gate's whole state: in-flight and, for every
// address of the pool, its way and stored bucket.
type linGateSnap struct {
	inflight int64
	ways     [4]linGateOut // WayOf, and Bucket at MinInt64: the stored bucket
}

// newLinGateMachine returns the constructor of model gates of maxif.
func newLinGateMachine(maxif int64) func() linMachine[linGateIn, linGateOut, linGateSnap] {
	return func() linMachine[linGateIn, linGateOut, linGateSnap] {
		g, err := mgate.New(mgate.Config{Lim: mlim.NewConfig(linGateCap, linGateRefil, linGateIvl, maxif), Sets: linGateSlots, Ways: 1, TickNanos: linGateTickNanos})
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

func (m linGateMachine) snapshot() linGateSnap {
	s := linGateSnap{inflight: m.g.InFlight()}
	for i, ip := range linGateIPs {
		s.ways[i] = m.apply(linGateIn{kind: oracle.Bucket, ip: ip, now: math.MinInt64})
		s.ways[i].Set, s.ways[i].Way, s.ways[i].Touched = m.g.WayOf(ip)
	}
	return s
}

// linBucketOut is a bucket read: tks and last only when touched.
func linBucketOut(touched bool, tks, last int64) linGateOut {
	if !touched {
		return linGateOut{}
	}
	return linGateOut{Touched: true, Tks: tks, Last: last}
}

// linGateModel is the porcupine model of the gate of maxif, never
// partitioned: the in-flight count couples every operation.
func linGateModel(maxif int64) porcupine.Model { return linModel(newLinGateMachine(maxif), nil) }

// linGateSubject is the gate the clients drive: *igate.Gate, or a broken
// gate that the checker must catch.
type linGateSubject interface {
	Admit(ip string, now int64) igate.Decision
	Release(d igate.Decision)
	InFlight() int64
	Bucket(slot int64) (ilim.Bucket, bool)
}

func newLinImplGate(t *testing.T, maxif int64) *igate.Gate {
	t.Helper()
	g, err := igate.New(igate.Config{Lim: ilim.NewConfig(linGateCap, linGateRefil, linGateIvl, maxif), Slots: linGateSlots, TickNanos: linGateTickNanos})
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
		return linGateOut{Verdict: d.Verdict.String(), Set: d.Slot, Retry: d.Retry, RetryAfter: d.RetryAfter, Response: string(d.AppendResponse(nil))}
	})
	return d
}

// linGateRelease records g.Release(d): the model's release() takes no
// argument, impl's the pass whose place it gives back.
func linGateRelease(c *linClient, g linGateSubject, d igate.Decision) {
	linDo(c, linGateIn{kind: oracle.Release}, func() linGateOut { g.Release(d); return linGateOut{} })
}

// linGateRead records g.InFlight() or g.Bucket(slot).
func linGateRead(c *linClient, g linGateSubject, in linGateIn) {
	linDo(c, in, func() linGateOut {
		if in.kind == oracle.InFlight {
			return linGateOut{N: g.InFlight()}
		}
		b, ok := g.Bucket(mlim.IPKey(in.ip) % linGateSlots) // impl/gate 1.x reads by slot
		return linBucketOut(ok, b.Tks, b.Last)
	})
}

// TestLinGateAdmitReleaseIsLinearizable checks that concurrent histories of
// one impl/gate are linearizable with respect to model/gate: four clients
// admit from addresses that share slots at a clock that also steps back,
// release their passes and read in_flight and buckets, and some order of all
// the operations, consistent with real time, makes model/gate return every
// decision (verdict, slot, retry, Retry-After, response), count and bucket
// that impl returned. maxif varies by round; the histories must pass, shed
// and limit.
func TestLinGateAdmitReleaseIsLinearizable(t *testing.T) {
	declineImplGate(t)
	seen := map[string]int{}
	for round := range *linRounds {
		maxif := linGateMaxifs[round%len(linGateMaxifs)]
		g := newLinImplGate(t, maxif)
		h := linRun(linClients, linSeed(t.Name(), round), linGateClient(g, new(linClock), linOpsPerClient))
		linRequire(t, linGateModel(maxif), h, fmt.Sprintf("gate history %d (maxif %d)", round, maxif))
		linTally(seen, h, linGateVerdict)
	}
	linRequireSeen(t, seen, string(mgate.Pass), string(mgate.Shed), string(mgate.Limited))
}

// declineImplGate skips a check of impl/gate against model/gate on branch
// gate2: impl/gate is still spec 1.x's shared slots, the model is 2.0, so
// the check would only report the change of spec. gatefast rewrites
// impl/gate on 2.0 and restores these checks; main never lands without them.
func declineImplGate(t *testing.T) {
	t.Helper()
	t.Skip("impl/gate is on spec 1.x until gatefast's 2.0 rewrite, which restores this check")
}
