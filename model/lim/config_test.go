package lim_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/limcheck/limcheck/model/lim"
)

func TestErrCodes(t *testing.T) {
	tests := []struct {
		clause, reason string
		name           string
		got, want      int64
	}{
		{clause: "LIM-2", reason: "lim_err_ok() = 0", name: "ErrOK", got: lim.ErrOK, want: 0},
		{clause: "LIM-2", reason: "lim_err_param() = 1", name: "ErrParam", got: lim.ErrParam, want: 1},
		{clause: "LIM-2", reason: "a valid lim_cfg carries lim_err_ok", name: "NewConfig(1, 1, 1, 1).Err", got: lim.NewConfig(1, 1, 1, 1).Err, want: 0},
		{clause: "LIM-2", reason: "an invalid lim_cfg carries lim_err_param", name: "NewConfig(0, 1, 1, 1).Err", got: lim.NewConfig(0, 1, 1, 1).Err, want: 1},
	}
	for i, tt := range tests {
		checkRow(t, i, tt.clause, tt.reason)
		if tt.got != tt.want {
			t.Errorf("%s (%s): %s = %d, want %d", tt.clause, tt.reason, tt.name, tt.got, tt.want)
		}
	}
}

func TestNewConfig(t *testing.T) {
	ok := func(cap, refil, ivl, maxif int64) lim.Config {
		return lim.Config{OK: 1, Err: 0, Cap: cap, Refil: refil, Ivl: ivl, Maxif: maxif}
	}
	bad := func(cap, refil, ivl, maxif int64) lim.Config {
		return lim.Config{OK: 0, Err: 1, Cap: cap, Refil: refil, Ivl: ivl, Maxif: maxif}
	}
	tests := []struct {
		clause, reason         string
		cap, refil, ivl, maxif int64
		want                   lim.Config
	}{
		{clause: "LIM-3", reason: "all 1: the least valid config", cap: 1, refil: 1, ivl: 1, maxif: 1, want: ok(1, 1, 1, 1)},
		{clause: "LIM-3", reason: "all MaxInt64", cap: maxI, refil: maxI, ivl: maxI, maxif: maxI, want: ok(maxI, maxI, maxI, maxI)},
		{clause: "LIM-3", reason: "parameters kept as given, in order", cap: 2, refil: 3, ivl: 5, maxif: 7, want: ok(2, 3, 5, 7)},
		{clause: "LIM-3", reason: "cap 0", cap: 0, refil: 1, ivl: 1, maxif: 1, want: bad(0, 1, 1, 1)},
		{clause: "LIM-3", reason: "refil 0", cap: 1, refil: 0, ivl: 1, maxif: 1, want: bad(1, 0, 1, 1)},
		{clause: "LIM-3", reason: "ivl 0", cap: 1, refil: 1, ivl: 0, maxif: 1, want: bad(1, 1, 0, 1)},
		{clause: "LIM-3", reason: "maxif 0", cap: 1, refil: 1, ivl: 1, maxif: 0, want: bad(1, 1, 1, 0)},
		{clause: "LIM-3", reason: "cap -1", cap: -1, refil: 1, ivl: 1, maxif: 1, want: bad(-1, 1, 1, 1)},
		{clause: "LIM-3", reason: "refil MinInt64", cap: 1, refil: minI, ivl: 1, maxif: 1, want: bad(1, minI, 1, 1)},
		{clause: "LIM-3", reason: "ivl MinInt64 with the others MaxInt64", cap: maxI, refil: maxI, ivl: minI, maxif: maxI, want: bad(maxI, maxI, minI, maxI)},
		{clause: "LIM-3", reason: "maxif -1", cap: 5, refil: 5, ivl: 5, maxif: -1, want: bad(5, 5, 5, -1)},
		{clause: "LIM-3", reason: "all bad: still one code", cap: minI, refil: -1, ivl: 0, maxif: minI, want: bad(minI, -1, 0, minI)},
	}
	for i, tt := range tests {
		checkRow(t, i, tt.clause, tt.reason)
		got := lim.NewConfig(tt.cap, tt.refil, tt.ivl, tt.maxif)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (%s): NewConfig(%d, %d, %d, %d) = %s, want %s (-want +got):\n%s",
				tt.clause, tt.reason, tt.cap, tt.refil, tt.ivl, tt.maxif, fmtCfg(got), fmtCfg(tt.want), diff)
		}
	}
}

