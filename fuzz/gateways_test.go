package fuzz

import (
	"math"
	"sync/atomic"
	"testing"

	igate "github.com/limcheck/limcheck/impl/gate"
	ilim "github.com/limcheck/limcheck/impl/lim"
	mgate "github.com/limcheck/limcheck/model/gate"
	mlim "github.com/limcheck/limcheck/model/lim"
	"pgregory.net/rapid"
)

// The direct 3.0 gate machine: impl/gate against model/gate on small tables
// (a few sets of a few ways) under a pool of addresses larger than the
// table, so that sets fill, full buckets are reused, ways are evicted with
// ties and sets' budgets refuse evictions (GATE-16, GATE-19). It draws the
// whole config itself, the seed and caps on both sides of the packed-token
// boundary (2^31 - 1) included, and needs nothing of the oracle's
// vocabulary.

// gateWaysIPs is the address pool: keys 97..108 and two addresses over 16
// bytes (IPKey's long path), spread over sets by their SipHash under the
// drawn seed.
var gateWaysIPs = []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l",
	"2001:db8::1", "2001:db8:1234:5678:9abc:def0:1234:5678"}

// gateWaysSeed draws a seed: the zero seed, all 0xff, or any 16 bytes.
func gateWaysSeed(t *rapid.T) [16]byte {
	var s [16]byte
	switch rapid.IntRange(0, 2).Draw(t, "seed kind") {
	case 1:
		for i := range s {
			s[i] = 0xff
		}
	case 2:
		copy(s[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "seed"))
	}
	return s
}

// gateWaysRefused counts the budget refusals (limited with no way) the
// machine has seen, so that a test can require them.
var gateWaysRefused atomic.Int64

// gateWays is one impl gate and one model gate fed the same history.
type gateWays struct {
	m    *mgate.Gate
	i    *igate.Gate
	ways int64
	last igate.Decision // the last pass, whose place Release gives back
	now  int64          // the clock the draws move around
}

// newGateWays draws a config and opens both gates on it; both refuse the
// same configs, and then there is nothing more to check.
func newGateWays(t *rapid.T) *gateWays {
	cap := rapid.SampledFrom([]int64{1, 2, 3, 5, 1<<31 - 1, 1 << 31, math.MaxInt64}).Draw(t, "cap")
	refil := rapid.SampledFrom([]int64{1, 2, 3, math.MaxInt64}).Draw(t, "refil")
	ivl := rapid.SampledFrom([]int64{1, 2, 5, math.MaxInt64}).Draw(t, "ivl")
	maxif := rapid.SampledFrom([]int64{1, 2, 3, math.MaxInt64}).Draw(t, "maxif")
	sets := rapid.SampledFrom([]int64{1, 2, 3, 7, 0}).Draw(t, "sets")
	ways := rapid.SampledFrom([]int64{1, 2, 3, 4, 8, 0}).Draw(t, "ways")
	tick := rapid.SampledFrom([]int64{1, 100_000_000, 1_000_000_000, math.MaxInt64}).Draw(t, "tick")
	seed := gateWaysSeed(t)
	m, merr := mgate.New(mgate.Config{Lim: mlim.NewConfig(cap, refil, ivl, maxif), Sets: sets, Ways: ways, TickNanos: tick, Seed: seed})
	i, ierr := igate.New(igate.Config{Lim: ilim.NewConfig(cap, refil, ivl, maxif), Sets: sets, Ways: ways, TickNanos: tick, Seed: &seed})
	if (merr == nil) != (ierr == nil) {
		t.Fatalf("New: model error %v, impl error %v; want both or neither", merr, ierr)
	}
	if merr != nil {
		return nil
	}
	return &gateWays{m: m, i: i, ways: ways, now: rapid.SampledFrom([]int64{0, math.MinInt64, math.MaxInt64 - 100}).Draw(t, "t0")}
}

// tick draws the next now: mostly a small step forward (often onto a
// refill boundary), sometimes back, sometimes to an end of the domain.
func (g *gateWays) tick(t *rapid.T) int64 {
	switch rapid.IntRange(0, 9).Draw(t, "clock") {
	case 0:
		g.now = rapid.SampledFrom([]int64{math.MinInt64, -1, 0, math.MaxInt64}).Draw(t, "edge")
	case 1:
		g.now -= rapid.Int64Range(1, 20).Draw(t, "back")
	default:
		if d := rapid.Int64Range(0, 12).Draw(t, "forward"); g.now <= math.MaxInt64-d {
			g.now += d
		}
	}
	return g.now
}

