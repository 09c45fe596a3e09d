package gate_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/limcheck/limcheck/model/gate"
	"github.com/limcheck/limcheck/model/lim"
)

const (
	minT = math.MinInt64
	maxT = math.MaxInt64
	sec  = gate.NanosPerSecond
)

// Named instants: a step's at is the index of its tick in its case's t list,
// so t3 reads "the case's fourth instant".
const (
	t0 = iota
	t1
	t2
	t3
	t4
	t5
)

// cfgW is a gate config with lim_cfg(capacity, refil, ivl, maxif).
func cfgW(capacity, refil, ivl, maxif, sets, ways, tickNanos int64) gate.Config {
	return gate.Config{Lim: lim.NewConfig(capacity, refil, ivl, maxif), Sets: sets, Ways: ways, TickNanos: tickNanos}
}

// cfg is cfgW with 4 ways: enough that the step tables below never evict.
func cfg(capacity, refil, ivl, maxif, sets, tickNanos int64) gate.Config {
	return cfgW(capacity, refil, ivl, maxif, sets, 4, tickNanos)
}

func passW(set, way int64) gate.Decision {
	return gate.Decision{Verdict: gate.Pass, Set: set, Way: way}
}

// pass is a pass in way 0 of set.
func pass(set int64) gate.Decision { return passW(set, 0) }

func shed(set int64) gate.Decision {
	return gate.Decision{Verdict: gate.Shed, Set: set, Way: gate.NoWay, RetryAfter: 1, Response: lim.Response503(1)}
}

func limitedW(set, way, retry, secs int64) gate.Decision {
	return gate.Decision{Verdict: gate.Limited, Set: set, Way: way, Retry: retry, RetryAfter: secs, Response: lim.Response503(secs)}
}

// limited is a limited request in way 0 of set.
func limited(set, retry, secs int64) gate.Decision { return limitedW(set, 0, retry, secs) }

// bkt is an expected bucket of a key; nil means no way holds it (or its
// bucket is full at the read's now, GATE-14).
func bkt(tks, last int64) *lim.Bucket { return &lim.Bucket{Tks: tks, Last: last} }

// step is one call, Admit(ip, t[at]) or Release(), and the state after it:
// InFlight() and Bucket(ip, now) of the step's ip at the step's now (a
// Release reads at the last Admit's now).
type step struct {
	release  bool
	read     bool // only Bucket(ip, t[at]); inFlight is still checked
	ip       string
	at       int
	want     gate.Decision
	inFlight int64
	bucket   *lim.Bucket
}

func adm(ip string, at int, want gate.Decision, inFlight int64, b *lim.Bucket) step {
	return step{ip: ip, at: at, want: want, inFlight: inFlight, bucket: b}
}

// look reads Bucket(ip, t[at]) and changes nothing.
func look(ip string, at int, inFlight int64, b *lim.Bucket) step {
	return step{read: true, ip: ip, at: at, inFlight: inFlight, bucket: b}
}

func rel(inFlight int64, ip string, b *lim.Bucket) step {
	return step{release: true, inFlight: inFlight, ip: ip, bucket: b}
}

// gateCase is one row of a step table.
type gateCase struct {
	clause, reason string
	cfg            gate.Config
	t              []int64 // the named instants t0, t1, ...
	steps          []step
}

func checkLabel(t *testing.T, clause, reason string) {
	t.Helper()
	if clause == "" || reason == "" {
		t.Fatalf("row without clause or reason: clause %q, reason %q", clause, reason)
	}
}

// fataler is what mustNew needs of a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

func mustNew(t fataler, c gate.Config) *gate.Gate {
	t.Helper()
	g, err := gate.New(c)
	if err != nil {
		t.Fatalf("New(%+v) = %v", c, err)
	}
	return g
}

func runCase(t *testing.T, c gateCase) {
	t.Helper()
	checkLabel(t, c.clause, c.reason)
	runSteps(t, mustNew(t, c.cfg), c.t, c.steps)
}