func TestConfigValid(t *testing.T) {
	tests := []struct {
		clause, reason string
		c              lim.Config
		want           bool
	}{
		{clause: "LIM-4", reason: "what lim_cfg returns with ok 1", c: lim.NewConfig(1, 1, 1, 1), want: true},
		{clause: "LIM-4", reason: "lim_cfg at MaxInt64", c: lim.NewConfig(maxI, maxI, maxI, maxI), want: true},
		{clause: "LIM-4", reason: "what lim_cfg returns with ok 0", c: lim.NewConfig(1, 1, 1, 0), want: false},
		{clause: "LIM-4", reason: "the zero Config", c: lim.Config{}, want: false},
		{clause: "LIM-4", reason: "ok 1, err 0 but cap 0", c: lim.Config{OK: 1, Cap: 0, Refil: 1, Ivl: 1, Maxif: 1}, want: false},
		{clause: "LIM-4", reason: "ok 1, err 0 but refil -1", c: lim.Config{OK: 1, Cap: 1, Refil: -1, Ivl: 1, Maxif: 1}, want: false},
		{clause: "LIM-4", reason: "ok 1, err 0 but ivl MinInt64", c: lim.Config{OK: 1, Cap: 1, Refil: 1, Ivl: minI, Maxif: 1}, want: false},
		{clause: "LIM-4", reason: "ok 1, err 0 but maxif 0", c: lim.Config{OK: 1, Cap: 1, Refil: 1, Ivl: 1, Maxif: 0}, want: false},
		{clause: "LIM-4", reason: "ok 1 but err 1", c: lim.Config{OK: 1, Err: 1, Cap: 1, Refil: 1, Ivl: 1, Maxif: 1}, want: false},
		{clause: "LIM-4", reason: "ok 0, err 0, parameters fine", c: lim.Config{OK: 0, Err: 0, Cap: 1, Refil: 1, Ivl: 1, Maxif: 1}, want: false},
		{clause: "LIM-4", reason: "ok 2 is not ok 1", c: lim.Config{OK: 2, Err: 0, Cap: 1, Refil: 1, Ivl: 1, Maxif: 1}, want: false},
		{clause: "LIM-4", reason: "err -1 is not err 0", c: lim.Config{OK: 1, Err: -1, Cap: 1, Refil: 1, Ivl: 1, Maxif: 1}, want: false},
	}
	for i, tt := range tests {
		checkRow(t, i, tt.clause, tt.reason)
		if got := tt.c.Valid(); got != tt.want {
			t.Errorf("%s (%s): %s.Valid() = %v, want %v", tt.clause, tt.reason, fmtCfg(tt.c), got, tt.want)
		}
	}
}

func TestBuckets(t *testing.T) {
	tests := []struct {
		clause, reason string
		call           string
		got, want      lim.Bucket
	}{
		{clause: "LIM-5", reason: "zeros", call: "MakeBucket(0, 0)", got: lim.MakeBucket(0, 0), want: bkt(0, 0)},
		{clause: "LIM-5", reason: "kept exactly, in order", call: "MakeBucket(3, 7)", got: lim.MakeBucket(3, 7), want: bkt(3, 7)},
		{clause: "LIM-5", reason: "out-of-contract tks kept as is", call: "MakeBucket(MinInt64, MaxInt64)", got: lim.MakeBucket(minI, maxI), want: bkt(minI, maxI)},
		{clause: "LIM-5", reason: "extremes the other way", call: "MakeBucket(MaxInt64, MinInt64)", got: lim.MakeBucket(maxI, minI), want: bkt(maxI, minI)},
		{clause: "LIM-6", reason: "born full at now", call: "NewBucket(5, 100)", got: lim.NewBucket(5, 100), want: bkt(5, 100)},
		{clause: "LIM-6", reason: "extremes", call: "NewBucket(MaxInt64, MinInt64)", got: lim.NewBucket(maxI, minI), want: bkt(maxI, minI)},
		{clause: "LIM-6", reason: "a negative now", call: "NewBucket(1, -1)", got: lim.NewBucket(1, -1), want: bkt(1, -1)},
		{clause: "LIM-6", reason: "nothing checked: cap 0", call: "NewBucket(0, MaxInt64)", got: lim.NewBucket(0, maxI), want: bkt(0, maxI)},
	}
	for i, tt := range tests {
		checkRow(t, i, tt.clause, tt.reason)
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s (%s): %s = %s, want %s (-want +got):\n%s", tt.clause, tt.reason, tt.call, fmtBkt(tt.got), fmtBkt(tt.want), diff)
		}
	}
}
