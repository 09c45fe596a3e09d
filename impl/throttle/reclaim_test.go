package throttle_test

import (
	"errors"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/limcheck/limcheck/impl/throttle"
)

// TestCapacityReclaims covers a full MemStore reclaiming (MaxKeys 2, k 3):
// AddFailure of a new key on a store full of keys that purge_expired(now)
// would drop succeeds; a live stamp (t + window > now) or a ban in force
// keeps its key; Ban, which has no now, does not reclaim.
func TestCapacityReclaims(t *testing.T) {
	runStoreRowsK(t, 3, 2, []srow{
		{"STORE-9", "two expired keys are reclaimed for a third", []sstep{
			sAddFailure("a", t0, 10, 1), sAddFailure("b", t0, 10, 1),
			sAddFailure("c", t10, 10, 1), sTracked(1), sCount("a", t10, 10, 0), sBanUntil("b", 0)},
		},
		{"THR-4", "a stamp at t0 is live at t9 (t0 + 10 > t9) and gone at t10", []sstep{
			sAddFailure("a", t0, 10, 1), sAddFailure("b", t1, 10, 1),
			full(sAddFailure("c", t9, 10, 0)), sTracked(2),
			sAddFailure("c", t10, 10, 1), sTracked(2), sCount("b", t10, 10, 1), sCount("a", t10, 10, 0)},
		},
		{"THR-5", "a ban in force keeps its key; one that ended (until <= now) is reclaimed", []sstep{
			sBan("a", t20, t20), sAddFailure("b", t0, 10, 1),
			sAddFailure("c", t10, 10, 1), sBanUntil("a", t20), sTracked(2),
			full(sAddFailure("d", t11, 10, 0)), sAddFailure("d", t20, 10, 1), sBanUntil("a", 0), sTracked(1)},
		},
		{"STORE-5", "Ban of a new key does not reclaim (it has no now)", []sstep{
			sAddFailure("a", t0, 10, 1), sAddFailure("b", t0, 10, 1),
			full(sBan("c", maxU, 0)), sTracked(2)},
		},
		{"PROP-14", "a store reclaimed at t10 answers like one purged at t10", []sstep{
			sAddFailure("a", t0, 10, 1), sAddFailure("a", t5, 10, 2), sAddFailure("b", t0, 10, 1),
			sAddFailure("c", t10, 10, 1), sCount("a", t10, 10, 1), sCount("a", t0, 10, 1), sTracked(2)},
		},
	})
}

// TestCapacityReclaimThrottle checks a throttle on a full store of expired
// keys: the record of a new key succeeds, bans at the threshold, and
// Reclaimed counts the reclaimed keys; a later PurgeExpired does not count
// them again.
func TestCapacityReclaimThrottle(t *testing.T) {
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 2, MaxKeys: 2})
	if err != nil {
		t.Fatal(err)
	}
	th, err := throttle.New(mem, cfg(2, 10, 50))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"a", "b"} {
		if _, err := th.RecordFailure(key, t0); err != nil {
			t.Fatal(err)
		}
	}
	if d, err := th.RecordFailure("c", t10); err != nil || d != allow(1) {
		t.Fatalf("RecordFailure(c, t10) on a full store of expired keys = %+v, %v; want Allow 1, nil", d, err)
	}
	if d, err := th.RecordFailure("c", t11); err != nil || d != banned(t11+50) {
		t.Fatalf("RecordFailure(c, t11) = %+v, %v; want the ban", d, err)
	}
	if mem.Reclaimed() != 2 || mem.Tracked() != 1 {
		t.Errorf("Reclaimed() = %d, Tracked() = %d; want 2, 1", mem.Reclaimed(), mem.Tracked())
	}
	if n, err := th.PurgeExpired(t11 + 50); n != 1 || err != nil {
		t.Errorf("PurgeExpired = %d, %v; want 1 (c only), nil", n, err)
	}
}

// TestPropReclaimChangesNoDecision runs random sequences with time that never
// steps back on a throttle over a tiny MemStore (MaxKeys 1..3) and one over
// a store that never fills: every result is the same, but for an ErrFull of
// the tiny one, which must be honest: that op has no effect (it is then
// skipped on the large one too), the key was not live, and MaxKeys keys were
// live at now (decided by the large store: banned, or a failure in the
// window). So reclaiming never changes a decision at now or later (spec
// PROP-14), and a store refuses a key only when it is full of live ones.
func TestPropReclaimChangesNoDecision(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genConfig(t)
		c.WindowSecs = rapid.Uint64Range(1, 20).Draw(t, "window") // expiry must happen
		maxKeys := rapid.IntRange(1, 3).Draw(t, "max_keys")
		tiny, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: c.Threshold, MaxKeys: maxKeys, Shards: 2})
		if err != nil {
			t.Fatal(err)
		}
		small, big := mustThrottle(t, tiny, c), mustThrottle(t, mustMem(c.Threshold), c)
		now := uint64(1000)
		for i := range rapid.IntRange(1, 60).Draw(t, "ops") {
			s := genStep(t, false)
			if s.op == opPurgeExpired {
				continue // its count differs by what a sweep already reclaimed
			}
			now += rapid.Uint64Range(0, 6).Draw(t, "dt")
			s.at = now
			compareReclaimStep(t, i, s, small, big, maxKeys)
			if tiny.Tracked() > maxKeys {
				t.Fatalf("step %d: Tracked() = %d > MaxKeys %d", i, tiny.Tracked(), maxKeys)
			}
		}
	})
}

// compareReclaimStep runs s on both throttles (on big only when small did
// not refuse it as full) and compares.
func compareReclaimStep(t *rapid.T, i int, s step, small, big *throttle.Throttle, maxKeys int) {
	gotS, _, errS := s.run(small, nil)
	if errors.Is(errS, throttle.ErrFull) {
		if live := liveKeys(big, s.at); live < maxKeys || isLive(big, s.key, s.at) {
			t.Fatalf("step %d: %s refused as full with %d live keys of %d (key live: %v)", i, s.call(), live, maxKeys, isLive(big, s.key, s.at))
		}
		return
	}
	gotB, _, errB := s.run(big, nil)
	if gotS != gotB || (errS == nil) != (errB == nil) {
		t.Fatalf("step %d: %s = %+v, %v on the tiny store; %+v, %v on the large one", i, s.call(), gotS, errS, gotB, errB)
	}
}

// liveKeys counts the pool's keys live at now: banned, or with a failure in
// the window.
func liveKeys(th *throttle.Throttle, now uint64) int {
	n := 0
	for _, key := range propKeys {
		if isLive(th, key, now) {
			n++
		}
	}
	return n
}

// isLive reports whether key is banned at now or has a failure in the
// window, i.e. purge_expired(now) would keep it.
func isLive(th *throttle.Throttle, key string, now uint64) bool {
	return th.Check(key, now) != allow(th.Config().Threshold)
}

// mustThrottle is throttle.New, failing t on error.
func mustThrottle(t *rapid.T, store throttle.Store, c throttle.Config) *throttle.Throttle {
	th, err := throttle.New(store, c)
	if err != nil {
		t.Fatal(fmt.Errorf("New(%+v): %w", c, err))
	}
	return th
}