func runSteps(t *testing.T, g *gate.Gate, at []int64, steps []step) {
	t.Helper()
	now := at[0]
	for _, s := range steps {
		call := "Release()"
		switch {
		case s.read:
			call, now = fmt.Sprintf("Bucket(%q, t%d)", s.ip, s.at), at[s.at]
		case s.release:
			g.Release()
		default:
			call = fmt.Sprintf("Admit(%q, t%d)", s.ip, s.at)
			now = at[s.at]
			got := g.Admit(s.ip, now)
			if diff := cmp.Diff(s.want, got); diff != "" {
				t.Errorf("%s = %s, want %s (t%d = %d) (-want +got):\n%s", call, show(got), show(s.want), s.at, at[s.at], diff)
			}
		}
		if got := g.InFlight(); got != s.inFlight {
			t.Errorf("after %s: InFlight() = %d, want %d", call, got, s.inFlight)
		}
		checkBucket(t, g, call, s.ip, now, s.bucket)
	}
}

func checkBucket(t *testing.T, g *gate.Gate, call, ip string, now int64, want *lim.Bucket) {
	t.Helper()
	got, touched := g.Bucket(ip, now)
	switch {
	case want == nil && touched:
		t.Errorf("after %s: Bucket(%q, %d) = %+v, true, want untouched", call, ip, now, got)
	case want != nil && !touched:
		t.Errorf("after %s: Bucket(%q, %d) untouched, want %+v", call, ip, now, *want)
	case want != nil && got != *want:
		t.Errorf("after %s: Bucket(%q, %d) = %+v, want %+v", call, ip, now, got, *want)
	}
}

func show(d gate.Decision) string {
	return fmt.Sprintf("%s{set %d, way %d, retry %d, Retry-After %d}", d.Verdict, d.Set, d.Way, d.Retry, d.RetryAfter)
}

func TestNew(t *testing.T) {
	valid := lim.NewConfig(1, 1, 1, 1)
	withLim := func(f func(*lim.Config)) gate.Config {
		c := gate.Config{Lim: valid, Sets: 1, Ways: 1, TickNanos: 1}
		f(&c.Lim)
		return c
	}
	tests := []struct {
		clause, reason string
		cfg            gate.Config
		names          []string // substrings the error names; nil: New succeeds
	}{
		{"GATE-1", "all parameters 1 is valid", cfg(1, 1, 1, 1, 1, 1), nil},
		{"GATE-1", "all parameters MaxInt64 is valid", cfgW(maxT, maxT, maxT, maxT, maxT, maxT, maxT), nil},
		{"GATE-1", "sets 1, ways MaxInt64: a gate that never evicts", cfgW(1, 1, 1, 1, 1, maxT, 1), nil},
		{"GATE-1", "sets MaxInt64, ways 1", cfgW(1, 1, 1, 1, maxT, 1, 1), nil},
		{"GATE-1", "lim_cfg with cap 0 has ok 0", cfg(0, 1, 1, 1, 1, 1), []string{"lim config", "Cap:0"}},
		{"GATE-1", "lim_cfg with refil -1", cfg(1, -1, 1, 1, 1, 1), []string{"lim config", "Refil:-1"}},
		{"GATE-1", "lim_cfg with ivl MinInt64", cfg(1, 1, minT, 1, 1, 1), []string{"lim config", "Ivl:-9223372036854775808"}},
		{"GATE-1", "lim_cfg with maxif 0", cfg(1, 1, 1, 0, 1, 1), []string{"lim config", "Maxif:0"}},
		{"GATE-1", "zero lim config", gate.Config{Sets: 1, Ways: 1, TickNanos: 1}, []string{"lim config", "OK:0"}},
		{"GATE-1", "lim ok 0 with every parameter >= 1", withLim(func(c *lim.Config) { c.OK = 0 }), []string{"lim config", "OK:0"}},
		{"GATE-1", "lim ok 2", withLim(func(c *lim.Config) { c.OK = 2 }), []string{"lim config", "OK:2"}},
		{"GATE-1", "lim err 1 with ok 1", withLim(func(c *lim.Config) { c.Err = 1 }), []string{"lim config", "Err:1"}},
		{"GATE-1", "hand-built ok 1 with cap 0", withLim(func(c *lim.Config) { c.Cap = 0 }), []string{"lim config", "Cap:0"}},
		{"GATE-1", "hand-built ok 1 with refil 0", withLim(func(c *lim.Config) { c.Refil = 0 }), []string{"lim config", "Refil:0"}},
		{"GATE-1", "hand-built ok 1 with ivl 0", withLim(func(c *lim.Config) { c.Ivl = 0 }), []string{"lim config", "Ivl:0"}},
		{"GATE-1", "hand-built ok 1 with maxif -1", withLim(func(c *lim.Config) { c.Maxif = -1 }), []string{"lim config", "Maxif:-1"}},
		{"GATE-1", "sets 0", cfg(1, 1, 1, 1, 0, 1), []string{"sets", "0"}},
		{"GATE-1", "sets -1", cfg(1, 1, 1, 1, -1, 1), []string{"sets", "-1"}},
		{"GATE-1", "sets MinInt64", cfg(1, 1, 1, 1, minT, 1), []string{"sets", "-9223372036854775808"}},
		{"GATE-1", "ways 0", cfgW(1, 1, 1, 1, 1, 0, 1), []string{"ways", "0"}},
		{"GATE-1", "ways -1", cfgW(1, 1, 1, 1, 1, -1, 1), []string{"ways", "-1"}},
		{"GATE-1", "ways MinInt64", cfgW(1, 1, 1, 1, 1, minT, 1), []string{"ways", "-9223372036854775808"}},
		{"GATE-1", "tick_nanos 0", cfg(1, 1, 1, 1, 1, 0), []string{"tick_nanos", "0"}},
		{"GATE-1", "tick_nanos -1", cfg(1, 1, 1, 1, 1, -1), []string{"tick_nanos", "-1"}},
		{"GATE-1", "tick_nanos MinInt64", cfg(1, 1, 1, 1, 1, minT), []string{"tick_nanos", "-9223372036854775808"}},
	}
	for _, tt := range tests {
		t.Run(tt.clause+" "+tt.reason, func(t *testing.T) {
			checkLabel(t, tt.clause, tt.reason)
			g, err := gate.New(tt.cfg)
			if tt.names == nil {
				if err != nil || g == nil {
					t.Fatalf("New(%+v) = %v, %v; want a gate", tt.cfg, g, err)
				}
				if got := g.Config(); got != tt.cfg {
					t.Errorf("New(%+v).Config() = %+v", tt.cfg, got)
				}
				return
			}
			if g != nil || !errors.Is(err, gate.ErrConfig) {
				t.Fatalf("New(%+v) = %v, %v; want nil and an error wrapping ErrConfig", tt.cfg, g, err)
			}
			for _, name := range tt.names {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("New(%+v) error %q does not name %q", tt.cfg, err, name)
				}
			}
		})
	}
}