// admit admits one address on both gates and compares the decisions.
func (g *gateWays) admit(t *rapid.T) {
	ip := rapid.SampledFrom(gateWaysIPs).Draw(t, "ip")
	now := g.tick(t)
	md, id := g.m.Admit(ip, now), g.i.Admit(ip, now)
	slot := igate.NoWay
	if md.Way != mgate.NoWay {
		slot = md.Set*g.ways + md.Way
	}
	resp := string(id.AppendResponse(nil))
	if id.Verdict.String() != string(md.Verdict) || id.Set != md.Set || id.Way != md.Way || id.Slot != slot ||
		id.Retry != md.Retry || id.RetryAfter != md.RetryAfter || resp != md.Response {
		t.Fatalf("Admit(%q, %d): impl %+v %q, model %+v", ip, now, id, resp, md)
	}
	if id.Verdict == igate.Pass {
		g.last = id
	}
	if id.Verdict == igate.Limited && id.Way == igate.NoWay {
		gateWaysRefused.Add(1)
	}
}

// release releases on both gates: impl the last pass, or a zero decision
// (an extra release must floor at 0 all the same).
func (g *gateWays) release(t *rapid.T) {
	d := g.last
	if rapid.Bool().Draw(t, "zero decision") {
		d = igate.Decision{}
	}
	g.m.Release()
	g.i.Release(d)
}

// check compares the observable state: in flight, and for every address of
// the pool its way and its bucket at the current clock and at MinInt64
// (where every held way shows its stored bucket).
func (g *gateWays) check(t *rapid.T) {
	if mi, ii := g.m.InFlight(), g.i.InFlight(); mi != ii {
		t.Fatalf("InFlight(): impl %d, model %d", ii, mi)
	}
	for _, ip := range gateWaysIPs {
		ms, mw, mok := g.m.WayOf(ip)
		is, iw, iok := g.i.WayOf(ip)
		if mok != iok || ms != is || (mok && mw != iw) {
			t.Fatalf("WayOf(%q): impl %d %d %v, model %d %d %v", ip, is, iw, iok, ms, mw, mok)
		}
		for _, now := range []int64{g.now, math.MinInt64} {
			mb, mok := g.m.Bucket(ip, now)
			ib, iok := g.i.Bucket(ip, now)
			if mok != iok || mb.Tks != ib.Tks || mb.Last != ib.Last {
				t.Fatalf("Bucket(%q, %d): impl %+v %v, model %+v %v", ip, now, ib, iok, mb, mok)
			}
		}
	}
}

// gateWaysMachine is the property: every decision, count, way and bucket
// of impl/gate equals model/gate's, for every sequential history.
func gateWaysMachine(t *rapid.T) {
	g := newGateWays(t)
	if g == nil {
		return
	}
	t.Repeat(map[string]func(*rapid.T){
		"":        g.check,
		"admit":   g.admit,
		"admit2":  g.admit, // admissions twice as often as releases
		"release": g.release,
	})
}

// TestPropImplGateWaysEqualsModel checks the property that impl/gate 3.0
// gives model/gate's decisions (verdict, set, way, slot, retry, Retry-After,
// response), in-flight counts, ways and buckets for every sequential history
// over small set-associative tables under more addresses than ways, any
// seed (both share it), packed and wide caps, and clocks that step back and
// reach both ends of int64. The histories must reach budget refusals.
func TestPropImplGateWaysEqualsModel(t *testing.T) {
	before := gateWaysRefused.Load()
	rapid.Check(t, gateWaysMachine)
	if n := gateWaysRefused.Load() - before; n == 0 {
		t.Errorf("no history reached a budget refusal (GATE-19): the property checks no refused eviction")
	} else {
		t.Logf("%d budget refusals", n)
	}
}

// FuzzImplGateWaysEqualsModel is TestPropImplGateWaysEqualsModel as a go
// test -fuzz target.
func FuzzImplGateWaysEqualsModel(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(gateWaysMachine))
}
