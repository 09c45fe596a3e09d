package lim_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/limcheck/limcheck/model/lim"
)

func TestAcquire(t *testing.T) {
	acq := func(ok, n int64) lim.AcquireResult { return lim.AcquireResult{OK: ok, N: n} }
	tests := []struct {
		clause, reason string
		n, maxif       int64
		want           lim.AcquireResult
	}{
		{clause: "LIM-14", reason: "first place of one", n: 0, maxif: 1, want: acq(1, 1)},
		{clause: "LIM-14", reason: "full: shed, n unchanged", n: 1, maxif: 1, want: acq(0, 1)},
		{clause: "LIM-14", reason: "one below maxif: the last place", n: 9, maxif: 10, want: acq(1, 10)},
		{clause: "LIM-14", reason: "at maxif", n: 10, maxif: 10, want: acq(0, 10)},
		{clause: "LIM-14", reason: "above maxif (maxif lowered): shed, n kept", n: 11, maxif: 10, want: acq(0, 11)},
		{clause: "LIM-14", reason: "maxif 0 always sheds", n: 0, maxif: 0, want: acq(0, 0)},
		{clause: "LIM-14", reason: "maxif -1 always sheds", n: 0, maxif: -1, want: acq(0, 0)},
		{clause: "LIM-14", reason: "maxif MinInt64 always sheds", n: 5, maxif: minI, want: acq(0, 5)},
		{clause: "LIM-14", reason: "n -1 is out of contract: shed though -1 + 1 <= maxif", n: -1, maxif: 10, want: acq(0, -1)},
		{clause: "LIM-14", reason: "n MinInt64 is out of contract", n: minI, maxif: maxI, want: acq(0, minI)},
		{clause: "LIM-14", reason: "the last place below MaxInt64", n: maxI - 1, maxif: maxI, want: acq(1, maxI)},
		{clause: "LIM-1", reason: "n = maxif = MaxInt64: n + 1 wraps to MinInt64 <= maxif, but exactly it is 2^63 > maxif", n: maxI, maxif: maxI, want: acq(0, maxI)},
		{clause: "LIM-1", reason: "n MaxInt64 with maxif 1: shed, n kept", n: maxI, maxif: 1, want: acq(0, maxI)},
	}
	for i, tt := range tests {
		checkRow(t, i, tt.clause, tt.reason)
		got := lim.Acquire(tt.n, tt.maxif)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (%s): Acquire(%d, %d) = {ok:%d n:%d}, want {ok:%d n:%d} (-want +got):\n%s",
				tt.clause, tt.reason, tt.n, tt.maxif, got.OK, got.N, tt.want.OK, tt.want.N, diff)
		}
	}
}

func TestRelease(t *testing.T) {
	tests := []struct {
		clause, reason string
		n, want        int64
	}{
		{clause: "LIM-15", reason: "one place back", n: 2, want: 1},
		{clause: "LIM-15", reason: "the last place back", n: 1, want: 0},
		{clause: "LIM-15", reason: "an extra release floors at 0", n: 0, want: 0},
		{clause: "LIM-15", reason: "negative n floors at 0", n: -1, want: 0},
		{clause: "LIM-15", reason: "MaxInt64", n: maxI, want: maxI - 1},
		{clause: "LIM-1", reason: "MinInt64 - 1 would wrap to MaxInt64", n: minI, want: 0},
	}
	for i, tt := range tests {
		checkRow(t, i, tt.clause, tt.reason)
		if got := lim.Release(tt.n); got != tt.want {
			t.Errorf("%s (%s): Release(%d) = %d, want %d", tt.clause, tt.reason, tt.n, got, tt.want)
		}
	}
}
