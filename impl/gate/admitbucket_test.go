package gate

import (
	"fmt"
	"testing"

	"github.com/limcheck/limcheck/impl/lim"

	"pgregory.net/rapid"
)

// TestAdmitBucketBytesIsAdmitBytes checks, over random histories on two
// gates of one seed (few sets and ways, so that keys evict each other and
// budgets refuse), that AdmitBucketBytes decides as AdmitBytes, and that the
// bucket it returns is the one the key's way holds after the decision.
func TestAdmitBucketBytesIsAdmitBytes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cap := rapid.Int64Range(1, 5).Draw(t, "cap")
		refil := rapid.Int64Range(1, 3).Draw(t, "refil")
		ivl := rapid.Int64Range(1, 4).Draw(t, "ivl")
		maxif := rapid.Int64Range(1, 4).Draw(t, "maxif")
		cfg := Config{Lim: lim.NewConfig(cap, refil, ivl, maxif), Sets: 2, Ways: 2, TickNanos: 1, Seed: &zeroSeed}
		ga, errA := New(cfg)
		gb, errB := New(cfg)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		var held []Decision
		now := int64(0)
		for i := range rapid.IntRange(1, 40).Draw(t, "steps") {
			now += rapid.Int64Range(-1, 3).Draw(t, fmt.Sprintf("dt%d", i)) // a step back too (FIND-13)
			if len(held) > 0 && rapid.Bool().Draw(t, fmt.Sprintf("release%d", i)) {
				ga.Release(held[0])
				gb.Release(held[0])
				held = held[1:]
				continue
			}
			ip := []byte{'k', byte('0' + rapid.IntRange(0, 5).Draw(t, fmt.Sprintf("key%d", i)))}
			a := ga.AdmitBytes(ip, now)
			b, bk := gb.AdmitBucketBytes(ip, now)
			if public(a) != public(b) {
				t.Fatalf("step %d: AdmitBucketBytes(%s, %d) = %+v, AdmitBytes = %+v", i, ip, now, public(b), public(a))
			}
			if b.Verdict == Pass {
				held = append(held, b)
			}
			if b.Way == NoWay {
				continue
			}
			stored, ok := gb.BucketBytes(ip, now)
			if !ok || stored != bk {
				t.Fatalf("step %d: AdmitBucketBytes(%s, %d) returned bucket %+v, the way holds %+v (%v)", i, ip, now, bk, stored, ok)
			}
		}
	})
}

// TestAdmitInFlightTakesOnlyAPlace checks that AdmitInFlight passes while a
// place is free, sheds when maxif are in flight, frees with Release, and
// reads or writes no bucket.
func TestAdmitInFlightTakesOnlyAPlace(t *testing.T) {
	g := mustNew(t, 1, 1, 10, 2, 4, 2, 1)
	d1, d2 := g.AdmitInFlight(), g.AdmitInFlight()
	if d1.Verdict != Pass || d2.Verdict != Pass || d1.Way != NoWay {
		t.Fatalf("AdmitInFlight twice with maxif 2 = %+v, %+v; want two passes naming no way", d1, d2)
	}
	if d := g.AdmitInFlight(); d.Verdict != Shed || d.RetryAfter != 1 {
		t.Fatalf("AdmitInFlight with 2 of 2 in flight = %+v, want a shed with Retry-After 1", d)
	}
	g.Release(d1)
	if d := g.AdmitInFlight(); d.Verdict != Pass {
		t.Fatalf("AdmitInFlight after a Release = %+v, want a pass", d)
	}
	if n := g.InFlight(); n != 2 {
		t.Errorf("InFlight = %d, want 2", n)
	}
	if d := g.Admit("a", 0); d.Verdict != Shed {
		t.Errorf("Admit with every place taken by AdmitInFlight = %+v, want a shed", d)
	}
}
