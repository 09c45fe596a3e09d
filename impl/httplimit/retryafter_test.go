package httplimit

import (
	"math"
	"strconv"
	"sync"
	"testing"
)

// TestRetryAfterValueIsTheDecimal checks every cached value and the values
// past the cache: the decimal of secs, in a slice of length and capacity 1
// (so that an append copies instead of writing into the next value), and
// for a cached value the same shared slice each time.
func TestRetryAfterValueIsTheDecimal(t *testing.T) {
	for secs := range int64(retryAfterCached) {
		checkRetryAfterValue(t, secs, true)
	}
	for _, secs := range []int64{retryAfterCached, retryAfterCached + 1, 1e9, math.MaxInt64} {
		checkRetryAfterValue(t, secs, false)
	}
}

// checkRetryAfterValue checks retryAfterValue(secs); shared says whether two
// calls must return the same backing array.
func checkRetryAfterValue(t *testing.T, secs int64, shared bool) {
	t.Helper()
	v, w := retryAfterValue(secs), retryAfterValue(secs)
	if len(v) != 1 || cap(v) != 1 || v[0] != strconv.FormatInt(secs, 10) {
		t.Fatalf("retryAfterValue(%d) = %q (len %d, cap %d), want [%d] (len 1, cap 1)", secs, v, len(v), cap(v), secs)
	}
	if (&v[0] == &w[0]) != shared {
		t.Fatalf("retryAfterValue(%d) twice: same array %v, want %v", secs, &v[0] == &w[0], shared)
	}
}

// TestRetryAfterPageBuiltOnce races goroutines to the first use of one
// page: all of them get the published page (run with -race, this also
// checks that publication orders the page's writes before its reads).
func TestRetryAfterPageBuiltOnce(t *testing.T) {
	const secs = 120_000 // a page no other test of the package needs
	got := make([]*string, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = &retryAfterValue(secs)[0] })
	}
	wg.Wait()
	for i, p := range got {
		if p != got[0] || *p != "120000" {
			t.Errorf("goroutine %d: %q at %p, want goroutine 0's %q at %p", i, *p, p, *got[0], got[0])
		}
	}
}
