package lim

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestTake checks Take on the spec's findings and at the integer extremes;
// the full equivalence with the model is checked in fuzz/.
func TestTake(t *testing.T) {
	const maxI, minI = math.MaxInt64, math.MinInt64
	tests := []struct {
		b                      Bucket
		cap, refil, ivl, maxif int64
		now, cost              int64
		want                   TakeResult
		reason                 string
	}{
		{Bucket{0, 0}, 2, 2, 10, 1, 0, 1, TakeResult{0, 5, 0, 0}, "FIND-1: retry ceil(1*10/2) = 5"},
		{Bucket{0, 0}, 1, 1, 10, 1, 9, 1, TakeResult{0, 10, 0, 0}, "FIND-1: retry 10 one tick before the step"},
		{Bucket{2, 0}, 2, 1, 10, 1, 10, 3, TakeResult{0, 10, 2, 10}, "FIND-4: cost > cap rejects after a refill"},
		{Bucket{10, 0}, 3, 1, 10, 1, -5, 1, TakeResult{1, 0, 2, 0}, "FIND-11: a lowered cap binds on a step back"},
		{Bucket{0, 100}, 1, 1, 10, 1, 0, 1, TakeResult{0, 10, 0, 100}, "FIND-13: step back keeps last"},
		{Bucket{0, minI}, maxI, maxI, 1, 1, maxI, maxI, TakeResult{1, 0, 0, maxI}, "2^64-1 steps of MaxInt64 tokens clamp to cap"},
		{Bucket{0, minI}, 2, 1, maxI, 1, minI, 2, TakeResult{0, maxI, 0, minI}, "retry 2*MaxInt64 saturates"},
		{Bucket{0, 0}, maxI, 3, maxI, 1, 0, maxI, TakeResult{0, maxI, 0, 0}, "a 128-bit retry numerator saturates"},
		{Bucket{0, 0}, maxI, 2, 8, 1, 0, 1 << 62, TakeResult{0, maxI, 0, 0}, "deficit*ivl is exactly refil*2^64: the high word equals the divisor, the quotient needs 65 bits"},
		{Bucket{0, 0}, 10, 7, 3, 1, 0, 10, TakeResult{0, 5, 0, 0}, "ceil(30/7) = 5 through the reciprocal"},
		{Bucket{0, 0}, 10, 5, 3, 1, 0, 10, TakeResult{0, 6, 0, 0}, "an exact 30/5 is not rounded up"},
		{Bucket{5, 0}, 10, 1, 1, 1, 0, 0, TakeResult{0, 0, 5, 0}, "cost 0 is out of contract"},
		{Bucket{-1, 0}, 10, 1, 1, 1, 0, 1, TakeResult{0, 0, -1, 0}, "tks < 0 is out of contract"},
		{Bucket{5, 0}, 10, 1, 1, 0, 0, 1, TakeResult{0, 0, 5, 0}, "maxif 0 makes the config invalid"},
	}
	for _, tt := range tests {
		if tt.reason == "" {
			t.Fatalf("row %+v has no reason", tt)
		}
		c := NewConfig(tt.cap, tt.refil, tt.ivl, tt.maxif)
		if got := Take(tt.b, &c, tt.now, tt.cost); got != tt.want {
			t.Errorf("Take(%+v, cfg(%d,%d,%d,%d), %d, %d) = %+v, want %+v (%s)",
				tt.b, tt.cap, tt.refil, tt.ivl, tt.maxif, tt.now, tt.cost, got, tt.want, tt.reason)
		}
	}
}

// TestConfigGetters checks lim_cfg's getters for a valid, an invalid and the
// zero config.
func TestConfigGetters(t *testing.T) {
	c := NewConfig(1, 2, 3, 4)
	if c.OK() != 1 || c.Err() != ErrOK || c.Cap() != 1 || c.Refil() != 2 || c.Ivl() != 3 || c.Maxif() != 4 || !c.Valid() {
		t.Errorf("NewConfig(1, 2, 3, 4) = ok %d err %d %d/%d/%d/%d", c.OK(), c.Err(), c.Cap(), c.Refil(), c.Ivl(), c.Maxif())
	}
	bad := NewConfig(1, 0, 3, 4)
	if bad.OK() != 0 || bad.Err() != ErrParam || bad.Refil() != 0 || bad.Valid() {
		t.Errorf("NewConfig(1, 0, 3, 4) = ok %d err %d refil %d, want 0, ErrParam, 0", bad.OK(), bad.Err(), bad.Refil())
	}
	var zero Config
	if zero.OK() != 0 || zero.Err() != ErrOK || zero.Valid() {
		t.Errorf("Config{} = ok %d err %d, want 0 and ErrOK as in the model's zero config", zero.OK(), zero.Err())
	}
}

// TestPropDividerEqualsDivision checks that the reciprocal division equals
// n / d for every dividend and divisor Take can use.
func TestPropDividerEqualsDivision(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.OneOf(rapid.Uint64Range(1, 64), rapid.Uint64Range(1, math.MaxInt64), rapid.Uint64Range(math.MaxInt64-3, math.MaxInt64)).Draw(t, "d")
		n := rapid.OneOf(rapid.Uint64(), rapid.Uint64Range(math.MaxUint64-3, math.MaxUint64), rapid.Uint64Range(0, 1000)).Draw(t, "n")
		v := newDivider(d)
		if got := v.div(n); got != n/d {
			t.Fatalf("newDivider(%d).div(%d) = %d, want %d", d, n, got, n/d)
		}
	})
}

// TestAcquireRelease checks lim_acq and lim_rel at their edges.
func TestAcquireRelease(t *testing.T) {
	acq := []struct {
		n, maxif int64
		want     AcquireResult
		reason   string
	}{
		{0, 1, AcquireResult{1, 1}, "first place"},
		{1, 1, AcquireResult{0, 1}, "full: shed, n unchanged"},
		{math.MaxInt64, math.MaxInt64, AcquireResult{0, math.MaxInt64}, "n + 1 would overflow: shed"},
		{-1, 5, AcquireResult{0, -1}, "n < 0 is out of contract: shed"},
		{0, 0, AcquireResult{0, 0}, "maxif 0 always sheds"},
	}
	for _, tt := range acq {
		if got := Acquire(tt.n, tt.maxif); got != tt.want || tt.reason == "" {
			t.Errorf("Acquire(%d, %d) = %+v, want %+v (%s)", tt.n, tt.maxif, got, tt.want, tt.reason)
		}
	}
	for n, want := range map[int64]int64{5: 4, 1: 0, 0: 0, -7: 0, math.MinInt64: 0} {
		if got := Release(n); got != want {
			t.Errorf("Release(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestResponse503 checks the exact bytes and the clamp of a negative retry.
func TestResponse503(t *testing.T) {
	const head = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: "
	const tail = "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nlim rejected"
	for retry, digits := range map[int64]string{0: "0", 1: "1", -1: "0", math.MinInt64: "0", math.MaxInt64: "9223372036854775807"} {
		if got, want := Response503(retry), head+digits+tail; got != want {
			t.Errorf("Response503(%d) = %q, want %q", retry, got, want)
		}
	}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf = AppendResponse503(buf[:0], 7) }); n != 0 {
		t.Errorf("AppendResponse503 into a large enough buffer allocates %v times, want 0", n)
	}
}
