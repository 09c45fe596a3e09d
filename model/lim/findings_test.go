package lim_test

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/limcheck/limcheck/model/lim"
)

// TestFindRetryNotABound reproduces FIND-1: the seed's retry is neither a
// lower nor an upper bound on the true wait.
func TestFindRetryNotABound(t *testing.T) {
	// Too early: lim_cfg(2, 2, 10, 1), bucket {0, 0}, take at 0, cost 1.
	c := lim.NewConfig(2, 2, 10, 1)
	b := lim.MakeBucket(0, 0)
	if got := lim.Take(b, c, 0, 1); got.OK != 0 || got.Retry != 5 {
		t.Fatalf("Take(%s, %s, 0, 1) = %s, want a reject with retry ceil(1*10/2) = 5", fmtBkt(b), fmtCfg(c), fmtTake(got))
	}
	if got := lim.Take(b, c, 5, 1); got.OK != 0 {
		t.Fatalf("Take(%s, %s, 5, 1) = %s, want a reject at the retry tick: no whole step yet", fmtBkt(b), fmtCfg(c), fmtTake(got))
	}
	if got := lim.Take(b, c, 9, 1); got.OK != 0 {
		t.Fatalf("Take(%s, %s, 9, 1) = %s, want a reject", fmtBkt(b), fmtCfg(c), fmtTake(got))
	}
	if got := lim.Take(b, c, 10, 1); got.OK != 1 {
		t.Fatalf("Take(%s, %s, 10, 1) = %s, want a pass: true wait 10", fmtBkt(b), fmtCfg(c), fmtTake(got))
	}

	// Too late: lim_cfg(1, 1, 10, 1), bucket {0, 0}, take at 9.
	c = lim.NewConfig(1, 1, 10, 1)
	if got := lim.Take(b, c, 9, 1); got.OK != 0 || got.Retry != 10 {
		t.Fatalf("Take(%s, %s, 9, 1) = %s, want a reject with retry 10", fmtBkt(b), fmtCfg(c), fmtTake(got))
	}
	if got := lim.Take(b, c, 10, 1); got.OK != 1 {
		t.Fatalf("Take(%s, %s, 10, 1) = %s, want a pass one tick later: true wait 1", fmtBkt(b), fmtCfg(c), fmtTake(got))
	}
}

// TestFindIPv4KeyCollision reproduces FIND-2: distinct valid IPv4 strings
// share a key, hence a gate slot for every number of slots.
func TestFindIPv4KeyCollision(t *testing.T) {
	pairs := []struct {
		a, b string
		key  int64
	}{
		{a: "10.17.102.130", b: "10.23.191.7", key: 2422100051},
		{a: "10.17.102.131", b: "10.23.191.8", key: 2422100052},
		{a: "10.17.102.132", b: "10.23.191.9", key: 2422100053},
	}
	for _, p := range pairs {
		ka, kb := lim.IPKey(p.a), lim.IPKey(p.b)
		if ka != p.key || kb != p.key {
			t.Errorf("IPKey(%q) = %d, IPKey(%q) = %d, want both %d", p.a, ka, p.b, kb, p.key)
		}
		for _, slots := range []int64{1, 2, 64, 1000, 65536, lim.KeyPrime} {
			if ka%slots != kb%slots {
				t.Errorf("IPKey(%q) mod %d = %d, IPKey(%q) mod %d = %d, want one slot", p.a, slots, ka%slots, p.b, slots, kb%slots)
			}
		}
	}
}

// TestFindIPv6SpellingsDiffer reproduces FIND-3: two spellings of one IPv6
// address get different keys; canonicalising first gives one key.
func TestFindIPv6SpellingsDiffer(t *testing.T) {
	short, long := "::1", "0:0:0:0:0:0:0:1"
	if got := lim.IPKey(short); got != 1002985 {
		t.Errorf("IPKey(%q) = %d, want 1002985", short, got)
	}
	if got := lim.IPKey(long); got != 2269459780 {
		t.Errorf("IPKey(%q) = %d, want 2269459780", long, got)
	}
	canon := func(s string) string { return netip.MustParseAddr(s).Unmap().String() }
	if a, b := lim.IPKey(canon(short)), lim.IPKey(canon(long)); a != b {
		t.Errorf("canonical IPKey(%q) = %d, IPKey(%q) = %d, want one key", canon(short), a, canon(long), b)
	}
}

