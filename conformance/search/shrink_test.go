package search_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/search"
	"github.com/limcheck/limcheck/model/gate"
	"github.com/limcheck/limcheck/model/lim"
	"github.com/limcheck/limcheck/oracle"
)

// recorder is the model in process, recording every trace it runs.
type recorder struct {
	judge.SubjectRunner
	seen *[]oracle.Trace
}

func (r recorder) RunTraces(ts []oracle.Trace, each func(int, judge.TraceRun)) error {
	*r.seen = append(*r.seen, ts...)
	return r.SubjectRunner.RunTraces(ts, each)
}

func newRecorder() (recorder, *[]oracle.Trace) {
	var seen []oracle.Trace
	return recorder{judge.SubjectRunner{S: oracle.Model{}}, &seen}, &seen
}

// holds turns a property of the trace alone into a Shrink predicate.
func holds(p func(oracle.Trace) bool) func(oracle.Trace, judge.TraceRun) bool {
	return func(t oracle.Trace, _ judge.TraceRun) bool { return p(t) }
}

func bytesPtr(s string) *oracle.Bytes { b := oracle.Bytes(s); return &b }

func take(tks, last, cap, refil, ivl, maxif, now, cost int64) oracle.Op {
	return oracle.Op{Kind: oracle.LimTake, Tks: oracle.I(tks), Last: oracle.I(last), Cap: oracle.I(cap), Refil: oracle.I(refil),
		Ivl: oracle.I(ivl), Maxif: oracle.I(maxif), Now: oracle.I(now), Cost: oracle.I(cost)}
}

// longLimTrace returns a lim trace of many ops, one of them a take of cost
// 1000.
func longLimTrace() oracle.Trace {
	t := search.GenFuzzTrace(oracle.Lim, 11, 0)
	for i := 1; len(t.Ops) < 30; i++ {
		t.Ops = append(t.Ops, search.GenFuzzTrace(oracle.Lim, 11, i).Ops...)
	}
	t.Ops = slices.Insert(t.Ops, len(t.Ops)/2, take(-5, math.MinInt64, 7, 3, 9, 2, math.MaxInt64, 1000))
	return t
}

// costAtLeast100 holds for a trace with a lim_take of cost >= 100.
var costAtLeast100 = holds(func(t oracle.Trace) bool {
	return slices.ContainsFunc(t.Ops, func(op oracle.Op) bool { return op.Kind == oracle.LimTake && num(op.Cost) >= 100 })
})