func TestNewGateIsEmpty(t *testing.T) {
	tests := []struct {
		clause, reason string
		cfg            gate.Config
		probe          []string // addresses no way holds
	}{
		{"GATE-2", "one set of one way", cfgW(1, 1, 1, 1, 1, 1, 1), []string{"a", "", "\xff"}},
		{"GATE-2", "64 sets", cfg(5, 1, 10, 3, 64, sec), []string{"a", "b", "10.0.0.1"}},
		{"GATE-2", "MaxInt64 sets and ways", cfgW(maxT, maxT, maxT, maxT, maxT, maxT, maxT), []string{"a", "é"}},
	}
	for _, tt := range tests {
		t.Run(tt.clause+" "+tt.reason, func(t *testing.T) {
			checkLabel(t, tt.clause, tt.reason)
			g := mustNew(t, tt.cfg)
			if got := g.InFlight(); got != 0 {
				t.Errorf("New(%+v).InFlight() = %d, want 0", tt.cfg, got)
			}
			for _, ip := range tt.probe {
				checkBucket(t, g, "New", ip, 0, nil)
				if s, w, ok := g.WayOf(ip); ok {
					t.Errorf("New: WayOf(%q) = %d, %d, true, want no way", ip, s, w)
				}
			}
		})
	}
}

func TestSetOf(t *testing.T) {
	// Keys computed by hand from LIM-16: h = (h*131 + byte) mod 4294967291.
	tests := []struct {
		clause, reason string
		ip             string
		sets, want     int64
	}{
		{"GATE-13", "one set takes every key", "10.0.0.1", 1, 0},
		{"GATE-13", "empty string has key 0", "", 64, 0},
		{"GATE-13", "key 97 >= 64 sets wraps", "a", 64, 33},
		{"GATE-13", "key equal to sets is set 0", "a", 97, 0},
		{"GATE-13", "key sets-1 is the last set", "a", 98, 97},
		{"GATE-13", "key 1086976027 mod 1<<20", "10.0.0.1", 1 << 20, 651291},
		{"GATE-13", "non-ASCII hashes its UTF-8 bytes (195, 169)", "é", maxT, 25714},
		{"GATE-13", "invalid UTF-8 hashes the raw byte", "\xff", maxT, 255},
		{"GATE-13", "a leading NUL byte does not change the key", "\x00a", 64, 33},
		{"GATE-13", "sets above every key: the set is the key", "10.17.102.130", maxT, 2422100051},
	}
	for _, tt := range tests {
		t.Run(tt.clause+" "+tt.reason, func(t *testing.T) {
			checkLabel(t, tt.clause, tt.reason)
			g := mustNew(t, cfg(1, 1, 1, 1, tt.sets, 1))
			if got := g.SetOf(tt.ip); got != tt.want {
				t.Errorf("SetOf(%q) with %d sets = %d, want %d", tt.ip, tt.sets, got, tt.want)
			}
		})
	}
}

