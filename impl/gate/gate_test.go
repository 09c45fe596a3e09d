package gate

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/limcheck/limcheck/impl/lim"
)

// zeroSeed is the public seed the spec's worked example and these tests use.
var zeroSeed [16]byte

// mustNew returns a gate of the zero seed.
func mustNew(t testing.TB, cap, refil, ivl, maxif, sets, ways, tick int64) *Gate {
	t.Helper()
	g, err := New(Config{Lim: lim.NewConfig(cap, refil, ivl, maxif), Sets: sets, Ways: ways, TickNanos: tick, Seed: &zeroSeed})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return g
}

// TestNewRejectsInvalidConfig checks that every invalid field is an error
// wrapping ErrConfig that names it (spec GATE-1), and the implementation's
// limit MaxWays.
func TestNewRejectsInvalidConfig(t *testing.T) {
	ok := lim.NewConfig(1, 1, 1, 1)
	tests := []struct {
		cfg    Config
		want   string
		reason string
	}{
		{Config{Lim: lim.NewConfig(0, 1, 1, 1), Sets: 1, Ways: 1, TickNanos: 1}, "lim config", "cap 0 makes the lim config invalid"},
		{Config{Lim: lim.Config{}, Sets: 1, Ways: 1, TickNanos: 1}, "lim config", "the zero lim config is invalid"},
		{Config{Lim: ok, Sets: 0, Ways: 1, TickNanos: 1}, "sets 0", "no set"},
		{Config{Lim: ok, Sets: math.MinInt64, Ways: 1, TickNanos: 1}, "sets -9223372036854775808", "negative sets"},
		{Config{Lim: ok, Sets: 1, Ways: 0, TickNanos: 1}, "ways 0", "no way"},
		{Config{Lim: ok, Sets: 1, Ways: MaxWays + 1, TickNanos: 1}, "sets 1 * ways 268435457", "one set of more ways than the implementation preallocates"},
		{Config{Lim: ok, Sets: MaxWays/4 + 1, Ways: 4, TickNanos: 1}, "sets 67108865 * ways 4", "more ways than the implementation preallocates"},
		{Config{Lim: ok, Sets: math.MaxInt64, Ways: math.MaxInt64, TickNanos: 1}, "sets 9223372036854775807", "a product past int64 is refused, not wrapped"},
		{Config{Lim: ok, Sets: 1, Ways: 1, TickNanos: 0}, "tick_nanos 0", "a tick must last"},
		{Config{Lim: ok, Sets: 1, Ways: 1, TickNanos: -1}, "tick_nanos -1", "a negative tick"},
	}
	for _, tt := range tests {
		if tt.reason == "" {
			t.Fatalf("row %+v has no reason", tt.cfg)
		}
		_, err := New(tt.cfg)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%+v) = %v, want an ErrConfig naming %q (%s)", tt.cfg, err, tt.want, tt.reason)
		}
	}
}

// TestSeed checks the seed's three cases: a given seed places keys by its
// SipHash (spec GATE-13, GATE-18) and Config returns a copy of it; a nil
// seed is drawn and differs between gates; Config returns neither.
func TestSeed(t *testing.T) {
	seed := [16]byte{0: 0x00, 1: 0x01, 2: 0x02, 3: 0x03, 4: 0x04, 5: 0x05, 6: 0x06, 7: 0x07, 8: 0x08, 9: 0x09, 10: 0x0a, 11: 0x0b, 12: 0x0c, 13: 0x0d, 14: 0x0e, 15: 0x0f}
	cfg := Config{Lim: lim.NewConfig(1, 1, 1, 1), Sets: 1 << 20, Ways: 1, TickNanos: 1, Seed: &seed}
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	seed[0] = 0xff // New keeps nothing of the caller's array
	// "a" is key 97: SipHash-2-4 under 000102..0f of 61 00 00 00 00 00 00 00.
	if got, want := g.SetOf("a"), int64(0x76b50a3289b6f05d%(1<<20)); got != want {
		t.Errorf("SetOf(a) under seed 000102..0f = %d, want %d", got, want)
	}
	if got := g.Config().Seed; got != nil {
		t.Errorf("Config().Seed = %v, want nil: a seed is never returned", got)
	}
	cfg.Seed = nil
	d1, _ := New(cfg)
	d2, _ := New(cfg)
	if d1.Config().Seed != nil {
		t.Errorf("Config().Seed of a drawn seed = %v, want nil: a drawn seed is never returned", d1.Config().Seed)
	}
	same := 0
	for i := range 64 {
		ip := fmt.Sprint("192.0.2.", i)
		if d1.SetOf(ip) == d2.SetOf(ip) {
			same++
		}
	}
	if same == 64 {
		t.Errorf("two gates with drawn seeds place 64 of 64 addresses in the same sets of 2^20: the seeds are not drawn")
	}
}

