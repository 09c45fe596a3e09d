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

// Hashes under the zero seed (GATE-18), from which the tables' sets follow
// by GATE-13: set = h mod sets, h read unsigned. spec.md's worked example
// gives hA; the others were checked against the impl's SipHash and an
// independent transcription of the reference algorithm.
const (
	hA     = 9317687229460025665  // siphash(0, 97): "a" and "\x00a"
	hB     = 2458364962552053934  // siphash(0, 98): "b"
	hBang  = 16635583710763512065 // siphash(0, 33): "!"
	hEmpty = 16738165381834614119 // siphash(0, 0): ""
	hFF    = 17827051359801552716 // siphash(0, 255): "\xff"
	hE     = 14700918241400086958 // siphash(0, 25714): "é"
	hIP    = 584507762113071151   // siphash(0, 1086976027): "10.0.0.1"
	hTwin  = 2490974800465291038  // siphash(0, 2422100051): "10.17.102.130" and "10.23.191.7" (FIND-2)
)

// The sets of 64 that most step tables use, under the zero seed.
const (
	setA  = hA % 64  // 1: "a"; "!" shares it (hBang % 64 = 1)
	setB  = hB % 64  // 46: "b"
	setIP = hIP % 64 // 47: "10.0.0.1"
)

// cfgW is a gate config with lim_cfg(capacity, refil, ivl, maxif) and the
// zero seed, a public seed as vectors use (GATE-18).
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
	read     bool  // only Bucket(ip, t[at]); inFlight is still checked
	budget   bool  // only the stored budget of set (GATE-19); inFlight is still checked
	set      int64 // the set a budget step reads
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

// budget reads the stored budget of set (nil: absent) and changes nothing.
func budget(set int64, at int, inFlight int64, b *lim.Bucket) step {
	return step{budget: true, set: set, at: at, inFlight: inFlight, bucket: b}
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
		case s.budget:
			checkBudget(t, g, s.set, s.bucket)
			if got := g.InFlight(); got != s.inFlight {
				t.Errorf("at budget of set %d: InFlight() = %d, want %d", s.set, got, s.inFlight)
			}
			continue
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

// checkBudget checks the stored budget of set (GATE-19); want nil: absent.
func checkBudget(t *testing.T, g *gate.Gate, set int64, want *lim.Bucket) {
	t.Helper()
	got, ok := gate.Budget(g, set)
	switch {
	case want == nil && ok:
		t.Errorf("Budget(set %d) = %+v, want absent", set, got)
	case want != nil && !ok:
		t.Errorf("Budget(set %d) absent, want %+v", set, *want)
	case want != nil && got != *want:
		t.Errorf("Budget(set %d) = %+v, want %+v", set, got, *want)
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
		probe          []string // addresses no way holds, in sets with no budget
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
				checkBudget(t, g, g.SetOf(ip), nil)
				if s, w, ok := g.WayOf(ip); ok {
					t.Errorf("New: WayOf(%q) = %d, %d, true, want no way", ip, s, w)
				}
			}
		})
	}
}

// checkSeed is the check value's seed of GATE-18: bytes 00 01 .. 0f.
var checkSeed = gate.Seed{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}