// TestFindCostAboveCapForever reproduces FIND-4: cost > cap never passes yet
// gets a finite retry, again and again.
func TestFindCostAboveCapForever(t *testing.T) {
	c := lim.NewConfig(2, 1, 10, 1)
	b := lim.MakeBucket(2, 0)
	for _, now := range []int64{0, 10, 20, 1000} {
		got := lim.Take(b, c, now, 3)
		want := res(0, 10, 2, now)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Take(%s, %s, %d, 3) = %s, want %s (-want +got):\n%s", fmtBkt(b), fmtCfg(c), now, fmtTake(got), fmtTake(want), diff)
		}
		b = got.Bucket()
	}
}

// TestFindLoweredCapOnStepBack reproduces FIND-11: a lowered cap takes effect
// at once, even on a clock step back.
func TestFindLoweredCapOnStepBack(t *testing.T) {
	c := lim.NewConfig(3, 1, 10, 1)
	b := lim.MakeBucket(10, 0)
	got := lim.Take(b, c, -5, 1)
	want := res(1, 0, 2, 0)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Take(%s, %s, -5, 1) = %s, want %s (-want +got):\n%s", fmtBkt(b), fmtCfg(c), fmtTake(got), fmtTake(want), diff)
	}
}

// TestFindKeyBlindToLeadingNUL reproduces FIND-12: leading NUL bytes never
// change lim_ip_key, so every address has same-key twins.
func TestFindKeyBlindToLeadingNUL(t *testing.T) {
	for _, ip := range []string{"a", "10.17.102.130", "::1", ""} {
		for _, pad := range []string{"\x00", "\x00\x00\x00", "\x00\x00\x00\x00\x00\x00\x00\x00\x00"} {
			if got, want := lim.IPKey(pad+ip), lim.IPKey(ip); got != want {
				t.Errorf("IPKey(%q) = %d, want IPKey(%q) = %d", pad+ip, got, ip, want)
			}
		}
	}
	if got := lim.IPKey("\x00a"); got != 97 {
		t.Errorf(`IPKey("\x00a") = %d, want 97`, got)
	}
}

// TestFindRetryIgnoresStepBack reproduces FIND-13: after a clock step back
// the retry ignores the ticks left until last.
func TestFindRetryIgnoresStepBack(t *testing.T) {
	c := lim.NewConfig(1, 1, 10, 1)
	b := lim.MakeBucket(0, 100)
	if got := lim.Take(b, c, 0, 1); got != res(0, 10, 0, 100) {
		t.Fatalf("Take(%s, %s, 0, 1) = %s, want a reject with retry 10", fmtBkt(b), fmtCfg(c), fmtTake(got))
	}
	for _, now := range []int64{10, 100, 109} {
		if got := lim.Take(b, c, now, 1); got.OK != 0 {
			t.Errorf("Take(%s, %s, %d, 1) = %s, want a reject: no whole step after last = 100", fmtBkt(b), fmtCfg(c), now, fmtTake(got))
		}
	}
	if got := lim.Take(b, c, 110, 1); got != res(1, 0, 0, 110) {
		t.Errorf("Take(%s, %s, 110, 1) = %s, want the first pass", fmtBkt(b), fmtCfg(c), fmtTake(got))
	}
}

