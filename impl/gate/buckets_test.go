package gate

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/limcheck/limcheck/impl/lim"
	"pgregory.net/rapid"
)

// mustBuckets returns a Buckets table of limits l, failing t on error.
func mustBuckets(t testing.TB, l Limits, sets, ways int64) *Buckets {
	t.Helper()
	b, err := NewBuckets(BucketsConfig{Limits: l, Sets: sets, Ways: ways})
	if err != nil {
		t.Fatalf("NewBuckets: %v", err)
	}
	return b
}

// TestBucketsTakeIsLimTake checks, over random histories of one key in a
// table too large to evict it, that Take decides as lim_take of the key's
// bucket with the given cost (spec LIM-7..LIM-13), a bucket that is absent
// or full at now being born full at now (GATE-10, GATE-14), and a cost over
// cap an ordinary reject that writes nothing.
func TestBucketsTakeIsLimTake(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := Limits{Cap: rapid.Int64Range(1, 8).Draw(t, "cap"), Refil: rapid.Int64Range(1, 4).Draw(t, "refil"), Ivl: rapid.Int64Range(1, 5).Draw(t, "ivl")}
		tb, err := NewBuckets(BucketsConfig{Limits: l, Sets: 64, Ways: 8})
		if err != nil {
			t.Fatal(err)
		}
		c := lim.NewConfig(l.Cap, l.Refil, l.Ivl, 1)
		var model *lim.Bucket
		now := int64(rapid.Int64Range(-5, 5).Draw(t, "t0"))
		for i := range rapid.IntRange(1, 30).Draw(t, "steps") {
			now += rapid.Int64Range(-1, 6).Draw(t, fmt.Sprintf("dt%d", i))
			cost := rapid.Int64Range(1, l.Cap+2).Draw(t, fmt.Sprintf("cost%d", i))
			b := lim.NewBucket(l.Cap, now)
			if model != nil {
				if r := c.Take(*model, now, 1); !(r.OK == 1 && r.Tks == l.Cap-1) {
					b = *model // not full at now
				}
			}
			want := c.Take(b, now, cost)
			got := tb.Take([]byte("key"), now, cost)
			if got.OK != (want.OK == 1) || got.Retry != want.Retry || got.Bucket != want.Bucket() || got.Limits != l {
				t.Fatalf("step %d: Take(key, %d, %d) = %+v, want lim_take %+v of %+v", i, now, cost, got, want, b)
			}
			if cost <= l.Cap {
				nb := want.Bucket()
				model = &nb
			}
		}
	})
}

// TestBucketsKeysAreApart checks that two keys have buckets of their own.
func TestBucketsKeysAreApart(t *testing.T) {
	tb := mustBuckets(t, Limits{Cap: 2, Refil: 1, Ivl: 10}, 64, 8)
	for i, k := range []string{"a", "a", "b", "b"} {
		if got := tb.Take([]byte(k), 0, 1); !got.OK || got.Bucket.Tks != int64(1-i%2) {
			t.Fatalf("take %d of %s = %+v, want a pass leaving %d", i, k, got, 1-i%2)
		}
	}
	if got := tb.Take([]byte("a"), 0, 1); got.OK || got.Retry != 10 {
		t.Errorf("a third take of a at tick 0 = %+v, want a reject with retry 10", got)
	}
}

// TestBucketsEvictionIsPaidByTheBudget checks GATE-16 and GATE-19 in a
// table of one way: a newcomer evicts a key whose bucket is not full only
// when the set's budget pays for the tokens the victim lacks, and is
// otherwise refused with no way and the budget's retry.
func TestBucketsEvictionIsPaidByTheBudget(t *testing.T) {
	tb := mustBuckets(t, Limits{Cap: 2, Refil: 1, Ivl: 10}, 1, 1)
	steps := []struct {
		key    string
		ok, on bool // passes; holds a way after
		reason string
	}{
		{"a", true, true, "a is born in the empty way"},
		{"a", true, true, "a spends its second token"},
		{"b", true, true, "b evicts a (0 tokens): the budget pays 2 of its 2"},
		{"b", true, true, "b spends its second token"},
		{"c", false, false, "c would evict b: the budget is spent, c is refused a way"},
	}
	for i, s := range steps {
		got := tb.Take([]byte(s.key), 0, 1)
		if got.OK != s.ok || got.Way != s.on {
			t.Fatalf("step %d (%s): Take(%s) = %+v, want ok %v way %v", i, s.reason, s.key, got, s.ok, s.on)
		}
	}
	if got := tb.Take([]byte("c"), 0, 1); got.Retry != 20 || got.Bucket != (lim.Bucket{Last: 0}) {
		t.Errorf("refused Take(c) = %+v, want the budget's retry 20 (2 tokens at 1 per 10 ticks) and an empty bucket", got)
	}
}

