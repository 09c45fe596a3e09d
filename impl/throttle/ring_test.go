package throttle_test

import (
	"testing"

	"github.com/limcheck/limcheck/impl/throttle"
)

// TestRing covers the k-largest stamps of a MemStore with k = 3: every count
// is min(exact count, 3), and a key is untracked by purge exactly when the
// exact store would untrack it (spec PROP-17).
func TestRing(t *testing.T) {
	runStoreRowsK(t, 3, 0, []srow{
		{"PROP-17", "more than k failures: the count stays at k, exact again once it drops below k", []sstep{
			sAddFailure("a", t0, 10, 1), sAddFailure("a", t1, 10, 2), sAddFailure("a", t2, 10, 3),
			sAddFailure("a", t3, 10, 3), sAddFailure("a", t4, 10, 3), sCount("a", t10, 10, 3),
			sCount("a", t11, 10, 3), sCount("a", sec(t0+12), 10, 2), sCount("a", sec(t0+13), 10, 1),
			sCount("a", sec(t0+14), 10, 0),
		}},
		{"PROP-17", "stamps out of arrival order are kept by value: the 3 largest", []sstep{
			sAddFailure("a", t4, 10, 1), sAddFailure("a", t0, 10, 2), sAddFailure("a", t2, 10, 3),
			sAddFailure("a", t1, 10, 3), sAddFailure("a", t3, 10, 3),
			sCount("a", t11, 10, 3), sCount("a", sec(t0+12), 10, 2), sCount("a", sec(t0+13), 10, 1),
		}},
		{"PROP-17", "equal stamps are a multiset: three t5 fill the ring, a fourth changes nothing", []sstep{
			sAddFailure("a", t5, 10, 1), sAddFailure("a", t5, 10, 2), sAddFailure("a", t5, 10, 3),
			sAddFailure("a", t5, 10, 3), sCount("a", sec(t5+9), 10, 3), sCount("a", sec(t5+10), 10, 0),
		}},
		{"PROP-17", "a stamp equal to the smallest kept one is dropped, a larger one replaces it", []sstep{
			sAddFailure("a", t5, 10, 1), sAddFailure("a", t5, 10, 2), sAddFailure("a", t3, 10, 3),
			sAddFailure("a", t3, 10, 3), sCount("a", sec(t3+10), 10, 2), sAddFailure("a", t4, 10, 3),
			sCount("a", sec(t3+10), 10, 3), sCount("a", sec(t4+10), 10, 2), sCount("a", sec(t5+10), 10, 0),
		}},
		{"PROP-17", "clock step back: an older stamp below a full ring is dropped, the count is still k", []sstep{
			sAddFailure("a", t10, 5, 1), sAddFailure("a", t11, 5, 2), sAddFailure("a", t20, 5, 1),
			sAddFailure("a", t0, 5, 3), sCount("a", t0, 5, 3), sCount("a", t11, 5, 3), sCount("a", sec(t10+5), 5, 2), sCount("a", sec(t11+5), 5, 1),
		}},
		{"PROP-17", "clock step back below a partial ring keeps the older stamp", []sstep{
			sAddFailure("a", t10, 5, 1), sAddFailure("a", t0, 5, 2), sCount("a", t4, 5, 2), sCount("a", t5, 5, 1),
		}},
		{"STORE-3", "window boundary on a full ring: t+window-1 counts, t+window does not", []sstep{
			sAddFailure("a", t0, 5, 1), sAddFailure("a", t0, 5, 2), sAddFailure("a", t1, 5, 3),
			sCount("a", t4, 5, 3), sCount("a", t5, 5, 1), sCount("a", t6, 5, 0),
		}},
		{"STORE-3", "MaxUint64 edges: stamps at max count at max with window 1; stamp 0 with window max not at max", []sstep{
			sAddFailure("a", maxMinus(0), 1, 1), sAddFailure("a", maxMinus(0), 1, 2), sAddFailure("a", sec(0), maxU, 3),
			sAddFailure("a", maxMinus(0), 1, 3), sCount("a", maxMinus(0), maxU, 3), sCount("a", sec(0), 1, 3),
			sAddFailure("b", sec(0), maxU, 1), sCount("b", maxMinus(1), maxU, 1), sCount("b", maxMinus(0), maxU, 0),
		}},
		{"STORE-9", "purge on a full ring keeps the stamps in the window and the key", []sstep{
			sAddFailure("a", t0, 10, 1), sAddFailure("a", t1, 10, 2), sAddFailure("a", t2, 10, 3),
			sAddFailure("a", t5, 10, 3), sPurge(sec(t0+12), 10, 0), sCount("a", sec(t0+12), 10, 1),
			sAddFailure("a", sec(t0+12), 10, 2), sTracked(1),
		}},
		{"STORE-9", "purge untracks a full ring exactly when its largest stamp leaves the window", []sstep{
			sAddFailure("a", t0, 10, 1), sAddFailure("a", t1, 10, 2), sAddFailure("a", t2, 10, 3),
			sAddFailure("a", t3, 10, 3), sPurge(sec(t3+9), 10, 0), sPurge(sec(t3+10), 10, 1), sTracked(0),
		}},
		{"STORE-6", "clear_failures empties a full ring; it refills from zero", []sstep{
			sAddFailure("a", t0, 10, 1), sAddFailure("a", t1, 10, 2), sAddFailure("a", t2, 10, 3), sAddFailure("a", t3, 10, 3),
			sClearFailures("a"), sTracked(0), sAddFailure("a", t0, 10, 1), sCount("a", t0, 10, 1),
		}},
	})
}