func TestSetOf(t *testing.T) {
	// Keys from LIM-16 (h = (h*131 + byte) mod 4294967291), hashes from GATE-18.
	tests := []struct {
		clause, reason string
		seed           gate.Seed
		ip             string
		sets, want     int64
	}{
		{"GATE-13", "one set takes every key", gate.Seed{}, "10.0.0.1", 1, 0},
		{"GATE-13", "the worked example: key 97, h 9317687229460025665, set 1 of 64", gate.Seed{}, "a", 64, 1},
		{"GATE-13", "key 33 shares set 1 of 64 with key 97 under the zero seed", gate.Seed{}, "!", 64, hBang % 64},
		{"GATE-13", "empty string has key 0, which is hashed like any key", gate.Seed{}, "", 64, hEmpty % 64},
		{"GATE-13", "a leading NUL byte does not change the key, so the set", gate.Seed{}, "\x00a", 64, 1},
		{"GATE-13", "key 1086976027 mod 1<<20", gate.Seed{}, "10.0.0.1", 1 << 20, hIP % (1 << 20)},
		{"GATE-13", "h above 2^63 is read unsigned: mod MaxInt64 is h - MaxInt64", gate.Seed{}, "a", maxT, hA - maxT},
		{"GATE-13", "h below 2^63 and sets MaxInt64: the set is h", gate.Seed{}, "10.0.0.1", maxT, hIP},
		{"GATE-13", "non-ASCII hashes its UTF-8 bytes (195, 169): key 25714", gate.Seed{}, "é", maxT, hE % maxT},
		{"GATE-13", "invalid UTF-8 hashes the raw byte: key 255", gate.Seed{}, "\xff", 1 << 20, hFF % (1 << 20)},
		{"GATE-13", "FIND-2's twins are one key, so one set", gate.Seed{}, "10.23.191.7", 4096, hTwin % 4096},
		{"GATE-13", "the set is not the key mod sets (33 in 2.0)", gate.Seed{}, "a", 64, 1},
		{"GATE-18", "the check value's seed moves key 97: h 8553754279435235421", checkSeed, "a", 64, 8553754279435235421 % 64},
		{"GATE-18", "the check value's seed moves key 98: h 13144577750610334687", checkSeed, "b", maxT, 13144577750610334687 - maxT},
		{"GATE-18", "the check value's seed moves key 2422100051: h 10744028533686044677", checkSeed, "10.17.102.130", 1 << 20, 10744028533686044677 % (1 << 20)},
	}
	for _, tt := range tests {
		t.Run(tt.clause+" "+tt.reason, func(t *testing.T) {
			checkLabel(t, tt.clause, tt.reason)
			c := cfg(1, 1, 1, 1, tt.sets, 1)
			c.Seed = tt.seed
			if got := mustNew(t, c).SetOf(tt.ip); got != tt.want {
				t.Errorf("SetOf(%q) with %d sets, seed %s = %d, want %d", tt.ip, tt.sets, tt.seed, got, tt.want)
			}
		})
	}
}