// TestFindGateRetryOffByAlmostAStep reproduces FIND-21: with a step of 60
// ticks of one second each, a take rejected at tick 0 says retry 1 tick
// (Retry-After 1 s by GATE-12's conversion), yet every take before tick 60
// rejects.
func TestFindGateRetryOffByAlmostAStep(t *testing.T) {
	c := lim.NewConfig(60, 60, 60, 100)
	b := lim.MakeBucket(0, 0) // 60 passes at tick 0 from a bucket born full
	got := lim.Take(b, c, 0, 1)
	if got != res(0, 1, 0, 0) {
		t.Fatalf("Take(%s, %s, 0, 1) = %s, want a reject with retry 1", fmtBkt(b), fmtCfg(c), fmtTake(got))
	}
	const tickNanos = 1_000_000_000
	if secs := (got.Retry*tickNanos + 999_999_999) / 1_000_000_000; secs != 1 {
		t.Fatalf("Retry-After of retry %d at tick_nanos %d = %d s, want 1", got.Retry, tickNanos, secs)
	}
	for now := int64(1); now < 60; now++ {
		if r := lim.Take(b, c, now, 1); r.OK != 0 {
			t.Fatalf("Take(%s, %s, %d, 1) = %s, want a reject before tick 60", fmtBkt(b), fmtCfg(c), now, fmtTake(r))
		}
	}
	if r := lim.Take(b, c, 60, 1); r != res(1, 0, 59, 60) {
		t.Fatalf("Take(%s, %s, 60, 1) = %s, want the first pass", fmtBkt(b), fmtCfg(c), fmtTake(r))
	}
}

// TestFindForwardGlitchFreezesABucket reproduces FIND-22: a bucket whose
// last was written by a clock that ran ahead says retry 1 yet passes no
// take before last + ivl.
func TestFindForwardGlitchFreezesABucket(t *testing.T) {
	c := lim.NewConfig(10, 10, 10, 1)
	b := lim.MakeBucket(0, 1_000_000_000_000)
	if got := lim.Take(b, c, 1_000_000_000, 1); got != res(0, 1, 0, 1_000_000_000_000) {
		t.Fatalf("Take(%s, %s, 10^9, 1) = %s, want a reject with retry 1", fmtBkt(b), fmtCfg(c), fmtTake(got))
	}
	for _, now := range []int64{1_000_000_001, 999_999_999_999, 1_000_000_000_009} {
		if got := lim.Take(b, c, now, 1); got.OK != 0 {
			t.Errorf("Take(%s, %s, %d, 1) = %s, want a reject: the bucket waits for the clock", fmtBkt(b), fmtCfg(c), now, fmtTake(got))
		}
	}
	if got := lim.Take(b, c, 1_000_000_000_010, 1); got != res(1, 0, 9, 1_000_000_000_010) {
		t.Errorf("Take(%s, %s, 10^12+10, 1) = %s, want the first pass", fmtBkt(b), fmtCfg(c), fmtTake(got))
	}
}

// TestFindSeedKeyBoundIsWrong reproduces FIND-25: the largest intermediate
// of lim_ip_key, (p-1)*131+255, exceeds seed 000's bound 2^39 (and stays
// below 2^40), reached by the bytes 0e 4c 40 73 6f ff.
func TestFindSeedKeyBoundIsWrong(t *testing.T) {
	const p = 4294967291
	if got := lim.IPKey("\x0eL@so"); got != p-1 {
		t.Fatalf(`IPKey("\x0eL@so") = %d, want p - 1`, got)
	}
	inter := int64(p-1)*131 + 255
	if inter != 562640715245 || inter <= 1<<39 || inter >= 1<<40 {
		t.Fatalf("(p-1)*131+255 = %d, want 562640715245, in (2^39, 2^40)", inter)
	}
	if got := lim.IPKey("\x0eL@so\xff"); got != 124 || got != inter%p {
		t.Fatalf(`IPKey("\x0eL@so\xff") = %d, want 124`, got)
	}
}

// TestFindTakeNeedsMaxif reproduces FIND-26: a take whose config has
// maxif 0 is out of contract although the take never reads maxif.
func TestFindTakeNeedsMaxif(t *testing.T) {
	b := lim.MakeBucket(1, 0)
	if got := lim.Take(b, lim.NewConfig(1, 1, 1, 0), 0, 1); got != res(0, 0, 1, 0) {
		t.Fatalf("Take({1, 0}, lim_cfg(1, 1, 1, 0), 0, 1) = %s, want out of contract {0, 0, 1, 0}", fmtTake(got))
	}
	if got := lim.Take(b, lim.NewConfig(1, 1, 1, 1), 0, 1); got != res(1, 0, 0, 0) {
		t.Fatalf("Take({1, 0}, lim_cfg(1, 1, 1, 1), 0, 1) = %s, want a pass", fmtTake(got))
	}
}