// step is one call of a step table: an admit (ip != "" or release false) or a release.
type step struct {
	release bool
	ip      string
	now     int64
	want    Decision
	inFlt   int64
	bucket  lim.Bucket
	reason  string
}

// TestWorkedExample walks spec.md's worked example through the impl gate.
func TestWorkedExample(t *testing.T) {
	g := mustNew(t, 2, 1, 10, 2, 64, 1, 100_000_000)
	if got := g.SetOf("a"); got != 1 {
		t.Fatalf("SetOf(a) = %d, want 1: siphash(zero seed, 97) = 9317687229460025665, mod 64 (spec GATE-13, GATE-18)", got)
	}
	a, sb := at(g, "a", 0), g.SetOf("b")
	steps := []step{
		{ip: "a", now: 0, want: a.is(Pass, 0, 0), inFlt: 1, bucket: lim.Bucket{Tks: 1}, reason: "born full, one token"},
		{ip: "a", now: 1, want: a.is(Pass, 0, 0), inFlt: 2, bucket: lim.Bucket{}, reason: "no whole step yet"},
		{ip: "b", now: 2, want: Decision{Verdict: Shed, Slot: NoWay, Set: sb, Way: NoWay, RetryAfter: 1}, inFlt: 2, reason: "two in flight: shed touches nothing"},
		{release: true, inFlt: 1, reason: "release"},
		{release: true, inFlt: 0, reason: "release"},
		{ip: "a", now: 4, want: a.is(Limited, 10, 1), inFlt: 0, bucket: lim.Bucket{}, reason: "10 ticks of 0.1 s is 1 s"},
		{ip: "a", now: 10, want: a.is(Pass, 0, 0), inFlt: 1, bucket: lim.Bucket{Last: 10}, reason: "one whole step"},
	}
	runSteps(t, g, steps)
	if _, _, ok := g.WayOf("b"); ok {
		t.Errorf("WayOf(b) found a way, want none: b was only ever shed")
	}
}

// place is where a test expects a key: its set and way on gate g.
type place struct{ set, way, ways int64 }

// at returns the place of ip in way w of its set.
func at(g *Gate, ip string, w int64) place { return place{g.SetOf(ip), w, g.Config().Ways} }

// is returns the decision of verdict v with retry and Retry-After at p.
func (p place) is(v Verdict, retry, after int64) Decision {
	return Decision{Verdict: v, Slot: p.set*p.ways + p.way, Set: p.set, Way: p.way, Retry: retry, RetryAfter: after}
}

// public returns d without its unexported shard, which depends on the P.
func public(d Decision) Decision {
	d.shard = 0
	return d
}

func runSteps(t *testing.T, g *Gate, steps []step) {
	t.Helper()
	for i, s := range steps {
		if s.reason == "" {
			t.Fatalf("step %d has no reason", i)
		}
		if s.release {
			g.Release(Decision{})
		} else if got := public(g.Admit(s.ip, s.now)); got != s.want {
			t.Fatalf("step %d: Admit(%q, %d) = %+v, want %+v (%s)", i, s.ip, s.now, got, s.want, s.reason)
		}
		if got := g.InFlight(); got != s.inFlt {
			t.Fatalf("step %d: InFlight() = %d, want %d (%s)", i, got, s.inFlt, s.reason)
		}
		if !s.release && s.want.Verdict != Shed {
			if b, _ := g.Bucket(s.ip, s.now); b != s.bucket {
				t.Fatalf("step %d: Bucket(%q, %d) = %+v, want %+v (%s)", i, s.ip, s.now, b, s.bucket, s.reason)
			}
		}
	}
}