// Shrinking a pure property reaches its boundary exactly: a trace "has a
// lim_take of cost >= 100" shrinks to that one take, cost 100, every other
// integer 0.
func TestShrinkReachesTheBoundaryOfAProperty(t *testing.T) {
	r, _ := newRecorder()
	got, runs, err := search.Shrink(r, longLimTrace(), costAtLeast100, search.ShrinkLimits{})
	if err != nil {
		t.Fatal(err)
	}
	want := oracle.Trace{Component: oracle.Lim, Ops: []oracle.Op{take(0, 0, 0, 0, 0, 0, 0, 100)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Shrink = %#v, want %#v", got.Ops, want.Ops)
	}
	t.Logf("%d runs", runs)
}

// Shrinking never sends a candidate the model refuses as malformed, nor
// one whose config the model opens otherwise than the original's; and
// the runs it counts are the runs the runner saw.
func TestShrinkSendsOnlyWellFormedCandidatesOfTheSameOpen(t *testing.T) {
	for _, c := range oracle.Components() {
		for i := range 8 {
			orig := search.GenFuzzTrace(c, 5, i)
			want, err := oracle.Run(oracle.Model{}, orig)
			if err != nil {
				t.Fatal(err)
			}
			r, seen := newRecorder()
			// a property every candidate with an op keeps or loses: never
			// depends on the runner
			p := holds(func(t oracle.Trace) bool { return len(t.Ops) >= len(orig.Ops)/2 })
			_, runs, err := search.Shrink(r, orig, p, search.ShrinkLimits{Runs: 2000})
			if err != nil {
				t.Fatal(err)
			}
			if runs != len(*seen) {
				t.Errorf("Shrink counted %d runs, the runner saw %d", runs, len(*seen))
			}
			for _, cand := range *seen {
				got, err := oracle.Run(oracle.Model{}, cand)
				if err != nil {
					t.Fatalf("Shrink sent a malformed candidate: %v", err)
				}
				if got.Open != want.Open {
					t.Fatalf("Shrink sent a candidate the model opens with %q, the original with %q", got.Open, want.Open)
				}
			}
		}
	}
}

// Byte strings shrink shorter and toward "a", lists shorter, config fields
// to the least the model accepts: a check_any with two keys, one not
// empty, shrinks to the keys "" and "a" at time 0 on the config 1, 1, 1.
func TestShrinkSimplifiesKeysListsAndTheConfig(t *testing.T) {
	keys := []oracle.Bytes{"\xff\x00", "acct:bob", "", "ip:192.0.2.1"}
	orig := oracle.Trace{Component: oracle.Throttle,
		Config: oracle.Config{Throttle: &oracle.ThrottleConfig{Threshold: oracle.U(5), WindowSecs: oracle.U(900), BanSecs: oracle.U(math.MaxUint64)}},
		Ops: []oracle.Op{
			{Kind: oracle.RecordFailure, Key: bytesPtr("acct:bob"), Now: oracle.U(1 << 40)},
			{Kind: oracle.CheckAny, Keys: keys, Now: oracle.U(1<<40 + 5)},
		}}
	r, _ := newRecorder()
	p := holds(func(t oracle.Trace) bool {
		return slices.ContainsFunc(t.Ops, func(op oracle.Op) bool {
			return op.Kind == oracle.CheckAny && len(op.Keys) >= 2 && slices.ContainsFunc(op.Keys, func(k oracle.Bytes) bool { return k != "" })
		})
	})
	got, _, err := search.Shrink(r, orig, p, search.ShrinkLimits{})
	if err != nil {
		t.Fatal(err)
	}
	want := oracle.Trace{Component: oracle.Throttle,
		Config: oracle.Config{Throttle: &oracle.ThrottleConfig{Threshold: oracle.U(1), WindowSecs: oracle.U(1), BanSecs: oracle.U(1)}},
		Ops:    []oracle.Op{{Kind: oracle.CheckAny, Keys: []oracle.Bytes{"", "a"}, Now: oracle.U(0)}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Shrink = %#v %#v, want %#v %#v", got.Config, got.Ops, want.Config, want.Ops)
	}
	if !reflect.DeepEqual(orig.Ops[1].Keys, keys) || num(orig.Config.Throttle.Threshold) != 5 {
		t.Error("Shrink changed the trace it was given")
	}
}

// Times shift toward 0 together: admits 10 ticks apart at huge times
// shrink to admits at 0 and 10.
func TestShrinkShiftsTimesTogether(t *testing.T) {
	admit := func(ip string, now int64) oracle.Op {
		return oracle.Op{Kind: oracle.Admit, IP: bytesPtr(ip), Now: oracle.I(now)}
	}
	orig := oracle.Trace{Component: oracle.Gate,
		Config: oracle.Config{Gate: &oracle.GateConfig{Cap: oracle.I(3), Refil: oracle.I(1), Ivl: oracle.I(10), Maxif: oracle.I(4), Sets: oracle.I(64), Ways: oracle.I(4), TickNanos: oracle.I(1e9), Seed: zeroSeed}},
		Ops:    []oracle.Op{admit("10.0.0.1", 1<<60), {Kind: oracle.Release}, admit("\xff\xfe", 1<<60+3), admit("::1", 1<<60+13), {Kind: oracle.InFlight}}}
	r, _ := newRecorder()
	p := holds(func(t oracle.Trace) bool {
		var nows []int64
		for _, op := range t.Ops {
			if op.Kind == oracle.Admit {
				nows = append(nows, num(op.Now))
			}
		}
		for i := 1; i < len(nows); i++ {
			if nows[i]-nows[i-1] == 10 {
				return true
			}
		}
		return false
	})
	got, _, err := search.Shrink(r, orig, p, search.ShrinkLimits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []oracle.Op{admit("", 0), admit("", 10)}
	if !reflect.DeepEqual(got.Ops, want) {
		t.Errorf("Shrink = %#v, want %#v", got.Ops, want)
	}
}

// A past deadline stops shrinking after the re-run of the original.
func TestShrinkStopsAtItsDeadline(t *testing.T) {
	r, _ := newRecorder()
	orig := longLimTrace()
	got, runs, err := search.Shrink(r, orig, holds(func(oracle.Trace) bool { return true }), search.ShrinkLimits{Deadline: time.Now().Add(-time.Second)})
	if err != nil || runs != 1 || !reflect.DeepEqual(got, orig) {
		t.Errorf("Shrink past its deadline = %d ops, %d runs, %v; want the original after 1 run", len(got.Ops), runs, err)
	}
}

// A run bound stops shrinking after exactly that many runs of the port,
// whatever the machine's speed, and the trace returned is the smallest
// reached by then.
func TestShrinkStopsAfterItsRuns(t *testing.T) {
	orig := longLimTrace()
	_, all, err := search.Shrink(judge.SubjectRunner{S: oracle.Model{}}, orig, costAtLeast100, search.ShrinkLimits{})
	if err != nil || all < 4 {
		t.Fatalf("Shrink unbounded = %d runs, %v; want a search of at least 4 runs to cut short", all, err)
	}
	for _, n := range []int{1, 2, all / 2} {
		r, seen := newRecorder()
		got, runs, err := search.Shrink(r, orig, costAtLeast100, search.ShrinkLimits{Runs: n})
		if err != nil || runs != n || len(*seen) != n {
			t.Errorf("Shrink(Runs: %d) = %d runs (%d seen), %v; want exactly %d", n, runs, len(*seen), err, n)
		}
		if len(got.Ops) > len(orig.Ops) {
			t.Errorf("Shrink(Runs: %d) returned %d ops, more than the original %d", n, len(got.Ops), len(orig.Ops))
		}
	}
}

// A trace that does not fail again is not shrunk: ErrNotReproduced.
func TestShrinkReportsATraceThatDoesNotFailAgain(t *testing.T) {
	r, _ := newRecorder()
	_, runs, err := search.Shrink(r, longLimTrace(), holds(func(oracle.Trace) bool { return false }), search.ShrinkLimits{})
	if !errors.Is(err, search.ErrNotReproduced) || runs != 1 {
		t.Errorf("Shrink = %d runs, %v; want ErrNotReproduced after 1 run", runs, err)
	}
}

// breakAfter breaks on its nth call.
type breakAfter struct {
	judge.SubjectRunner
	n, calls *int
}

func (b breakAfter) RunTraces(ts []oracle.Trace, each func(int, judge.TraceRun)) error {
	if *b.calls++; *b.calls >= *b.n {
		return &judge.BrokenError{What: "exited with status 2", Trace: 0, Op: -2}
	}
	return b.SubjectRunner.RunTraces(ts, each)
}

// A runner that breaks while shrinking ends it with its *BrokenError and
// the smallest failing trace reached.
func TestShrinkReturnsABrokenRunnersError(t *testing.T) {
	n, calls := 5, 0
	r := breakAfter{judge.SubjectRunner{S: oracle.Model{}}, &n, &calls}
	orig := longLimTrace()
	got, runs, err := search.Shrink(r, orig, costAtLeast100, search.ShrinkLimits{})
	var be *judge.BrokenError
	if !errors.As(err, &be) || runs != 5 {
		t.Fatalf("Shrink = %d runs, %v; want the *BrokenError at run 5", runs, err)
	}
	if len(got.Ops) >= len(orig.Ops) {
		t.Errorf("Shrink returned %d ops, want fewer than the original's %d", len(got.Ops), len(orig.Ops))
	}
}

// gateTrace is a gate trace on config cap 10, refil 1, ivl 10, 4 ways, tick
// 1 with maxif and sets, of admits of "a" at 0.
func gateTrace(maxif, sets int64, admits int) oracle.Trace {
	t := oracle.Trace{Component: oracle.Gate,
		Config: oracle.Config{Gate: &oracle.GateConfig{Cap: oracle.I(10), Refil: oracle.I(1), Ivl: oracle.I(10), Maxif: oracle.I(maxif), Sets: oracle.I(sets), Ways: oracle.I(4), TickNanos: oracle.I(1), Seed: zeroSeed}}}
	for range admits {
		t.Ops = append(t.Ops, oracle.Op{Kind: oracle.Admit, IP: bytesPtr("a"), Now: oracle.I(0)})
	}
	return t
}

// A config field whose failing values are not an interval still shrinks
// to its least failing value: a property of sets mod 2^32 = 1 (a count
// kept in 32 bits that wraps to one set) holds at 2^53 + 1 and at 2^32 + 1,
// not at 2^53 (one less) nor at any value between 2 and 2^32; it shrinks
// to 2^32 + 1.
func TestShrinkConfigReachesTheLeastFailingWidthEdge(t *testing.T) {
	r, _ := newRecorder()
	p := holds(func(t oracle.Trace) bool {
		s := uint64(num(t.Config.Gate.Sets))
		return s > 1 && s%(1<<32) == 1
	})
	got, runs, err := search.Shrink(r, gateTrace(1, 1<<53+1, 1), p, search.ShrinkLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if s := num(got.Config.Gate.Sets); s != 1<<32+1 {
		t.Errorf("Shrink: sets %d, want 2^32 + 1 = %d", s, int64(1<<32+1))
	}
	t.Logf("%d runs", runs)
}

// A config field and the ops it needs shrink together: "exactly one admit
// is shed, the last" holds for maxif 3 after three passes; maxif 2 alone
// sheds two, so only a smaller maxif with an admit fewer keeps the property.
// It shrinks to maxif 1: one pass, then the shed.
func TestShrinkConfigTogetherWithTheOpsItNeeds(t *testing.T) {
	r, _ := newRecorder()
	p := holds(func(t oracle.Trace) bool {
		out, err := oracle.Run(oracle.Model{}, t)
		if err != nil || out.Open != "" || len(out.Results) == 0 {
			return false
		}
		sheds := 0
		for _, res := range out.Results {
			if res.Verdict == oracle.VerdictShed {
				sheds++
			}
		}
		return sheds == 1 && out.Results[len(out.Results)-1].Verdict == oracle.VerdictShed
	})
	got, _, err := search.Shrink(r, gateTrace(3, 1, 4), p, search.ShrinkLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if m := num(got.Config.Gate.Maxif); m != 1 || len(got.Ops) != 2 {
		t.Errorf("Shrink: maxif %d and %d ops, want maxif 1 and 2 ops (a pass, the shed)", m, len(got.Ops))
	}
}

// A byte string that occurs in several ops shrinks in all of them at once,
// and a long key list to the elements that matter: a ban of a long key
// that a check_any of 70 keys finds, the key last, shrinks to the key ""
// and a check_any of that key alone.
func TestShrinkRenamesAKeyEverywhereAndCutsLongLists(t *testing.T) {
	long := oracle.Bytes(strings.Repeat("p", 900) + "1")
	keys := make([]oracle.Bytes, 70)
	for i := range keys {
		keys[i] = oracle.Bytes(fmt.Sprintf("f%d", i))
	}
	keys[69] = long
	orig := oracle.Trace{Component: oracle.Throttle,
		Config: oracle.Config{Throttle: &oracle.ThrottleConfig{Threshold: oracle.U(1), WindowSecs: oracle.U(100), BanSecs: oracle.U(100)}},
		Ops: []oracle.Op{
			{Kind: oracle.RecordFailure, Key: &long, Now: oracle.U(0)},
			{Kind: oracle.CheckAny, Keys: keys, Now: oracle.U(0)},
		}}
	r, _ := newRecorder()
	p := holds(func(t oracle.Trace) bool {
		out, err := oracle.Run(oracle.Model{}, t)
		return err == nil && len(out.Results) == 2 && out.Results[1].Verdict == oracle.VerdictBanned
	})
	got, runs, err := search.Shrink(r, orig, p, search.ShrinkLimits{Runs: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Ops) != 2 || *got.Ops[0].Key != "" || !reflect.DeepEqual(got.Ops[1].Keys, []oracle.Bytes{""}) {
		t.Errorf("Shrink = %#v, want a failure of \"\" and a check_any of [\"\"]", got.Ops)
	}
	t.Logf("%d runs", runs)
}

// zeroSeed is the zero gate seed's text (GATE-18).
const zeroSeed = "00000000000000000000000000000000"

// A gate's seed shrinks to the zero seed when the failure does not need
// another (GATE-18), and stays when it does.
func TestShrinkTriesTheZeroSeed(t *testing.T) {
	const other = "000102030405060708090a0b0c0d0e0f"
	orig := oracle.Trace{Component: oracle.Gate,
		Config: oracle.Config{Gate: &oracle.GateConfig{Cap: oracle.I(1), Refil: oracle.I(1), Ivl: oracle.I(1), Maxif: oracle.I(1), Sets: oracle.I(1), Ways: oracle.I(1), TickNanos: oracle.I(1), Seed: other}},
		Ops:    []oracle.Op{{Kind: oracle.InFlight}}}
	for _, tt := range []struct {
		needs  bool
		want   string
		reason string
	}{
		{false, zeroSeed, "the failure holds under any seed: the zero seed is simpler"},
		{true, other, "the failure needs its seed: it stays"},
	} {
		r, _ := newRecorder()
		p := holds(func(t oracle.Trace) bool { return !tt.needs || t.Config.Gate.Seed == other })
		got, _, err := search.Shrink(r, orig, p, search.ShrinkLimits{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Config.Gate.Seed != tt.want {
			t.Errorf("Shrink's seed = %s, want %s (%s)", got.Config.Gate.Seed, tt.want, tt.reason)
		}
	}
}

// storedVictimDiffers holds for a gate trace with an eviction whose victim
// (GATE-16: the way whose bucket refilled at now holds the most tokens)
// is not the way whose stored bucket holds the most: the port mutant
// evict_stored_tks diverges there.
var storedVictimDiffers = holds(func(t oracle.Trace) bool {
	cap, refil, ivl, maxif, sets, ways, tick, err := t.Config.GateConfig()
	seed, _ := t.Config.GateSeed()
	if err != nil {
		return false
	}
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(cap, refil, ivl, maxif), Sets: sets, Ways: ways, TickNanos: tick, Seed: seed})
	if err != nil {
		return false
	}
	placed := map[[2]int64]string{} // set and way -> the ip placed there last
	for _, op := range t.Ops {
		a, err := op.Gate()
		if err != nil || op.Kind != oracle.Admit {
			continue // a release or a read moves no key
		}
		set := g.SetOf(a.IP)
		stored, most, held := int64(0), int64(-1), map[int64]bool{}
		for w := int64(0); w < ways; w++ {
			ip, ok := placed[[2]int64{set, w}]
			b, notFull := g.Bucket(ip, a.Now)
			if _, way, in := g.WayOf(ip); !ok || !in || way != w || !notFull {
				break // an empty or full way: no eviction
			}
			held[w] = true
			if b.Tks > most {
				stored, most = w, b.Tks
			}
		}
		d := g.Admit(a.IP, a.Now)
		if held[d.Way] && placed[[2]int64{set, d.Way}] != a.IP && d.Way != stored {
			return true
		}
		if d.Way != gate.NoWay {
			placed[[2]int64{set, d.Way}] = a.IP
		}
	}
	return false
})

// An op that only keeps the others in the order that matters shrinks away
// with the reorder it needs. The eviction that evict_stored_tks gets wrong
// needs way 0 taken twice and way 1 once, way 0 refilled as full as way 1:
// "" a : : "" (cap 2, ivl 1, ":" at -1, the rest at 0) fills way 0 with ""
// until ":" evicts it, so that ":" is in way 0 when "" comes back; it loses
// no op to a deletion alone, and deleting the first "" while moving a
// after the two ":" gives 4 ops.
func TestShrinkDeletesAnOpAndMovesAnotherTogether(t *testing.T) {
	orig := oracle.Trace{Component: oracle.Gate,
		Config: oracle.Config{Gate: &oracle.GateConfig{Cap: oracle.I(2), Refil: oracle.I(1), Ivl: oracle.I(1), Maxif: oracle.I(5), Sets: oracle.I(1), Ways: oracle.I(2), TickNanos: oracle.I(1), Seed: zeroSeed}}}
	for _, a := range []struct {
		ip  string
		now int64
	}{{"", 0}, {"a", 0}, {":", -1}, {":", -1}, {"", 0}} {
		orig.Ops = append(orig.Ops, oracle.Op{Kind: oracle.Admit, IP: bytesPtr(a.ip), Now: oracle.I(a.now)})
	}
	if !storedVictimDiffers(orig, judge.TraceRun{}) {
		t.Fatal("the 5 ops do not evict by refilled tokens otherwise than by stored ones")
	}
	r, _ := newRecorder()
	got, runs, err := search.Shrink(r, orig, storedVictimDiffers, search.ShrinkLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Ops) != 4 {
		j, _ := json.Marshal(got)
		t.Errorf("Shrink = %d ops, want 4: %s", len(got.Ops), j)
	}
	t.Logf("%d runs", runs)
}

// TestShrinkShortensAWindowWithTheTimesPastIt: a trace that fails because
// a purge comes 0 or 1 s after a window of 2^64-9 s ends shrinks to a
// window of 2 and a purge at 2 within a few hundred runs, though neither
// the window nor the purge's time shrinks alone by more than 1 s a round.
func TestShrinkShortensAWindowWithTheTimesPastIt(t *testing.T) {
	const window = math.MaxUint64 - 8
	fail := func(now uint64) oracle.Op {
		return oracle.Op{Kind: oracle.RecordFailure, Key: bytesPtr("k"), Now: oracle.U(now)}
	}
	orig := oracle.Trace{Component: oracle.Throttle,
		Config: oracle.Config{Throttle: &oracle.ThrottleConfig{Threshold: oracle.U(1), WindowSecs: oracle.U(window), BanSecs: oracle.U(1)}},
		Ops:    []oracle.Op{fail(2), fail(0), {Kind: oracle.PurgeExpired, Now: oracle.U(window)}}}
	r, _ := newRecorder()
	p := holds(func(t oracle.Trace) bool {
		w, _ := t.Config.Throttle.WindowSecs.Uint64()
		for _, op := range t.Ops {
			if now, _ := op.Now.Uint64(); op.Kind == oracle.PurgeExpired && w >= 2 && now >= w && now-w < 2 {
				return true
			}
		}
		return false
	})
	got, runs, err := search.Shrink(r, orig, p, search.ShrinkLimits{Runs: 500})
	if err != nil {
		t.Fatal(err)
	}
	want := oracle.Trace{Component: oracle.Throttle,
		Config: oracle.Config{Throttle: &oracle.ThrottleConfig{Threshold: oracle.U(1), WindowSecs: oracle.U(2), BanSecs: oracle.U(1)}},
		Ops:    []oracle.Op{{Kind: oracle.PurgeExpired, Now: oracle.U(2)}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Shrink after %d runs = %+v, want %+v", runs, got, want)
	}
}

// A twin run (at least 32 admits in a row at one time, each of its own key,
// in a way no op used before) is judged as one: a trace of 100 such admits
// and a bucket read of the last key, under "the read finds a key placed
// while 99 ways held keys" (where a table that keeps at most 99 keys
// differs), keeps all of them, in about 130 runs (most of them the
// config's), where ddmin's chunks down to single ops and a shrink of each
// address took over 8,000. An op ahead of the run is still deleted.
func TestShrinkJudgesATwinRunAsOne(t *testing.T) {
	const keys = 100
	tr := oracle.Trace{Component: oracle.Gate,
		Config: oracle.Config{Gate: &oracle.GateConfig{Cap: oracle.I(1), Refil: oracle.I(1), Ivl: oracle.I(1 << 20), Maxif: oracle.I(keys),
			Sets: oracle.I(1), Ways: oracle.I(2 * keys), TickNanos: oracle.I(1), Seed: zeroSeed}},
		Ops: []oracle.Op{{Kind: oracle.InFlight}}}
	for i := range keys {
		tr.Ops = append(tr.Ops, oracle.Op{Kind: oracle.Admit, IP: bytesPtr(fmt.Sprintf("10.0.%d.%d", i/256, i%256)), Now: oracle.I(5)})
	}
	last := tr.Ops[len(tr.Ops)-1].IP
	tr.Ops = append(tr.Ops, oracle.Op{Kind: oracle.Bucket, IP: last, Now: oracle.I(5)})
	// p: the read finds a key that was placed in a way while keys-1 other
	// ways held keys (where an arena of keys-1 would have dropped it)
	p := func(t oracle.Trace, run judge.TraceRun) bool {
		res := run.Outcome.Results
		if len(res) != len(t.Ops) || t.Ops[len(t.Ops)-1].Kind != oracle.Bucket || !*res[len(res)-1].Touched {
			return false
		}
		held, past := map[string]bool{}, map[string]bool{}
		for i, op := range t.Ops {
			if op.Kind == oracle.Admit && !res[i].Way.IsZero() {
				w := res[i].Set.String() + " " + res[i].Way.String()
				if !held[w] && len(held) >= keys-1 {
					past[string(*op.IP)] = true
				}
				held[w] = true
			}
		}
		return past[string(*t.Ops[len(t.Ops)-1].IP)]
	}
	r, _ := newRecorder()
	got, runs, err := search.Shrink(r, tr, p, search.ShrinkLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Ops) != keys+1 || got.Ops[0].Kind != oracle.Admit {
		t.Errorf("Shrink: %d ops, the first a %s, want %d: the %d admits and the read", len(got.Ops), got.Ops[0].Kind, keys+1, keys)
	}
	if runs > 200 {
		t.Errorf("Shrink took %d runs, want at most 200: the twin run judged as one", runs)
	}
	t.Logf("%d runs", runs)
}