func TestAdmitRelease(t *testing.T) {
	tests := []gateCase{
		// GATE-13: set = siphash(seed, key) mod sets; buckets are per key, never shared by two keys.
		{"GATE-13", "sets=1: every key gets its own way of set 0", cfg(2, 1, 10, 5, 1, 1), []int64{0}, []step{
			adm("a", t0, pass(0), 1, bkt(1, 0)),
			adm("10.0.0.1", t0, passW(0, 1), 2, bkt(1, 0)),
			adm("", t0, passW(0, 2), 3, bkt(1, 0)),
			adm("a", t0, pass(0), 4, bkt(0, 0)),
			adm("a", t0, limited(0, 10, 1), 4, bkt(0, 0)),
			adm("\xff", t0, passW(0, 3), 5, bkt(1, 0)),
		}},
		{"GATE-13", "key 97 with 64 sets lands in set 1: h 9317687229460025665 mod 64", cfg(1, 1, 10, 5, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(1), 1, bkt(0, 0)),
		}},
		{"GATE-13", "key 1086976027 with 1<<20 sets lands in set 346159: h mod 1<<20", cfg(1, 1, 10, 5, 1<<20, 1), []int64{0}, []step{
			adm("10.0.0.1", t0, pass(346159), 1, bkt(0, 0)),
		}},
		{"GATE-13", "MaxInt64 sets: non-ASCII, invalid UTF-8 and empty each get their key's hash", cfg(1, 1, 10, 5, maxT, 1), []int64{0}, []step{
			adm("é", t0, pass(hE%maxT), 1, bkt(0, 0)),
			adm("\xff", t0, pass(hFF%maxT), 2, bkt(0, 0)),
			adm("", t0, pass(hEmpty%maxT), 3, bkt(0, 0)),
		}},
		{"GATE-13", "keys 97 and 33 share set 1 of 64 (zero seed) but not a bucket", cfg(1, 1, 10, 5, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("!", t0, passW(hBang%64, 1), 2, bkt(0, 0)),
			adm("a", t0, limited(setA, 10, 1), 2, bkt(0, 0)),
		}},
		{"GATE-13", "a leading NUL byte keeps the key, so the bucket (FIND-12)", cfg(1, 1, 10, 5, maxT, 1), []int64{0}, []step{
			adm("a", t0, pass(hA%maxT), 1, bkt(0, 0)),
			adm("\x00a", t0, limited(hA%maxT, 10, 1), 1, bkt(0, 0)),
		}},
		{"GATE-13", "textual twins of FIND-2 are one key and share", cfg(1, 1, 10, 5, 4096, 1), []int64{0}, []step{
			adm("10.17.102.130", t0, pass(hTwin%4096), 1, bkt(0, 0)),
			adm("10.23.191.7", t0, limited(hTwin%4096, 10, 1), 1, bkt(0, 0)),
		}},
		{"GATE-13", "different sets do not share", cfg(1, 1, 10, 5, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("b", t0, pass(setB), 2, bkt(0, 0)),
			rel(1, "a", bkt(0, 0)),
		}},

		// GATE-4: the in-flight gate runs first and a shed touches nothing.
		{"GATE-4", "a shed leaves another address's way empty", cfg(5, 1, 1, 1, 64, 1), []int64{0, 10}, []step{
			adm("a", t0, pass(setA), 1, bkt(4, 0)),
			adm("b", t1, shed(setB), 1, nil),
		}},
		{"GATE-4", "a shed neither refills nor rewrites its own way", cfg(5, 1, 20, 1, 64, 1), []int64{0, 10}, []step{
			adm("a", t0, pass(setA), 1, bkt(4, 0)),
			adm("a", t1, shed(setA), 1, bkt(4, 0)),
			rel(0, "a", bkt(4, 0)),
			adm("a", t1, pass(setA), 1, bkt(3, 0)),
		}},
		{"GATE-4", "in-flight first: an empty bucket at maxif sheds, not limits", cfg(1, 1, 10, 1, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("a", t0, shed(setA), 1, bkt(0, 0)),
		}},
		{"GATE-4", "a shed first request does not give birth to the bucket", cfg(2, 1, 10, 1, 64, 1), []int64{0, 5, 7}, []step{
			adm("a", t0, pass(setA), 1, bkt(1, 0)),
			adm("b", t1, shed(setB), 1, nil),
			rel(0, "b", nil),
			adm("b", t2, pass(setB), 1, bkt(1, 7)),
		}},

		// GATE-5: one token per admission.
		{"GATE-5", "cap 3 gives three passes, then limited", cfg(3, 1, 100, 10, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(2, 0)),
			adm("a", t0, pass(setA), 2, bkt(1, 0)),
			adm("a", t0, pass(setA), 3, bkt(0, 0)),
			adm("a", t0, limited(setA, 100, 1), 3, bkt(0, 0)),
		}},
		{"GATE-5", "cap MaxInt64 still spends one", cfg(maxT, 1, 1, 10, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(maxT-1, 0)),
			adm("a", t0, pass(setA), 2, bkt(maxT-2, 0)),
		}},
		{"GATE-5", "refil 2 adds two per step, an admission spends one", cfg(3, 2, 10, 10, 64, 1), []int64{0, 10}, []step{
			adm("a", t0, pass(setA), 1, bkt(2, 0)),
			adm("a", t0, pass(setA), 2, bkt(1, 0)),
			adm("a", t0, pass(setA), 3, bkt(0, 0)),
			adm("a", t1, pass(setA), 4, bkt(1, 10)),
		}},

		// GATE-6: the way keeps the take's bucket on both outcomes.
		{"GATE-6", "pass keeps whole steps and the remainder (25 ticks = 2 steps)", cfg(3, 1, 10, 5, 64, 1), []int64{0, 25}, []step{
			adm("a", t0, pass(setA), 1, bkt(2, 0)),
			adm("a", t0, pass(setA), 2, bkt(1, 0)),
			adm("a", t0, pass(setA), 3, bkt(0, 0)),
			adm("a", t1, pass(setA), 4, bkt(1, 20)),
		}},
		{"GATE-14", "a refill that reaches cap is a rebirth: last = now, the remainder is not kept", cfg(2, 1, 10, 5, 64, 1), []int64{0, 25}, []step{
			adm("a", t0, pass(setA), 1, bkt(1, 0)),
			adm("a", t0, pass(setA), 2, bkt(0, 0)),
			adm("a", t1, pass(setA), 3, bkt(1, 25)),
		}},
		{"GATE-6", "limited keeps the bucket it read, one tick before the step", cfg(1, 1, 10, 5, 64, 1), []int64{0, 9, 10}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("a", t1, limited(setA, 10, 1), 1, bkt(0, 0)),
			adm("a", t2, pass(setA), 2, bkt(0, 10)),
		}},
		{"GATE-6", "clock stepping back: no refill, last unchanged", cfg(2, 1, 10, 5, 64, 1), []int64{100, 50, 109, 110}, []step{
			adm("a", t0, pass(setA), 1, bkt(1, 100)),
			adm("a", t1, pass(setA), 2, bkt(0, 100)),
			adm("a", t2, limited(setA, 10, 1), 2, bkt(0, 100)),
			adm("a", t1, limited(setA, 10, 1), 2, bkt(0, 100)),
			adm("a", t3, pass(setA), 3, bkt(0, 110)),
		}},
		{"GATE-6", "clock stepping back from 0 to MinInt64", cfg(1, 1, 1, 5, 64, 1), []int64{0, minT}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("a", t1, limited(setA, 1, 1), 1, bkt(0, 0)),
		}},
		{"GATE-6", "near MaxInt64, then a step back to MinInt64", cfg(1, 1, 1, 5, 64, 1), []int64{maxT - 1, maxT, minT}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, maxT-1)),
			adm("a", t1, pass(setA), 2, bkt(0, maxT)),
			adm("a", t1, limited(setA, 1, 1), 2, bkt(0, maxT)),
			adm("a", t2, limited(setA, 1, 1), 2, bkt(0, maxT)),
		}},
		{"GATE-6", "MinInt64 to MaxInt64: 2^64-1 steps, exact", cfg(1, 1, 1, 5, 64, 1), []int64{minT, maxT}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, minT)),
			adm("a", t1, pass(setA), 2, bkt(0, maxT)),
		}},
		{"GATE-14", "MinInt64 to MaxInt64 with ivl 2 refills to cap: reborn at MaxInt64", cfg(1, 1, 2, 5, 64, 1), []int64{minT, maxT}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, minT)),
			adm("a", t1, pass(setA), 2, bkt(0, maxT)),
		}},
		{"GATE-14", "MinInt64 to MaxInt64 with ivl MaxInt64 is two steps, full: reborn", cfg(1, 1, maxT, 5, 64, 1), []int64{minT, maxT}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, minT)),
			adm("a", t1, pass(setA), 2, bkt(0, maxT)),
		}},
		{"GATE-6", "MinInt64 to MaxInt64 with ivl MaxInt64 and cap 3: two steps keep the remainder", cfg(3, 1, maxT, 5, 64, 1), []int64{minT, maxT}, []step{
			adm("a", t0, pass(setA), 1, bkt(2, minT)),
			adm("a", t0, pass(setA), 2, bkt(1, minT)),
			adm("a", t0, pass(setA), 3, bkt(0, minT)),
			adm("a", t1, pass(setA), 4, bkt(1, maxT-1)),
		}},
		{"GATE-6", "steps*refil past int64 clamps to cap", cfg(maxT, maxT, 1, 5, 64, 1), []int64{minT, maxT}, []step{
			adm("a", t0, pass(setA), 1, bkt(maxT-1, minT)),
			adm("a", t0, pass(setA), 2, bkt(maxT-2, minT)),
			adm("a", t1, pass(setA), 3, bkt(maxT-1, maxT)),
		}},

		// GATE-7: a pass adds one in flight and carries nothing else.
		{"GATE-7", "each pass adds one until maxif", cfg(5, 1, 10, 3, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(4, 0)),
			adm("b", t0, pass(setB), 2, bkt(4, 0)),
			adm("a", t0, pass(setA), 3, bkt(3, 0)),
			adm("a", t0, shed(setA), 3, bkt(3, 0)),
		}},
		{"GATE-7", "a pass has retry 0, Retry-After 0, no response even at tick MaxInt64", cfg(1, 1, maxT, maxT, 1, maxT), []int64{maxT}, []step{
			adm("a", t0, pass(0), 1, bkt(0, maxT)),
		}},

		// GATE-8: limited keeps no in-flight place.
		{"GATE-8", "limited after a release stays at 0 and leaves the place free", cfg(1, 1, 10, 1, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			rel(0, "a", bkt(0, 0)),
			adm("a", t0, limited(setA, 10, 1), 0, bkt(0, 0)),
			adm("b", t0, pass(setB), 1, bkt(0, 0)),
		}},
		{"GATE-8", "limited requests never count towards maxif", cfg(1, 1, 10, 2, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("a", t0, limited(setA, 10, 1), 1, bkt(0, 0)),
			adm("a", t0, limited(setA, 10, 1), 1, bkt(0, 0)),
			adm("b", t0, pass(setB), 2, bkt(0, 0)),
		}},
		{"GATE-8", "tick 1 s: 10 ticks is Retry-After 10", cfg(1, 1, 10, 5, 64, sec), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("a", t0, limited(setA, 10, 10), 1, bkt(0, 0)),
		}},
		{"GATE-8", "retry ceil(1*10/3) = 4 ticks, exact ceiling", cfg(1, 3, 10, 5, 64, sec), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("a", t0, limited(setA, 4, 4), 1, bkt(0, 0)),
		}},
		{"GATE-8", "refil > ivl: retry ceil(1/3) = 1 tick", cfg(1, 3, 1, 5, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("a", t0, limited(setA, 1, 1), 1, bkt(0, 0)),
		}},
		{"GATE-8", "ivl MaxInt64 at tick 1 s: MaxInt64 ticks is MaxInt64 s exactly", cfg(1, 1, maxT, 5, 64, sec), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("a", t0, limited(setA, maxT, maxT), 1, bkt(0, 0)),
		}},
		{"GATE-8", "tick MaxInt64: 10 ticks is ceil(10*MaxInt64/1e9) s", cfg(1, 1, 10, 5, 64, maxT), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("a", t0, limited(setA, 10, 92233720369), 1, bkt(0, 0)),
		}},

		// GATE-9: a shed answers Retry-After 1.
		{"GATE-9", "shed: retry 0, Retry-After 1 at tick 1 s", cfg(1, 1, 10, 1, 64, sec), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("b", t0, shed(setB), 1, nil),
		}},
		{"GATE-9", "shed answers 1 whatever the bucket's retry and tick_nanos", cfg(1, 1, maxT, 1, 64, maxT), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("a", t0, shed(setA), 1, bkt(0, 0)),
		}},

		// GATE-10: a key's bucket is born full at its first take's tick.
		{"GATE-10", "born at the first take (5), not at New: the step ends at 15", cfg(2, 1, 10, 5, 64, 1), []int64{5, 14, 15}, []step{
			adm("a", t0, pass(setA), 1, bkt(1, 5)),
			adm("a", t0, pass(setA), 2, bkt(0, 5)),
			adm("a", t1, limited(setA, 10, 1), 2, bkt(0, 5)),
			adm("a", t2, pass(setA), 3, bkt(0, 15)),
		}},
		{"GATE-10", "each key is born at its own first take, even behind another's", cfg(2, 1, 10, 5, 64, 1), []int64{100, 3}, []step{
			adm("a", t0, pass(setA), 1, bkt(1, 100)),
			adm("b", t1, pass(setB), 2, bkt(1, 3)),
		}},
		{"GATE-10", "born at MinInt64", cfg(3, 1, 10, 5, 64, 1), []int64{minT}, []step{
			adm("a", t0, pass(setA), 1, bkt(2, minT)),
		}},
		{"GATE-10", "born at MaxInt64", cfg(3, 1, 10, 5, 64, 1), []int64{maxT}, []step{
			adm("a", t0, pass(setA), 1, bkt(2, maxT)),
		}},
		{"GATE-10", "born full with cap 1: the first take empties it", cfg(1, 1, 10, 5, 64, 1), []int64{-7}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, -7)),
		}},

		// GATE-11: release.
		{"GATE-11", "release frees the place for another address", cfg(5, 1, 10, 1, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(4, 0)),
			adm("b", t0, shed(setB), 1, nil),
			rel(0, "a", bkt(4, 0)),
			adm("b", t0, pass(setB), 1, bkt(4, 0)),
		}},
		{"GATE-11", "release on a new gate floors at 0 and touches nothing", cfg(5, 1, 10, 1, 64, 1), []int64{0}, []step{
			rel(0, "a", nil),
			rel(0, "a", nil),
			adm("a", t0, pass(setA), 1, bkt(4, 0)),
			adm("a", t0, shed(setA), 1, bkt(4, 0)),
		}},
		{"GATE-11", "extra releases after two passes floor at 0", cfg(5, 1, 10, 2, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(4, 0)),
			adm("a", t0, pass(setA), 2, bkt(3, 0)),
			rel(1, "a", bkt(3, 0)),
			rel(0, "a", bkt(3, 0)),
			rel(0, "a", bkt(3, 0)),
			adm("a", t0, pass(setA), 1, bkt(2, 0)),
			adm("a", t0, pass(setA), 2, bkt(1, 0)),
			adm("a", t0, shed(setA), 2, bkt(1, 0)),
		}},

		// GATE-12: Retry-After through the gate.
		{"GATE-12", "tick 1 ns: 10 ticks rounds up to 1 s", cfg(1, 1, 10, 5, 64, 1), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("a", t0, limited(setA, 10, 1), 1, bkt(0, 0)),
		}},
		{"GATE-12", "tick 0.1 s: 11 ticks is 1.1 s, rounded up to 2", cfg(1, 1, 11, 5, 64, sec/10), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("a", t0, limited(setA, 11, 2), 1, bkt(0, 0)),
		}},
		{"GATE-12", "tick 0.1 s: 20 ticks is exactly 2 s, not rounded up", cfg(1, 1, 20, 5, 64, sec/10), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("a", t0, limited(setA, 20, 2), 1, bkt(0, 0)),
		}},
		{"GATE-12", "tick 1e9+1 ns: 1 tick is 2 s", cfg(1, 1, 1, 5, 64, sec+1), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("a", t0, limited(setA, 1, 2), 1, bkt(0, 0)),
		}},
		{"GATE-12", "retry and tick MaxInt64 saturate at MaxInt64", cfg(1, 1, maxT, 5, 64, maxT), []int64{0}, []step{
			adm("a", t0, pass(setA), 1, bkt(0, 0)),
			adm("a", t0, limited(setA, maxT, maxT), 1, bkt(0, 0)),
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