// TestExtremeTicks checks a gate at both ends of the tick domain and across
// a clock that steps back.
func TestExtremeTicks(t *testing.T) {
	g := mustNew(t, 1, 1, math.MaxInt64, 10, 1, 1, 1)
	x := at(g, "x", 0)
	steps := []step{
		{ip: "x", now: math.MinInt64, want: x.is(Pass, 0, 0), inFlt: 1, bucket: lim.Bucket{Last: math.MinInt64}, reason: "born full at MinInt64"},
		{ip: "x", now: -2, want: x.is(Limited, math.MaxInt64, 9223372037), inFlt: 1, bucket: lim.Bucket{Last: math.MinInt64}, reason: "2^63-2 ticks is no whole step of MaxInt64"},
		{ip: "x", now: -1, want: x.is(Pass, 0, 0), inFlt: 2, bucket: lim.Bucket{Last: -1}, reason: "exactly one step: now - last = 2^63-1 needs 64-bit unsigned arithmetic; full at now, born again"},
		{ip: "x", now: math.MaxInt64 - 2, want: x.is(Limited, math.MaxInt64, 9223372037), inFlt: 2, bucket: lim.Bucket{Last: -1}, reason: "one tick short of the next step"},
		{ip: "x", now: math.MinInt64, want: x.is(Limited, math.MaxInt64, 9223372037), inFlt: 2, bucket: lim.Bucket{Last: -1}, reason: "a step back refills nothing and keeps last"},
		{ip: "x", now: math.MaxInt64 - 1, want: x.is(Pass, 0, 0), inFlt: 3, bucket: lim.Bucket{Last: math.MaxInt64 - 1}, reason: "the next whole step: full at now, born again at now"},
	}
	runSteps(t, g, steps)
}

// TestRetryAfterSeconds checks the tick-to-second conversion (spec GATE-12).
func TestRetryAfterSeconds(t *testing.T) {
	tests := []struct {
		retry, tick, want int64
		reason            string
	}{
		{0, 1, 1, "at least 1"},
		{1, 1, 1, "one nanosecond rounds up to a second"},
		{1_000_000_000, 1, 1, "an exact second is not rounded up"},
		{1_000_000_001, 1, 2, "a nanosecond over rounds up"},
		{3, 1_000_000_000, 3, "second ticks"},
		{math.MaxInt64, math.MaxInt64, math.MaxInt64, "saturates"},
		{math.MaxInt64, 1, 9223372037, "ceil((2^63-1) / 1e9)"},
		{1 << 62, 4_000_000_000, math.MaxInt64, "the product is exactly 1e9 * 2^64: its high word equals the divisor, so the quotient needs more than 64 bits"},
		{-5, 1, 1, "a negative retry is at least 1"},
	}
	for _, tt := range tests {
		if tt.reason == "" {
			t.Fatalf("row %+v has no reason", tt)
		}
		if got := RetryAfterSeconds(tt.retry, tt.tick); got != tt.want {
			t.Errorf("RetryAfterSeconds(%d, %d) = %d, want %d (%s)", tt.retry, tt.tick, got, tt.want, tt.reason)
		}
	}
}

// TestResponseBytes checks AppendResponse: nothing for a pass, the exact
// 503 for a shed and a limited request.
func TestResponseBytes(t *testing.T) {
	if got := (Decision{Verdict: Pass}).AppendResponse(nil); len(got) != 0 {
		t.Errorf("Pass.AppendResponse(nil) = %q, want nothing", got)
	}
	got := string(Decision{Verdict: Limited, RetryAfter: 42}.AppendResponse(nil))
	want := "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 42\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nlim rejected"
	if got != want {
		t.Errorf("Limited.AppendResponse(nil) = %q, want %q", got, want)
	}
}

// TestVerdictString checks the spec names of the verdicts.
func TestVerdictString(t *testing.T) {
	for v, want := range map[Verdict]string{Pass: "pass", Shed: "shed", Limited: "limited", 9: "Verdict(9)"} {
		if got := v.String(); got != want {
			t.Errorf("Verdict(%d).String() = %q, want %q", v, got, want)
		}
	}
}