// TestRingThrottle runs throttle sequences whose counts pass k = threshold:
// the decisions are those of the exact store.
func TestRingThrottle(t *testing.T) {
	runSeqs(t, []seq{
		{"PROP-17", "threshold 2 (k 2): failures past the threshold keep banning, and expire one by one", cfg(2, 10, 5), []step{
			failure(kIP, t0, allow(1)), failure(kIP, t1, banned(t1+5)), failure(kIP, t2, banned(t2+5)),
			failure(kIP, t3, banned(t3+5)), check(kIP, sec(t3+5), allow(0)), check(kIP, sec(t2+10), allow(1)),
			check(kIP, sec(t3+10), allow(2)),
		}},
		{"PROP-17", "threshold 2: a failure after a step back is below the ring but still bans (count >= 2)", cfg(2, 10, 5), []step{
			failure(kIP, t10, allow(1)), failure(kIP, t11, banned(t11+5)), failure(kIP, t0, banned(t11+5)),
			check(kIP, t0, banned(t11+5)), check(kIP, sec(t11+5), allow(0)), check(kIP, t20, allow(1)),
		}},
		{"FIND-8", "config {2, 10, 900}: a failure at 1000 read from clock 0 counts until 1009", cfg(2, 10, 900), []step{
			failure(kIP, sec(1000), allow(1)), check(kIP, sec(0), allow(1)), check(kIP, sec(1009), allow(1)),
			check(kIP, sec(1010), allow(2)),
		}},
		{"FIND-5", "config {3, 100, 10}: counts survive a ban and one failure re-bans", cfg(3, 100, 10), []step{
			failure(kIP, sec(0), allow(2)), failure(kIP, sec(1), allow(1)), failure(kIP, sec(2), banned(12)),
			check(kIP, sec(12), allow(0)), failure(kIP, sec(12), banned(22)), check(kIP, sec(103), allow(2)),
		}},
		{"FIND-6", "config {2, 100, 50}: record_failure allows while check is banned", cfg(2, 100, 50), []step{
			failure(kIP, sec(0), allow(1)), failure(kIP, sec(1), banned(51)), success(kIP),
			failure(kIP, sec(2), allow(1)), check(kIP, sec(2), banned(51)), checkAny(sec(2), banned(51), kIP),
		}},
		{"FIND-7", "config {1, 900, 900}: the saturated ban ends at max, where the stamp still counts", cfg(1, 900, 900), []step{
			failure(kIP, maxMinus(5), banned(maxU)), check(kIP, maxMinus(1), banned(maxU)), check(kIP, maxMinus(0), allow(0)),
		}},
		{"FIND-10", "config {2, 10, 900}: a purge then a step back forgets the failure", cfg(2, 10, 900), []step{
			failure(kIP, sec(0), allow(1)), purge(sec(100), 1), check(kIP, sec(5), allow(2)),
		}},
		{"PROP-21", "default config: the 5th failure in the window bans", throttle.DefaultConfig(), []step{
			failure(kIP, t0, allow(4)), failure(kIP, t1, allow(3)), failure(kIP, t2, allow(2)),
			failure(kIP, t3, allow(1)), failure(kIP, t4, banned(t4+900)), failure(kIP, t5, banned(t5+900)),
		}},
	})
}
