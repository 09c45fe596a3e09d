package gate

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/limcheck/limcheck/impl/lim"
)

// wayStep is one admit of a way table: the way the key must land in, its
// bucket after (absent: want is the zero bucket and ok false) and which keys
// must have left the set.
type wayStep struct {
	ip      string
	now     int64
	verdict Verdict
	way     int64
	bucket  lim.Bucket
	gone    string // a key that no way holds after the step, or ""
	reason  string
}

// TestWayPlacement walks one set of two ways (cap 3, refil 1, ivl 10)
// through every placement rule on both sides of each boundary: a full
// bucket born again at now (GATE-15), a full way reused before a lower empty
// one would be, one tick before full (kept), eviction of the fullest way with
// ties to the lowest (GATE-16), and a drained key never evicted while a
// fuller one can be.
func TestWayPlacement(t *testing.T) {
	g := mustNew(t, 3, 1, 10, 100, 1, 2, 1)
	steps := []wayStep{
		{"a", 0, Pass, 0, lim.Bucket{Tks: 2}, "", "born full in the lowest empty way"},
		{"a", 35, Pass, 0, lim.Bucket{Tks: 2, Last: 35}, "", "full at 35: born again at now (last 35), not refilled to last 30"},
		{"b", 45, Pass, 0, lim.Bucket{Tks: 2, Last: 45}, "a", "a is full at 45 (one step): way 0 behaves as empty and is the lowest, before the empty way 1"},
		{"c", 54, Pass, 1, lim.Bucket{Tks: 2, Last: 54}, "", "one tick before b is full: b keeps way 0, c takes the empty way 1"},
		{"d", 54, Pass, 0, lim.Bucket{Tks: 2, Last: 54}, "b", "b and c hold 2 tokens each: the tie evicts the lowest way"},
		{"c", 55, Pass, 1, lim.Bucket{Tks: 1, Last: 54}, "", "c spends"},
		{"c", 56, Pass, 1, lim.Bucket{Last: 54}, "", "c spends its last token"},
		{"c", 57, Limited, 1, lim.Bucket{Last: 54}, "", "c is drained"},
		{"e", 57, Pass, 0, lim.Bucket{Tks: 2, Last: 57}, "d", "d holds 2 tokens, drained c none: the fullest is evicted, never the drained key"},
		{"d", 58, Pass, 0, lim.Bucket{Tks: 2, Last: 58}, "e", "d returns born full, no fewer tokens than it had; c is still the emptiest"},
		{"c", 58, Limited, 1, lim.Bucket{Last: 54}, "", "no other key's requests moved c's bucket"},
	}
	runWaySteps(t, g, steps)
}

func runWaySteps(t *testing.T, g *Gate, steps []wayStep) {
	t.Helper()
	for i, s := range steps {
		if s.reason == "" {
			t.Fatalf("step %d has no reason", i)
		}
		d := g.Admit(s.ip, s.now)
		if d.Verdict == Pass {
			g.Release(d)
		}
		want := at(g, s.ip, s.way).is(s.verdict, d.Retry, d.RetryAfter)
		if got := public(d); got != want {
			t.Fatalf("step %d: Admit(%q, %d) = %+v, want %+v (%s)", i, s.ip, s.now, got, want, s.reason)
		}
		if b, ok := g.Bucket(s.ip, s.now); !ok || b != s.bucket {
			t.Fatalf("step %d: Bucket(%q, %d) = %+v, %v; want %+v, true (%s)", i, s.ip, s.now, b, ok, s.bucket, s.reason)
		}
		if s.gone == "" {
			continue
		}
		if _, w, ok := g.WayOf(s.gone); ok {
			t.Fatalf("step %d: WayOf(%q) = way %d, want none: its state is dropped (%s)", i, s.gone, w, s.reason)
		}
	}
}

// TestWideBuckets checks the fallback representation of a gate whose cap
// does not fit the packed tokens (cap > 2^31 - 1): the same placement and
// takes at cap MaxInt64, where tks' = cap is full and MaxInt64 - 1 is not.
func TestWideBuckets(t *testing.T) {
	g := mustNew(t, math.MaxInt64, 1, 1, 100, 1, 2, 1)
	if g.t.wide == nil {
		t.Fatal("a gate of cap MaxInt64 has no wide tokens")
	}
	steps := []wayStep{
		{"a", 0, Pass, 0, lim.Bucket{Tks: math.MaxInt64 - 1}, "", "born full: 2^63 - 2 left"},
		{"a", 0, Pass, 0, lim.Bucket{Tks: math.MaxInt64 - 2}, "", "no step"},
		{"b", 0, Pass, 1, lim.Bucket{Tks: math.MaxInt64 - 1}, "", "the empty way"},
		{"c", 0, Pass, 1, lim.Bucket{Tks: math.MaxInt64 - 1}, "b", "b holds one token more than a: the fullest is evicted"},
		{"a", 1, Pass, 0, lim.Bucket{Tks: math.MaxInt64 - 2, Last: 1}, "", "one step refills to cap - 1: not full, kept"},
		{"d", 2, Pass, 1, lim.Bucket{Tks: math.MaxInt64 - 1, Last: 2}, "c", "c refills to cap at 2 (two steps): full and reused; a, one token short of cap, is kept"},
	}
	runWaySteps(t, g, steps)
}