func TestAdmitRelease(t *testing.T) {
	tests := []gateCase{
		// GATE-13: set = key mod sets; buckets are per key, never shared by two keys.
		{"GATE-13", "sets=1: every key gets its own way of set 0", cfg(2, 1, 10, 5, 1, 1), []int64{0}, []step{
			adm("a", t0, pass(0), 1, bkt(1, 0)),
			adm("10.0.0.1", t0, passW(0, 1), 2, bkt(1, 0)),
			adm("", t0, passW(0, 2), 3, bkt(1, 0)),
			adm("a", t0, pass(0), 4, bkt(0, 0)),
			adm("a", t0, limited(0, 10, 1), 4, bkt(0, 0)),
			adm("\xff", t0, passW(0, 3), 5, bkt(1, 0)),
		}},
		{"GATE-13", "key 97 >= 64 sets lands in set 33", cfg(1, 1, 10, 5, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
		}},
		{"GATE-13", "key 1086976027 with 1<<20 sets lands in set 651291", cfg(1, 1, 10, 5, 1<<20, 1), []int64{0}, []step{
			adm("10.0.0.1", t0, pass(651291), 1, bkt(0, 0)),
		}},
		{"GATE-13", "MaxInt64 sets: non-ASCII, invalid UTF-8 and empty each get their key", cfg(1, 1, 10, 5, maxT, 1), []int64{0}, []step{
			adm("é", t0, pass(25714), 1, bkt(0, 0)),
			adm("\xff", t0, pass(255), 2, bkt(0, 0)),
			adm("", t0, pass(0), 3, bkt(0, 0)),
		}},
		{"GATE-13", "keys 97 and 33 share set 33 of 64 but not a bucket", cfg(1, 1, 10, 5, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("!", t0, passW(33, 1), 2, bkt(0, 0)),
			adm("a", t0, limited(33, 10, 1), 2, bkt(0, 0)),
		}},
		{"GATE-13", "a leading NUL byte keeps the key, so the bucket (FIND-12)", cfg(1, 1, 10, 5, maxT, 1), []int64{0}, []step{
			adm("a", t0, pass(97), 1, bkt(0, 0)),
			adm("\x00a", t0, limited(97, 10, 1), 1, bkt(0, 0)),
		}},
		{"GATE-13", "textual twins of FIND-2 are one key and share", cfg(1, 1, 10, 5, 4096, 1), []int64{0}, []step{
			adm("10.17.102.130", t0, pass(2422100051%4096), 1, bkt(0, 0)),
			adm("10.23.191.7", t0, limited(2422100051%4096, 10, 1), 1, bkt(0, 0)),
		}},
		{"GATE-13", "different sets do not share", cfg(1, 1, 10, 5, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("b", t0, pass(34), 2, bkt(0, 0)),
			rel(1, "a", bkt(0, 0)),
		}},

		// GATE-4: the in-flight gate runs first and a shed touches nothing.
		{"GATE-4", "a shed leaves another address's way empty", cfg(5, 1, 1, 1, 64, 1), []int64{0, 10}, []step{
			adm("a", t0, pass(33), 1, bkt(4, 0)),
			adm("b", t1, shed(34), 1, nil),
		}},
		{"GATE-4", "a shed neither refills nor rewrites its own way", cfg(5, 1, 20, 1, 64, 1), []int64{0, 10}, []step{
			adm("a", t0, pass(33), 1, bkt(4, 0)),
			adm("a", t1, shed(33), 1, bkt(4, 0)),
			rel(0, "a", bkt(4, 0)),
			adm("a", t1, pass(33), 1, bkt(3, 0)),
		}},
		{"GATE-4", "in-flight first: an empty bucket at maxif sheds, not limits", cfg(1, 1, 10, 1, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("a", t0, shed(33), 1, bkt(0, 0)),
		}},
		{"GATE-4", "a shed first request does not give birth to the bucket", cfg(2, 1, 10, 1, 64, 1), []int64{0, 5, 7}, []step{
			adm("a", t0, pass(33), 1, bkt(1, 0)),
			adm("b", t1, shed(34), 1, nil),
			rel(0, "b", nil),
			adm("b", t2, pass(34), 1, bkt(1, 7)),
		}},

		// GATE-5: one token per admission.
		{"GATE-5", "cap 3 gives three passes, then limited", cfg(3, 1, 100, 10, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(2, 0)),
			adm("a", t0, pass(33), 2, bkt(1, 0)),
			adm("a", t0, pass(33), 3, bkt(0, 0)),
			adm("a", t0, limited(33, 100, 1), 3, bkt(0, 0)),
		}},
		{"GATE-5", "cap MaxInt64 still spends one", cfg(maxT, 1, 1, 10, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(maxT-1, 0)),
			adm("a", t0, pass(33), 2, bkt(maxT-2, 0)),
		}},
		{"GATE-5", "refil 2 adds two per step, an admission spends one", cfg(3, 2, 10, 10, 64, 1), []int64{0, 10}, []step{
			adm("a", t0, pass(33), 1, bkt(2, 0)),
			adm("a", t0, pass(33), 2, bkt(1, 0)),
			adm("a", t0, pass(33), 3, bkt(0, 0)),
			adm("a", t1, pass(33), 4, bkt(1, 10)),
		}},

		// GATE-6: the way keeps the take's bucket on both outcomes.
		{"GATE-6", "pass keeps whole steps and the remainder (25 ticks = 2 steps)", cfg(3, 1, 10, 5, 64, 1), []int64{0, 25}, []step{
			adm("a", t0, pass(33), 1, bkt(2, 0)),
			adm("a", t0, pass(33), 2, bkt(1, 0)),
			adm("a", t0, pass(33), 3, bkt(0, 0)),
			adm("a", t1, pass(33), 4, bkt(1, 20)),
		}},
		{"GATE-14", "a refill that reaches cap is a rebirth: last = now, the remainder is not kept", cfg(2, 1, 10, 5, 64, 1), []int64{0, 25}, []step{
			adm("a", t0, pass(33), 1, bkt(1, 0)),
			adm("a", t0, pass(33), 2, bkt(0, 0)),
			adm("a", t1, pass(33), 3, bkt(1, 25)),
		}},
		{"GATE-6", "limited keeps the bucket it read, one tick before the step", cfg(1, 1, 10, 5, 64, 1), []int64{0, 9, 10}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("a", t1, limited(33, 10, 1), 1, bkt(0, 0)),
			adm("a", t2, pass(33), 2, bkt(0, 10)),
		}},
		{"GATE-6", "clock stepping back: no refill, last unchanged", cfg(2, 1, 10, 5, 64, 1), []int64{100, 50, 109, 110}, []step{
			adm("a", t0, pass(33), 1, bkt(1, 100)),
			adm("a", t1, pass(33), 2, bkt(0, 100)),
			adm("a", t2, limited(33, 10, 1), 2, bkt(0, 100)),
			adm("a", t1, limited(33, 10, 1), 2, bkt(0, 100)),
			adm("a", t3, pass(33), 3, bkt(0, 110)),
		}},
		{"GATE-6", "clock stepping back from 0 to MinInt64", cfg(1, 1, 1, 5, 64, 1), []int64{0, minT}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("a", t1, limited(33, 1, 1), 1, bkt(0, 0)),
		}},
		{"GATE-6", "near MaxInt64, then a step back to MinInt64", cfg(1, 1, 1, 5, 64, 1), []int64{maxT - 1, maxT, minT}, []step{
			adm("a", t0, pass(33), 1, bkt(0, maxT-1)),
			adm("a", t1, pass(33), 2, bkt(0, maxT)),
			adm("a", t1, limited(33, 1, 1), 2, bkt(0, maxT)),
			adm("a", t2, limited(33, 1, 1), 2, bkt(0, maxT)),
		}},
		{"GATE-6", "MinInt64 to MaxInt64: 2^64-1 steps, exact", cfg(1, 1, 1, 5, 64, 1), []int64{minT, maxT}, []step{
			adm("a", t0, pass(33), 1, bkt(0, minT)),
			adm("a", t1, pass(33), 2, bkt(0, maxT)),
		}},
		{"GATE-14", "MinInt64 to MaxInt64 with ivl 2 refills to cap: reborn at MaxInt64", cfg(1, 1, 2, 5, 64, 1), []int64{minT, maxT}, []step{
			adm("a", t0, pass(33), 1, bkt(0, minT)),
			adm("a", t1, pass(33), 2, bkt(0, maxT)),
		}},
		{"GATE-14", "MinInt64 to MaxInt64 with ivl MaxInt64 is two steps, full: reborn", cfg(1, 1, maxT, 5, 64, 1), []int64{minT, maxT}, []step{
			adm("a", t0, pass(33), 1, bkt(0, minT)),
			adm("a", t1, pass(33), 2, bkt(0, maxT)),
		}},
		{"GATE-6", "MinInt64 to MaxInt64 with ivl MaxInt64 and cap 3: two steps keep the remainder", cfg(3, 1, maxT, 5, 64, 1), []int64{minT, maxT}, []step{
			adm("a", t0, pass(33), 1, bkt(2, minT)),
			adm("a", t0, pass(33), 2, bkt(1, minT)),
			adm("a", t0, pass(33), 3, bkt(0, minT)),
			adm("a", t1, pass(33), 4, bkt(1, maxT-1)),
		}},
		{"GATE-6", "steps*refil past int64 clamps to cap", cfg(maxT, maxT, 1, 5, 64, 1), []int64{minT, maxT}, []step{
			adm("a", t0, pass(33), 1, bkt(maxT-1, minT)),
			adm("a", t0, pass(33), 2, bkt(maxT-2, minT)),
			adm("a", t1, pass(33), 3, bkt(maxT-1, maxT)),
		}},

		// GATE-7: a pass adds one in flight and carries nothing else.
		{"GATE-7", "each pass adds one until maxif", cfg(5, 1, 10, 3, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(4, 0)),
			adm("b", t0, pass(34), 2, bkt(4, 0)),
			adm("a", t0, pass(33), 3, bkt(3, 0)),
			adm("a", t0, shed(33), 3, bkt(3, 0)),
		}},
		{"GATE-7", "a pass has retry 0, Retry-After 0, no response even at tick MaxInt64", cfg(1, 1, maxT, maxT, 1, maxT), []int64{maxT}, []step{
			adm("a", t0, pass(0), 1, bkt(0, maxT)),
		}},

		// GATE-8: limited keeps no in-flight place.
		{"GATE-8", "limited after a release stays at 0 and leaves the place free", cfg(1, 1, 10, 1, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			rel(0, "a", bkt(0, 0)),
			adm("a", t0, limited(33, 10, 1), 0, bkt(0, 0)),
			adm("b", t0, pass(34), 1, bkt(0, 0)),
		}},
		{"GATE-8", "limited requests never count towards maxif", cfg(1, 1, 10, 2, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("a", t0, limited(33, 10, 1), 1, bkt(0, 0)),
			adm("a", t0, limited(33, 10, 1), 1, bkt(0, 0)),
			adm("b", t0, pass(34), 2, bkt(0, 0)),
		}},
		{"GATE-8", "tick 1 s: 10 ticks is Retry-After 10", cfg(1, 1, 10, 5, 64, sec), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("a", t0, limited(33, 10, 10), 1, bkt(0, 0)),
		}},
		{"GATE-8", "retry ceil(1*10/3) = 4 ticks, exact ceiling", cfg(1, 3, 10, 5, 64, sec), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("a", t0, limited(33, 4, 4), 1, bkt(0, 0)),
		}},
		{"GATE-8", "refil > ivl: retry ceil(1/3) = 1 tick", cfg(1, 3, 1, 5, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("a", t0, limited(33, 1, 1), 1, bkt(0, 0)),
		}},
		{"GATE-8", "ivl MaxInt64 at tick 1 s: MaxInt64 ticks is MaxInt64 s exactly", cfg(1, 1, maxT, 5, 64, sec), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("a", t0, limited(33, maxT, maxT), 1, bkt(0, 0)),
		}},
		{"GATE-8", "tick MaxInt64: 10 ticks is ceil(10*MaxInt64/1e9) s", cfg(1, 1, 10, 5, 64, maxT), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("a", t0, limited(33, 10, 92233720369), 1, bkt(0, 0)),
		}},

		// GATE-9: a shed answers Retry-After 1.
		{"GATE-9", "shed: retry 0, Retry-After 1 at tick 1 s", cfg(1, 1, 10, 1, 64, sec), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("b", t0, shed(34), 1, nil),
		}},
		{"GATE-9", "shed answers 1 whatever the bucket's retry and tick_nanos", cfg(1, 1, maxT, 1, 64, maxT), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("a", t0, shed(33), 1, bkt(0, 0)),
		}},

		// GATE-10: a key's bucket is born full at its first take's tick.
		{"GATE-10", "born at the first take (5), not at New: the step ends at 15", cfg(2, 1, 10, 5, 64, 1), []int64{5, 14, 15}, []step{
			adm("a", t0, pass(33), 1, bkt(1, 5)),
			adm("a", t0, pass(33), 2, bkt(0, 5)),
			adm("a", t1, limited(33, 10, 1), 2, bkt(0, 5)),
			adm("a", t2, pass(33), 3, bkt(0, 15)),
		}},
		{"GATE-10", "each key is born at its own first take, even behind another's", cfg(2, 1, 10, 5, 64, 1), []int64{100, 3}, []step{
			adm("a", t0, pass(33), 1, bkt(1, 100)),
			adm("b", t1, pass(34), 2, bkt(1, 3)),
		}},
		{"GATE-10", "born at MinInt64", cfg(3, 1, 10, 5, 64, 1), []int64{minT}, []step{
			adm("a", t0, pass(33), 1, bkt(2, minT)),
		}},
		{"GATE-10", "born at MaxInt64", cfg(3, 1, 10, 5, 64, 1), []int64{maxT}, []step{
			adm("a", t0, pass(33), 1, bkt(2, maxT)),
		}},
		{"GATE-10", "born full with cap 1: the first take empties it", cfg(1, 1, 10, 5, 64, 1), []int64{-7}, []step{
			adm("a", t0, pass(33), 1, bkt(0, -7)),
		}},

		// GATE-11: release.
		{"GATE-11", "release frees the place for another address", cfg(5, 1, 10, 1, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(4, 0)),
			adm("b", t0, shed(34), 1, nil),
			rel(0, "a", bkt(4, 0)),
			adm("b", t0, pass(34), 1, bkt(4, 0)),
		}},
		{"GATE-11", "release on a new gate floors at 0 and touches nothing", cfg(5, 1, 10, 1, 64, 1), []int64{0}, []step{
			rel(0, "a", nil),
			rel(0, "a", nil),
			adm("a", t0, pass(33), 1, bkt(4, 0)),
			adm("a", t0, shed(33), 1, bkt(4, 0)),
		}},
		{"GATE-11", "extra releases after two passes floor at 0", cfg(5, 1, 10, 2, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(4, 0)),
			adm("a", t0, pass(33), 2, bkt(3, 0)),
			rel(1, "a", bkt(3, 0)),
			rel(0, "a", bkt(3, 0)),
			rel(0, "a", bkt(3, 0)),
			adm("a", t0, pass(33), 1, bkt(2, 0)),
			adm("a", t0, pass(33), 2, bkt(1, 0)),
			adm("a", t0, shed(33), 2, bkt(1, 0)),
		}},

		// GATE-12: Retry-After through the gate.
		{"GATE-12", "tick 1 ns: 10 ticks rounds up to 1 s", cfg(1, 1, 10, 5, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("a", t0, limited(33, 10, 1), 1, bkt(0, 0)),
		}},
		{"GATE-12", "tick 0.1 s: 11 ticks is 1.1 s, rounded up to 2", cfg(1, 1, 11, 5, 64, sec/10), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("a", t0, limited(33, 11, 2), 1, bkt(0, 0)),
		}},
		{"GATE-12", "tick 0.1 s: 20 ticks is exactly 2 s, not rounded up", cfg(1, 1, 20, 5, 64, sec/10), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("a", t0, limited(33, 20, 2), 1, bkt(0, 0)),
		}},
		{"GATE-12", "tick 1e9+1 ns: 1 tick is 2 s", cfg(1, 1, 1, 5, 64, sec+1), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("a", t0, limited(33, 1, 2), 1, bkt(0, 0)),
		}},
		{"GATE-12", "retry and tick MaxInt64 saturate at MaxInt64", cfg(1, 1, maxT, 5, 64, maxT), []int64{0}, []step{
			adm("a", t0, pass(33), 1, bkt(0, 0)),
			adm("a", t0, limited(33, maxT, maxT), 1, bkt(0, 0)),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.clause+" "+tt.reason, func(t *testing.T) { runCase(t, tt) })
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	tests := []struct {
		clause, reason   string
		retry, tickNanos int64
		want             int64
	}{
		{"GATE-12", "retry 0 is at least 1", 0, 1, 1},
		{"GATE-12", "retry 0 at tick MaxInt64 is at least 1", 0, maxT, 1},
		{"GATE-12", "negative retry is at least 1", -1, sec, 1},
		{"GATE-12", "MinInt64 retry is at least 1", minT, maxT, 1},
		{"GATE-12", "1 tick of 1 ns rounds up to 1", 1, 1, 1},
		{"GATE-12", "1 tick of 1 s is 1", 1, sec, 1},
		{"GATE-12", "1e9 ticks of 1 ns is exactly 1, not 2", sec, 1, 1},
		{"GATE-12", "1e9+1 ticks of 1 ns rounds up to 2", sec + 1, 1, 2},
		{"GATE-12", "2e9 ticks of 1 ns is exactly 2", 2 * sec, 1, 2},
		{"GATE-12", "3 ticks of 1 s is exactly 3", 3, sec, 3},
		{"GATE-12", "1 tick of 1e9+1 ns rounds up to 2", 1, sec + 1, 2},
		{"GATE-12", "1 tick of 1e9-1 ns rounds up to 1", 1, sec - 1, 1},
		{"GATE-12", "5e8 ticks of 2 ns is exactly 1", sec / 2, 2, 1},
		{"GATE-12", "MaxInt64 ticks of 1 ns", maxT, 1, 9223372037},
		{"GATE-12", "1 tick of MaxInt64 ns", 1, maxT, 9223372037},
		{"GATE-12", "10 ticks of MaxInt64 ns", 10, maxT, 92233720369},
		{"GATE-12", "MaxInt64 ticks of 1 s is exactly MaxInt64", maxT, sec, maxT},
		{"GATE-12", "2^62 ticks of 2e9-1 ns just fits", 1 << 62, 2*sec - 1, 9223372032243089790},
		{"GATE-12", "2^62 ticks of 2e9 ns is 2^63 s, saturated", 1 << 62, 2 * sec, maxT},
		{"GATE-12", "MaxInt64 ticks of MaxInt64 ns saturates", maxT, maxT, maxT},
		{"GATE-12", "MaxInt64 ticks of 1e9+1 ns saturates", maxT, sec + 1, maxT},
	}
	for _, tt := range tests {
		t.Run(tt.clause+" "+tt.reason, func(t *testing.T) {
			checkLabel(t, tt.clause, tt.reason)
			if got := gate.RetryAfterSeconds(tt.retry, tt.tickNanos); got != tt.want {
				t.Errorf("RetryAfterSeconds(%d, %d) = %d, want %d", tt.retry, tt.tickNanos, got, tt.want)
			}
		})
	}
}