// TestBucketsSetLimitsKeepsBuckets checks that a change of limits keeps a
// key's bucket, which then refills under the new limits, and that a cap
// below the tokens held counts as the new cap.
func TestBucketsSetLimitsKeepsBuckets(t *testing.T) {
	tb := mustBuckets(t, Limits{Cap: 5, Refil: 1, Ivl: 10}, 64, 8)
	for range 3 {
		tb.Take([]byte("k"), 0, 1)
	}
	if err := tb.SetLimits(Limits{Cap: 5, Refil: 2, Ivl: 4}); err != nil {
		t.Fatal(err)
	}
	if got := tb.Take([]byte("k"), 4, 1); !got.OK || got.Bucket != (lim.Bucket{Tks: 3, Last: 4}) {
		t.Errorf("Take(k, 4) after refil 2 per 4 ticks = %+v, want 2 + 2 - 1 = 3 tokens kept from before the change", got)
	}
	if err := tb.SetLimits(Limits{Cap: 1, Refil: 1, Ivl: 4}); err != nil {
		t.Fatal(err)
	}
	if got := tb.Take([]byte("k"), 4, 1); !got.OK || got.Bucket.Tks != 0 || got.Limits.Cap != 1 {
		t.Errorf("Take(k, 4) under cap 1 with 3 tokens stored = %+v, want a pass leaving 0 (3 count as 1)", got)
	}
	if got := tb.Limits(); got != (Limits{Cap: 1, Refil: 1, Ivl: 4}) {
		t.Errorf("Limits() = %+v, want the last set", got)
	}
}

// TestBucketsRejectsBadLimits checks that out-of-range limits and sizes are
// errors wrapping ErrBuckets, and that SetLimits refuses a cap a narrow
// table cannot hold, changing nothing.
func TestBucketsRejectsBadLimits(t *testing.T) {
	for _, c := range []BucketsConfig{
		{Limits: Limits{Cap: 0, Refil: 1, Ivl: 1}, Sets: 1, Ways: 1},
		{Limits: Limits{Cap: 1, Refil: 0, Ivl: 1}, Sets: 1, Ways: 1},
		{Limits: Limits{Cap: 1, Refil: 1, Ivl: 0}, Sets: 1, Ways: 1},
		{Limits: Limits{Cap: 1, Refil: 1, Ivl: 1}, Sets: 0, Ways: 1},
		{Limits: Limits{Cap: 1, Refil: 1, Ivl: 1}, Sets: MaxWays, Ways: 2},
	} {
		if _, err := NewBuckets(c); !errors.Is(err, ErrBuckets) {
			t.Errorf("NewBuckets(%+v) = %v, want ErrBuckets", c, err)
		}
	}
	tb := mustBuckets(t, Limits{Cap: 1, Refil: 1, Ivl: 1}, 1, 1)
	if err := tb.SetLimits(Limits{Cap: maxNarow + 1, Refil: 1, Ivl: 1}); !errors.Is(err, ErrBuckets) {
		t.Errorf("SetLimits(cap 2^31) on a narrow table = %v, want ErrBuckets", err)
	}
	if got := tb.Limits(); got.Cap != 1 {
		t.Errorf("Limits() after a refused change = %+v, want cap 1", got)
	}
}

// TestBucketsConcurrentSetLimits runs takes against changes of limits (for
// the race detector), and checks that each take reports limits that were
// set and tokens within their cap.
func TestBucketsConcurrentSetLimits(t *testing.T) {
	tb := mustBuckets(t, Limits{Cap: 4, Refil: 1, Ivl: 2}, 4, 2)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 500 {
				got := tb.Take([]byte{byte(w), byte(i % 7)}, int64(i), 1)
				if got.Limits.Cap != 4 && got.Limits.Cap != 8 || got.Bucket.Tks > got.Limits.Cap {
					t.Errorf("Take under changing limits = %+v", got)
					return
				}
			}
		})
	}
	for i := range 100 {
		if err := tb.SetLimits(Limits{Cap: 4 + 4*int64(i%2), Refil: 1, Ivl: 2}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
}

// TestLimitsFullInMoreIn checks, for random limits, buckets refilled to a
// random tick, that
// FullIn is the first wait after which lim_take's refill reaches cap, and
// MoreIn the first after which it adds a token (0 for a full bucket).
func TestLimitsFullInMoreIn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := Limits{Cap: rapid.Int64Range(1, 20).Draw(t, "cap"), Refil: rapid.Int64Range(1, 5).Draw(t, "refil"), Ivl: rapid.Int64Range(1, 7).Draw(t, "ivl")}
		c := lim.NewConfig(l.Cap, l.Refil, l.Ivl, 1)
		stored := lim.Bucket{Tks: rapid.Int64Range(0, l.Cap).Draw(t, "tks"), Last: rapid.Int64Range(-20, 20).Draw(t, "last")}
		now := rapid.Int64Range(-20, 40).Draw(t, "now")
		r := c.Take(stored, now, 1)
		b := lim.Bucket{Tks: r.Tks + r.OK, Last: r.Last} // refilled to now, as a Take returns it
		tks := func(at int64) int64 { r := c.Take(b, at, 1); return r.Tks + r.OK }
		if w := l.FullIn(b, now); tks(now+w) != l.Cap || (w > 0 && tks(now+w-1) == l.Cap) {
			t.Fatalf("FullIn(%+v, %d) = %d: tokens %d then, %d a tick before", b, now, w, tks(now+w), tks(now+w-1))
		}
		w := l.MoreIn(b, now)
		if tks(now) == l.Cap {
			if w != 0 {
				t.Fatalf("MoreIn of a full bucket = %d, want 0", w)
			}
			return
		}
		if w < 1 || tks(now+w) <= tks(now) || tks(now+w-1) != tks(now) {
			t.Fatalf("MoreIn(%+v, %d) = %d: tokens %d now, %d then, %d a tick before", b, now, w, tks(now), tks(now+w), tks(now+w-1))
		}
	})
}