// TestConcurrentKeysOneWayEach admits ways-many new keys into one set from
// several goroutines at a frozen clock: each key must land in one way only,
// so each bucket ends exactly at cap minus its admissions.
func TestConcurrentKeysOneWayEach(t *testing.T) {
	const ways, workers, each, cap = 8, 8, 300, 1 << 20
	g := mustNew(t, cap, 1, 1<<40, 1<<40, 1, ways, 1)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if d := g.Admit(fmt.Sprint("k", (i+w)%ways), 7); d.Verdict == Pass {
					g.Release(d)
				}
			}
		}()
	}
	wg.Wait()
	seen := map[int64]string{}
	for k := range ways {
		ip := fmt.Sprint("k", k)
		_, w, ok := g.WayOf(ip)
		if other, dup := seen[w]; !ok || dup {
			t.Fatalf("WayOf(%q) = %d, %v; want a way of its own (way shared with %q)", ip, w, ok, other)
		}
		seen[w] = ip
	}
	var spent int64
	for k := range ways {
		b, _ := g.Bucket(fmt.Sprint("k", k), 7)
		spent += cap - b.Tks
	}
	if spent != workers*each {
		t.Errorf("%d admissions spent %d tokens over %d keys, want every one counted once", workers*each, spent, ways)
	}
}

// TestEvictionBudget walks spec FIND-16 and FIND-27 (lim_cfg(1, 1, 1000,
// 10), one set of one way, a millisecond tick): an eviction pays cap - tks'
// of its victim from the set's budget (spec GATE-16, GATE-19), and a
// refused one is limited with the budget's retry, no way and nothing
// written; a shed in a set whose budget is spent touches nothing either.
func TestEvictionBudget(t *testing.T) {
	g := mustNew(t, 1, 1, 1000, 3, 1, 1, 1_000_000)
	a, b := at(g, "a", 0), at(g, "b", 0)
	refused := Decision{Verdict: Limited, Slot: NoWay, Set: 0, Way: NoWay, Retry: 1000, RetryAfter: 1}
	steps := []step{
		{ip: "a", now: 0, want: a.is(Pass, 0, 0), inFlt: 1, reason: "born full in the empty way, one token"},
		{ip: "b", now: 0, want: b.is(Pass, 0, 0), inFlt: 2, reason: "FIND-16: evicts a at a cost of 1 - 0 = 1 from the born-full budget"},
		{ip: "a", now: 0, want: refused, inFlt: 2, reason: "FIND-16: the budget is spent: limited, no way, retry 1000, in-flight unchanged"},
		{ip: "b", now: 0, want: b.is(Limited, 1000, 1), inFlt: 2, reason: "FIND-16: b's own bucket limits it"},
		{ip: "c", now: 999, want: Decision{Verdict: Limited, Slot: NoWay, Way: NoWay, Retry: 1000, RetryAfter: 1}, inFlt: 2, reason: "FIND-27: a newcomer waits for the budget, though never seen; the retry is LIM-12's, of the take"},
	}
	runSteps(t, g, steps)
	if _, _, ok := g.WayOf("a"); ok {
		t.Errorf("WayOf(a) found a way after its eviction was refused, want none")
	}
	if _, w, ok := g.WayOf("b"); !ok || w != 0 {
		t.Errorf("WayOf(b) = %d, %v after refused evictions, want way 0: no way is written", w, ok)
	}
	// A pass fills the last place; then a newcomer is shed before the
	// budget is read (spec GATE-4), and after a release it is refused again
	// with the same retry: the shed wrote no budget.
	if d := g.Admit("d", 1000); d.Verdict != Pass {
		t.Fatalf("Admit(d, 1000) = %+v, want a pass: b is full at 1000, its way is reused", public(d))
	}
	if d := public(g.Admit("e", 1000)); d != shed(0) {
		t.Fatalf("Admit(e, 1000) = %+v, want %+v: three in flight", d, shed(0))
	}
	g.Release(Decision{})
	want := Decision{Verdict: Pass, Slot: 0, Set: 0, Way: 0}
	if d := public(g.Admit("e", 1000)); d != want {
		t.Fatalf("Admit(e, 1000) = %+v, want %+v: the budget, full at 1000, is born again and pays 1", d, want)
	}
	g.Release(Decision{})
	want = Decision{Verdict: Limited, Slot: NoWay, Set: 0, Way: NoWay, Retry: 1000, RetryAfter: 1}
	if d := public(g.Admit("f", 1000)); d != want {
		t.Fatalf("Admit(f, 1000) = %+v, want %+v: the budget is spent again", d, want)
	}
}