// TestResponseBytes pins the 503 bytes of a shed and of a limited request to
// literal text, not only to lim.Response503.
func TestResponseBytes(t *testing.T) {
	const head = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: "
	const tail = "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nlim rejected"
	tests := []struct {
		clause, reason string
		cfg            gate.Config
		ips            []string // admitted at tick 0; the last one's response is checked
		want           string
	}{
		{"GATE-9", "shed answers Retry-After 1", cfg(1, 1, 10, 1, 64, sec), []string{"a", "b"}, head + "1" + tail},
		{"GATE-8", "limited answers Retry-After 10", cfg(1, 1, 10, 5, 64, sec), []string{"a", "a"}, head + "10" + tail},
		{"GATE-8", "limited answers saturated Retry-After", cfg(1, 1, maxT, 5, 64, maxT), []string{"a", "a"}, head + "9223372036854775807" + tail},
		{"GATE-7", "pass has no response", cfg(1, 1, 10, 5, 64, sec), []string{"a"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.clause+" "+tt.reason, func(t *testing.T) {
			checkLabel(t, tt.clause, tt.reason)
			g := mustNew(t, tt.cfg)
			var d gate.Decision
			for _, ip := range tt.ips {
				d = g.Admit(ip, 0)
			}
			if d.Response != tt.want {
				t.Errorf("Admit(%q, 0).Response = %q, want %q", tt.ips[len(tt.ips)-1], d.Response, tt.want)
			}
		})
	}
}