// TestConcurrentTokensExact checks that concurrent admits on one slot with a
// frozen clock pass exactly cap times: no token is spent twice or lost.
func TestConcurrentTokensExact(t *testing.T) {
	const cap, workers, each = 1000, 8, 400
	g := mustNew(t, cap, 1, 1<<40, 1<<40, 16, 4, 1)
	var passes sync.WaitGroup
	counts := make([]int, workers)
	for w := range workers {
		passes.Add(1)
		go func() {
			defer passes.Done()
			for range each {
				if d := g.Admit("10.0.0.1", 5); d.Verdict == Pass {
					counts[w]++
					g.Release(d)
				}
			}
		}()
	}
	passes.Wait()
	total := 0
	for _, c := range counts {
		total += c
	}
	if total != cap || g.InFlight() != 0 {
		t.Errorf("%d concurrent admits of cap %d: %d passed, in flight %d; want %d passed, 0 in flight", workers*each, cap, total, g.InFlight(), cap)
	}
}

// TestConcurrentInFlightExact checks that with maxif places held by
// concurrent passes that never release, exactly maxif requests pass.
func TestConcurrentInFlightExact(t *testing.T) {
	const maxif, workers, each = 50, 8, 100
	g := mustNew(t, 1<<40, 1, 1, maxif, 256, 4, 1)
	var wg sync.WaitGroup
	var mu sync.Mutex
	passed := 0
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if g.Admit(string(rune('a'+w))+string(rune('a'+i%26)), int64(i)).Verdict == Pass {
					mu.Lock()
					passed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if passed != maxif || g.InFlight() != maxif {
		t.Errorf("passed %d with in flight %d, want exactly maxif %d of each", passed, g.InFlight(), maxif)
	}
	for range maxif + 5 {
		g.Release(Decision{})
	}
	if got := g.InFlight(); got != 0 {
		t.Errorf("after extra releases InFlight() = %d, want 0 (floors at 0)", got)
	}
}

// TestAdmitNowUsesMonotonicTicks checks the real-clock shorthand: ticks
// never go back and a fresh gate starts near tick 0.
func TestAdmitNowUsesMonotonicTicks(t *testing.T) {
	g := mustNew(t, 10, 1, 1, 10, 8, 1, 1_000_000_000)
	if now := g.Now(); now < 0 || now > 1 {
		t.Fatalf("Now() right after New = %d, want 0 or 1 (second ticks)", now)
	}
	if d := g.AdmitNow("a"); d.Verdict != Pass {
		t.Errorf("AdmitNow(a) = %+v, want a pass from a full bucket", d)
	}
}

// TestAdmitBytesIsAdmit checks that AdmitBytes decides as Admit of the same
// bytes, on two gates fed one history (passes, a limited request, a shed
// while step 3's place is held): same decisions and same buckets, also for a
// key past 32 bytes and for the empty key.
func TestAdmitBytesIsAdmit(t *testing.T) {
	gs, gb := mustNew(t, 2, 1, 10, 1, 64, 2, 100_000_000), mustNew(t, 2, 1, 10, 1, 64, 2, 100_000_000)
	long := "2001:db8:1234:5678:9abc:def0:1234:5678"
	steps := []struct {
		ip      string
		want    Verdict
		release bool // release one place after the step
	}{
		{long, Pass, true}, {long, Pass, true}, {long, Limited, false},
		{"", Pass, false}, {"a", Shed, true}, {"a", Pass, true},
	}
	for i, st := range steps {
		now := int64(i)
		s, b := public(gs.Admit(st.ip, now)), public(gb.AdmitBytes([]byte(st.ip), now))
		if s != b || s.Verdict != st.want {
			t.Fatalf("step %d: AdmitBytes(%q, %d) = %+v, Admit = %+v; want equal, %v", i, st.ip, now, b, s, st.want)
		}
		if st.release {
			gs.Release(s)
			gb.Release(b)
		}
	}
	for _, ip := range []string{long, "", "a"} {
		bs, _ := gs.Bucket(ip, int64(len(steps)))
		bb, _ := gb.BucketBytes([]byte(ip), int64(len(steps)))
		if bs != bb {
			t.Errorf("Bucket of %q after AdmitBytes %+v, after Admit %+v", ip, bb, bs)
		}
	}
}
