package gen_test

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/limcheck/limcheck/model/lim"
	"github.com/limcheck/limcheck/oracle"
	"github.com/limcheck/limcheck/oracle/gen"
	"pgregory.net/rapid"
)

// TestPropGeneratedTracesAreWellFormed checks the property that every trace
// Trace draws, of every component, runs on the model without a malformed
// op (ErrBadOp): the generators speak the oracle's vocabulary.
func TestPropGeneratedTracesAreWellFormed(t *testing.T) {
	for _, c := range oracle.Components() {
		t.Run(string(c), rapid.MakeCheck(func(t *rapid.T) {
			tr := gen.Trace(c).Draw(t, "trace")
			if _, err := oracle.Run(oracle.Model{}, tr); err != nil {
				t.Fatalf("Run(Model{}, trace) = %v, want no error", err)
			}
		}))
	}
}

// TestGenTraceSeededIsItsSeedsAndGivesTheModelsOutcome checks that
// TraceSeeded's trace depends only on the component and the seed (a
// second call draws the same trace), and that the outcome it returns is
// Run(Model{}, trace): the fuzzer compares ports with it instead of running
// the model again.
func TestGenTraceSeededIsItsSeedsAndGivesTheModelsOutcome(t *testing.T) {
	for _, c := range oracle.Components() {
		for seed := range uint64(200) {
			tr, got := gen.TraceSeeded(c, seed)
			want, err := oracle.Run(oracle.Model{}, tr)
			if err != nil {
				t.Fatalf("Run(Model{}, TraceSeeded(%s, %d)) = %v", c, seed, err)
			}
			if !reflect.DeepEqual(want, got) { // cmp is slow here: only for the report
				t.Fatalf("TraceSeeded(%s, %d)'s outcome is not the model's (-Run +TraceSeeded):\n%s", c, seed, cmp.Diff(want, got))
			}
			if again, _ := gen.TraceSeeded(c, seed); !reflect.DeepEqual(tr, again) {
				t.Fatalf("TraceSeeded(%s, %d) drew two different traces:\n%#v\n%#v", c, seed, tr, again)
			}
		}
	}
}

// TestGeneratedConfigsPastImplAreRare checks that configs past impl/'s
// limits (gate tables of more than subject.MaxGateSlots ways, 2^20; a threshold over
// 16384), which the bundled port skips, are drawn at a small rate: at most
// 1 in 16 over a fixed set of seeds. The search reaches past them, and
// must still check impl on nearly every trace.
func TestGeneratedConfigsPastImplAreRare(t *testing.T) {
	const n = 2000
	gate, thr := 0, 0
	for seed := range n {
		if gen.GateConfig().Example(seed).TableSize() > 1<<20 {
			gate++
		}
		if th, _ := gen.ThrottleConfig().Example(seed).Threshold.Uint64(); th > 1<<14 {
			thr++
		}
	}
	if gate == 0 || gate > n/16 || thr == 0 || thr > n/16 {
		t.Errorf("over %d seeds, %d gate configs have more than 2^20 ways (sets * ways) and %d throttle configs a threshold over 16384, want each 1..%d (reached, at a small rate)", n, gate, thr, n/16)
	}
}

// TestOpOfDrawsItsKind checks that OpOf(k) draws ops of kind k for every
// kind of every component.
func TestOpOfDrawsItsKind(t *testing.T) {
	for _, c := range oracle.Components() {
		g := gen.NewOps(c, gen.Config(c).Example(1))
		for _, k := range g.Kinds() {
			if op := g.OpOf(k).Example(2); op.Kind != k {
				t.Errorf("NewOps(%s).OpOf(%s) drew a %s", c, k, op.Kind)
			}
		}
	}
}

// examples is how many traces per component TestGenReachesEdges draws: the
// seeds are fixed, so the test is deterministic. It is about the depth of
// the mutant matrix's fuzz run (seed 1, 50,000 ops: about 2,100 traces of
// 21 to 28 ops on average, so about 530 of each component) and no more than
// twice it. (conformance/search's TestFuzzFindsPortsThatKeepAWidthNarrower
// runs the matrix's own traces against bugs at the bulk runs' widths.)
const examples = 600

// TestGenReachesEdges checks that Trace reaches every edge the
// generators promise, over a fixed set of seeds: the spec's boundaries and
// the structural extremes where ports cap or wrap (table sizes and
// thresholds past 16, 32 and 64 bits, long check_any lists, long keys that
// share a prefix, more failures on one key than a fixed ring holds).
func TestGenReachesEdges(t *testing.T) {
	tests := []struct {
		c        oracle.Component
		features func(oracle.Trace, oracle.Outcome) []string
		want     []string
		reason   string
	}{
		{oracle.Lim, limFeatures, []string{"chained bucket", "now = last+ivl", "now = last+ivl-1", "now = last+ivl+1",
			"now < last", "now = last", "now at MinInt64", "now at MaxInt64", "cost = cap+1", "cost < 1", "tks < 0", "tks > cap",
			"invalid config", "pass", "reject", "retry saturated", "negative retry 503", "invalid UTF-8 key", "key of 901 bytes",
			"cap past 2^16", "cap past 2^32", "ivl past 2^53"},
			"LIM-7..LIM-13: step boundaries, clock steps back, the domain's ends, out-of-contract calls"},
		{oracle.Gate, gateFeatures, []string{"config refused", "sets 1", "sets 4096", "ways 1", "pass", "shed", "limited",
			"way past 0", "a way passes to another key", "more keys than ways in a set", "FIND-2 pair",
			"untouched bucket read", "held bucket read", "held bucket read whole steps after its last", "evicts a key read refilled at that time", "admits in one set at t0, t0+ivl+1 and t0+2*ivl", "huge tick", "release below 0",
			"sets past 4096", "sets past 2^16", "sets past 2^32", "sets past 2^53", "ways past 16", "ways past 2^32",
			"table past 2^20 ways", "admit past 4096 sets", "ip of 901 bytes", "cap past 2^16", "tick past 2^32", "maxif past 2^16",
			"budget refused an eviction", "budget refused with few keys in the set", "seed 000102..0f", "seed all 0xff", "another seed",
			"17+ keys live in one set", "65+ keys live in one set", "1025+ keys live in the table", "passes in flight past 2^8", "in_flight read past 2^8",
			"keys of one set differ only above bit 16", "keys of one set differ only in the top byte",
			"keys of one set differ only in the low 16 bits", "keys of one set each side of 2^31"},
			"GATE-1..GATE-19: the verdicts, ways filled, reused and evicted, evictions the budget refuses, floods of one set under several seeds, and refused configs; " +
				"a bucket read that refilled but is not full, and its key evicted then (drain runs, DEC-30, GATE-16); a budget born again off its steps (rebirth runs, GATE-19); " +
				"the widths a port keeps narrower: keys per set and in the table, passes in flight, the bits of the keys of one set (bulk runs)"},
		{oracle.Throttle, throttleFeatures, []string{"config refused", "banned", "allow 0", "now = stamp+window-1",
			"now = stamp+window", "now = until-1", "now = until", "step back", "until saturated", "check_any of none",
			"large threshold", "empty key", "purged", "threshold past 2^16", "threshold past 2^32", "threshold past 2^53",
			"threshold past 2^63", "window past 2^32", "ban past 2^32", "17+ failures counted on one key",
			"100+ failures counted on one key", "256+ failures counted on one key", "check_any of 17+ keys", "check_any of 64+ keys", "check_any key past the 16th",
			"check_any key past the 64th", "both long keys"},
			"THR-3..THR-17: window and ban boundaries, saturation, the empty key; a count kept in 8 bits (failure runs)"},
		{oracle.ThrottleFaults, throttleFeatures, []string{"banned", "store error", "unavailable", "faults without keys",
			"faults with keys", "faults cleared", "fault on ban_until", "fault on count", "fault on add_failure", "fault on ban",
			"fault on clear_failures", "fault on clear", "fault on purge"},
			"STORE-1, STORE-10: every store op fails, with and without key lists"},
		{oracle.ThrottleFaults, throttleFeatures, []string{"17+ failures counted on one key", "256+ failures counted on one key", "check_any of 17+ keys", "both long keys"},
			"the structural extremes under faults too"},
	}
	for _, src := range traceSources {
		for _, tt := range tests {
			t.Run(src.name+"/"+string(tt.c), func(t *testing.T) {
				seen := map[string]int{}
				for seed := range examples {
					tr := src.trace(tt.c, seed)
					out, err := oracle.Run(oracle.Model{}, tr)
					if err != nil {
						t.Fatalf("Run(Model{}, %s(%s, %d)) = %v", src.name, tt.c, seed, err)
					}
					for _, f := range tt.features(tr, out) {
						seen[f]++
					}
				}
				for _, f := range tt.want {
					if seen[f] == 0 {
						t.Errorf("%s(%s) over %d seeds never reached %q (%s)", src.name, tt.c, examples, f, tt.reason)
					}
				}
				t.Logf("features reached: %v", seen)
			})
		}
	}
	t.Run("TraceSeeded/gate/past 2^16 passes in flight", reachPast2To16)
}

// reachPast2To16 checks that TraceSeeded reaches
// more than 2^16 passes in flight without a release, and reads that count,
// where a port that keeps in-flight in 16 bits wraps: 1 gate trace in
// 16,384 opens with a bulk run of 65,537 or 65,538 passes (each about as
// many ops as the mutant matrix's whole fuzz budget, which is why they are
// so rare). Among the first 2^16 seeds there are a few such traces, at
// most 1 in 4,096; their seeds are found from the side stream alone
// (BulkSize) and only they are drawn. A gate that keeps in-flight in 16
// bits runs the trace otherwise than the model.
func reachPast2To16(t *testing.T) {
	const n = 1 << 16
	var seeds []uint64
	for seed := range uint64(n) {
		if gen.BulkSize(seed) > 1<<16 {
			seeds = append(seeds, seed)
		}
	}
	if len(seeds) == 0 || len(seeds) > n/4096 {
		t.Fatalf("over %d seeds, %d open with a bulk run past 2^16 passes, want 1..%d", n, len(seeds), n/4096)
	}
	for _, seed := range seeds {
		tr, out := gen.TraceSeeded(oracle.Gate, seed)
		seen := map[string]bool{}
		for _, f := range gateFeatures(tr, out) {
			seen[f] = true
		}
		if seen["passes in flight past 2^16"] && seen["in_flight read past 2^16"] {
			t.Logf("TraceSeeded(gate, %d): %d ops, past 2^16 passes in flight and read (%d such seeds of %d)", seed, len(tr.Ops), len(seeds), n)
			got, err := oracle.Run(inflight16{}, tr)
			if err != nil || reflect.DeepEqual(got, out) {
				t.Errorf("a gate that keeps in-flight in 16 bits runs TraceSeeded(gate, %d) as the model does (err %v): the trace misses the bug", seed, err)
			}
			return
		}
	}
	t.Errorf("none of TraceSeeded(gate, %v) reached both %q and %q", seeds, "passes in flight past 2^16", "in_flight read past 2^16")
}

// inflight16 is the model, but a gate's in_flight read reports the count
// modulo 2^16, as a port that keeps it in a uint16.
type inflight16 struct{}

func (inflight16) Name() string                       { return "in-flight in 16 bits" }
func (inflight16) Implements(c oracle.Component) bool { return c == oracle.Gate }

func (inflight16) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	inst, class, err := oracle.Model{}.Open(c, cfg)
	if inst == nil {
		return nil, class, err
	}
	return inflight16Inst{inst}, class, err
}

type inflight16Inst struct{ oracle.Instance }

func (i inflight16Inst) Do(op oracle.Op) (oracle.Result, error) {
	r, err := i.Instance.Do(op)
	if op.Kind == oracle.InFlight && err == nil {
		r.N = oracle.I(i64(r.N) & (1<<16 - 1))
	}
	return r, err
}

// traceSources are the two sources of the generators' draws: rapid
// (Trace, the property tests' and state machines') and the seeded PRNG
// (TraceSeeded, the fuzzer's). Each must reach every edge.
var traceSources = []struct {
	name  string
	trace func(c oracle.Component, seed int) oracle.Trace
}{
	{"Trace", func(c oracle.Component, seed int) oracle.Trace { return gen.Trace(c).Example(seed) }},
	{"TraceSeeded", func(c oracle.Component, seed int) oracle.Trace {
		tr, _ := gen.TraceSeeded(c, uint64(seed))
		return tr
	}},
}

func i64(n oracle.Num) int64  { v, _ := n.Int64(); return v }
func u64(n oracle.Num) uint64 { v, _ := n.Uint64(); return v }

func limFeatures(tr oracle.Trace, out oracle.Outcome) []string {
	var fs []string
	var prev *oracle.Result
	for i, op := range tr.Ops {
		r := out.Results[i]
		switch op.Kind {
		case oracle.LimTake:
			fs = append(fs, takeFeatures(op, r)...)
			if prev != nil && op.Tks == prev.Tks && op.Last == prev.Last {
				fs = append(fs, "chained bucket")
			}
			prev = &out.Results[i]
		case oracle.LimResp503:
			if i64(op.Retry) < 0 {
				fs = append(fs, "negative retry 503")
			}
		case oracle.LimIPKey:
			if !utf8.ValidString(string(*op.IP)) {
				fs = append(fs, "invalid UTF-8 key")
			}
			if len(*op.IP) == 901 {
				fs = append(fs, "key of 901 bytes")
			}
		}
	}
	return fs
}

func takeFeatures(op oracle.Op, r oracle.Result) []string {
	now, last, ivl, cap := i64(op.Now), i64(op.Last), i64(op.Ivl), i64(op.Cap)
	tks, cost := i64(op.Tks), i64(op.Cost)
	var fs []string
	add := func(cond bool, f string) {
		if cond {
			fs = append(fs, f)
		}
	}
	add(i64(op.Cap) < 1 || i64(op.Refil) < 1 || ivl < 1 || i64(op.Maxif) < 1, "invalid config")
	add(ivl >= 1 && last <= math.MaxInt64-ivl-1 && now == last+ivl, "now = last+ivl")
	add(ivl >= 2 && last <= math.MaxInt64-ivl && now == last+ivl-1, "now = last+ivl-1")
	add(ivl >= 1 && last <= math.MaxInt64-ivl-1 && now == last+ivl+1, "now = last+ivl+1")
	add(now < last, "now < last")
	add(now == last, "now = last")
	add(now == math.MinInt64, "now at MinInt64")
	add(now == math.MaxInt64, "now at MaxInt64")
	add(cap < math.MaxInt64 && cost == cap+1, "cost = cap+1")
	add(cost < 1, "cost < 1")
	add(tks < 0, "tks < 0")
	add(tks > cap && cap >= 1, "tks > cap")
	add(i64(r.OK) == 1, "pass")
	add(i64(r.OK) == 0 && i64(r.Retry) > 0, "reject")
	add(i64(r.Retry) == math.MaxInt64, "retry saturated")
	add(cap > 1<<16, "cap past 2^16")
	add(cap > 1<<32, "cap past 2^32")
	add(ivl > 1<<53, "ivl past 2^53")
	return fs
}

func gateFeatures(tr oracle.Trace, out oracle.Outcome) []string {
	var fs []string
	if out.Open == oracle.ErrConfig {
		return []string{"config refused"}
	}
	g := tr.Config.Gate
	sets, ways := i64(g.Sets), i64(g.Ways)
	switch g.Seed {
	case "000102030405060708090a0b0c0d0e0f":
		fs = append(fs, "seed 000102..0f")
	case "ffffffffffffffffffffffffffffffff":
		fs = append(fs, "seed all 0xff")
	case "00000000000000000000000000000000", "8f3ac2105d7e9b64e1f0a7c35b2d9e48":
	default:
		fs = append(fs, "another seed")
	}
	for _, e := range []struct {
		ok bool
		f  string
	}{
		{sets == 1, "sets 1"}, {sets == 4096, "sets 4096"}, {ways == 1, "ways 1"}, {i64(g.TickNanos) >= 1<<62, "huge tick"},
		{sets > 4096, "sets past 4096"}, {sets > 1<<16, "sets past 2^16"}, {sets > 1<<32, "sets past 2^32"},
		{sets > 1<<53, "sets past 2^53"}, {ways > 16, "ways past 16"}, {ways > 1<<32, "ways past 2^32"},
		{g.TableSize() > 1<<20, "table past 2^20 ways"}, {i64(g.Cap) > 1<<16, "cap past 2^16"},
		{i64(g.TickNanos) > 1<<32, "tick past 2^32"}, {i64(g.Maxif) > 1<<16, "maxif past 2^16"},
	} {
		if e.ok {
			fs = append(fs, e.f)
		}
	}
	type way struct{ set, way int64 }
	holder := map[way]string{}
	turns := setTurns{}
	refilledAt := map[string]int64{} // the time a bucket read found an ip's bucket refilled, not full
	keysBySet := map[int64]map[int64]bool{}
	live := newLiveKeys()
	inflight := 0
	for i, op := range tr.Ops {
		r := out.Results[i]
		switch op.Kind {
		case oracle.InFlight:
			fs = append(fs, countPast("in_flight read", i64(r.N))...)
		case oracle.Admit:
			fs = append(fs, r.Verdict)
			ip := string(*op.IP)
			if ip == "10.17.102.130" || ip == "10.23.191.7" {
				fs = append(fs, "FIND-2 pair")
			}
			if len(ip) == 901 {
				fs = append(fs, "ip of 901 bytes")
			}
			if sets > 4096 && r.Verdict != oracle.VerdictShed {
				fs = append(fs, "admit past 4096 sets")
			}
			if r.Verdict == oracle.VerdictShed {
				continue
			}
			fs = append(fs, turns.add(i64(r.Set), i64(op.Now), i64(g.Ivl))...)
			if r.Way.IsZero() { // GATE-19: the set's budget refused the eviction
				fs = append(fs, "budget refused an eviction")
				if int64(len(keysBySet[i64(r.Set)])) < ways*2 {
					fs = append(fs, "budget refused with few keys in the set")
				}
				continue
			}
			w := way{i64(r.Set), i64(r.Way)}
			fs = append(fs, live.place(w.set, w.way, lim.IPKey(ip))...)
			if w.way > 0 {
				fs = append(fs, "way past 0")
			}
			if h, ok := holder[w]; ok && lim.IPKey(h) != lim.IPKey(ip) {
				fs = append(fs, "a way passes to another key")
				if at, ok := refilledAt[h]; ok && at == i64(op.Now) {
					fs = append(fs, "evicts a key read refilled at that time")
				}
			}
			holder[w] = ip
			if keysBySet[w.set] == nil {
				keysBySet[w.set] = map[int64]bool{}
			}
			keysBySet[w.set][lim.IPKey(ip)] = true
			if int64(len(keysBySet[w.set])) > ways {
				fs = append(fs, "more keys than ways in a set")
			}
			if r.Verdict == oracle.VerdictPass {
				inflight++
				fs = append(fs, countPast("passes in flight", int64(inflight))...)
			}
		case oracle.Release:
			if inflight == 0 {
				fs = append(fs, "release below 0")
			}
			inflight = max(inflight-1, 0)
		case oracle.Bucket:
			if *r.Touched {
				fs = append(fs, "held bucket read")
				if now, last, ivl := i64(op.Now), i64(r.Last), i64(g.Ivl); now > last && now-last >= ivl {
					fs = append(fs, "held bucket read whole steps after its last")
					refilledAt[string(*op.IP)] = now
				}
			} else {
				fs = append(fs, "untouched bucket read")
			}
		}
	}
	return fs
}

// countPast names where a count n stands past the widths a port may keep
// it in: past 2^8 and past 2^16.
func countPast(what string, n int64) []string {
	var fs []string
	if n > 1<<8 {
		fs = append(fs, what+" past 2^8")
	}
	if n > 1<<16 {
		fs = append(fs, what+" past 2^16")
	}
	return fs
}

// liveKeys follows the keys the ways of each set hold (GATE-13: a key in
// at most one way), from the admits' results.
type liveKeys struct {
	sets  map[int64]map[int64]int64 // set -> way -> key
	wayOf map[int64]int64           // key -> its way (its set is the key's)
}

func newLiveKeys() *liveKeys {
	return &liveKeys{sets: map[int64]map[int64]int64{}, wayOf: map[int64]int64{}}
}

// place records that way w of set s holds key k after an admit, and
// returns what that reaches: more keys live in the set than a fixed array
// of 16 or 64 ways holds, and, for a key new to the set, a key of it that
// differs from k only above bit 16, only in the top byte or only in the low
// 16 bits, or sits on the other side of 2^31 (LIM-16 keys are below 2^32).
func (l *liveKeys) place(s, w, k int64) []string {
	ways := l.sets[s]
	if ways == nil {
		ways = map[int64]int64{}
		l.sets[s] = ways
	}
	old, held := l.wayOf[k]
	if held && old != w {
		delete(ways, old) // GATE-15 (b): its other way is emptied
	}
	if prev, ok := ways[w]; ok && prev != k {
		delete(l.wayOf, prev)
	}
	ways[w], l.wayOf[k] = k, w
	var fs []string
	if len(ways) > 16 {
		fs = append(fs, "17+ keys live in one set")
	}
	if len(ways) > 64 {
		fs = append(fs, "65+ keys live in one set")
	}
	if len(l.wayOf) > 1024 {
		fs = append(fs, "1025+ keys live in the table")
	}
	if held {
		return fs
	}
	for _, other := range ways {
		x := uint32(k ^ other)
		switch {
		case x == 0:
		case x&0xffff == 0 && x&0xff0000 != 0:
			fs = append(fs, "keys of one set differ only above bit 16")
		case x&0xffffff == 0:
			fs = append(fs, "keys of one set differ only in the top byte")
		case x>>16 == 0:
			fs = append(fs, "keys of one set differ only in the low 16 bits")
		}
		if x>>31 == 1 {
			fs = append(fs, "keys of one set each side of 2^31")
		}
	}
	return fs
}

// setTurns are the times of the admits of each set that were not shed,
// the first 8 of each.
type setTurns map[int64][]int64

// add records an admit of set at now and reports "admits in one set at
// t0, t0+ivl+1 and t0+2*ivl" when it completes such a triple: where a
// budget full off its whole steps is born again (GATE-19).
func (st setTurns) add(set, now, ivl int64) []string {
	ts := st[set]
	var fs []string
	for _, t0 := range ts {
		if ivl >= 2 && ivl < 1<<40 && now-t0 == 2*ivl && slices.Contains(ts, t0+ivl+1) {
			fs = append(fs, "admits in one set at t0, t0+ivl+1 and t0+2*ivl")
			break
		}
	}
	if len(ts) < 8 {
		st[set] = append(ts, now)
	}
	return fs
}

func throttleFeatures(tr oracle.Trace, out oracle.Outcome) []string {
	if out.Open == oracle.ErrConfig {
		return []string{"config refused"}
	}
	c := tr.Config.Throttle
	window := u64(c.WindowSecs)
	var fs []string
	threshold := u64(c.Threshold)
	if threshold > 6 {
		fs = append(fs, "large threshold")
	}
	fs = append(fs, throttleConfigFeatures(c)...)
	long := map[string]bool{}
	var stamps, untils []uint64
	var now uint64
	for i, op := range tr.Ops {
		r := out.Results[i]
		fs = append(fs, throttleResultFeatures(op, r)...)
		if op.Key != nil && *op.Key == "" {
			fs = append(fs, "empty key")
		}
		if op.Key != nil && len(*op.Key) == 901 {
			long[string(*op.Key)] = true
		}
		if op.Kind == oracle.RecordFailure && r.Error == "" {
			fs = append(fs, countFeatures(threshold, r)...)
		}
		if !op.Now.IsZero() {
			t := u64(op.Now)
			fs = append(fs, timeFeatures(t, now, window, stamps, untils)...)
			now = t
		}
		if op.Kind == oracle.RecordFailure && r.Error == "" {
			stamps = append(stamps, now)
		}
		if r.Verdict == oracle.VerdictBanned {
			untils = append(untils, u64(r.Until))
		}
	}
	if len(long) == 2 {
		fs = append(fs, "both long keys")
	}
	return fs
}

func throttleConfigFeatures(c *oracle.ThrottleConfig) []string {
	th, w, b := u64(c.Threshold), u64(c.WindowSecs), u64(c.BanSecs)
	var fs []string
	for _, e := range []struct {
		ok bool
		f  string
	}{
		{th > 1<<16, "threshold past 2^16"}, {th > 1<<32, "threshold past 2^32"}, {th > 1<<53, "threshold past 2^53"},
		{th > 1<<63, "threshold past 2^63"}, {w > 1<<32, "window past 2^32"}, {b > 1<<32, "ban past 2^32"},
	} {
		if e.ok {
			fs = append(fs, e.f)
		}
	}
	return fs
}

// countFeatures reads how many failures a record_failure counted from its
// result: threshold - remaining when allowed, at least threshold when
// banned.
func countFeatures(threshold uint64, r oracle.Result) []string {
	n := uint64(0)
	switch r.Verdict {
	case oracle.VerdictAllow:
		n = threshold - u64(r.Remaining)
	case oracle.VerdictBanned:
		n = threshold
	}
	var fs []string
	if n >= 17 {
		fs = append(fs, "17+ failures counted on one key")
	}
	if n >= 100 {
		fs = append(fs, "100+ failures counted on one key")
	}
	if n >= 256 {
		fs = append(fs, "256+ failures counted on one key")
	}
	return fs
}

func throttleResultFeatures(op oracle.Op, r oracle.Result) []string {
	var fs []string
	switch {
	case r.Error == oracle.ErrStore:
		fs = append(fs, "store error")
	case r.Verdict == oracle.VerdictBanned && u64(r.Until) == math.MaxUint64:
		fs = append(fs, "banned", "until saturated")
	case r.Verdict != "" && r.Verdict != oracle.VerdictAllow:
		fs = append(fs, r.Verdict)
	case r.Verdict == oracle.VerdictAllow && u64(r.Remaining) == 0:
		fs = append(fs, "allow 0")
	case op.Kind == oracle.PurgeExpired && u64(r.Count) > 0:
		fs = append(fs, "purged")
	}
	if op.Kind == oracle.CheckAny && len(op.Keys) == 0 {
		fs = append(fs, "check_any of none")
	}
	if op.Kind == oracle.CheckAny {
		fs = append(fs, keyListFeatures(op.Keys)...)
	}
	return append(fs, faultFeatures(op)...)
}

// keyListFeatures reads a check_any list's length and where a key other
// than a fresh filler ("f<i>", longKeyList's) sits.
func keyListFeatures(keys []oracle.Bytes) []string {
	var fs []string
	if len(keys) >= 17 {
		fs = append(fs, "check_any of 17+ keys")
	}
	if len(keys) >= 64 {
		fs = append(fs, "check_any of 64+ keys")
	}
	for i, k := range keys {
		if string(k) == fmt.Sprintf("f%d", i) {
			continue
		}
		if i >= 16 {
			fs = append(fs, "check_any key past the 16th")
		}
		if i >= 64 {
			fs = append(fs, "check_any key past the 64th")
		}
	}
	return fs
}

func faultFeatures(op oracle.Op) []string {
	if op.Kind != oracle.SetFaults {
		return nil
	}
	if len(op.Faults) == 0 {
		return []string{"faults cleared"}
	}
	var fs []string
	for _, f := range op.Faults {
		fs = append(fs, "fault on "+f.Op)
		if len(f.Keys) == 0 {
			fs = append(fs, "faults without keys")
		} else {
			fs = append(fs, "faults with keys")
		}
	}
	return fs
}

func timeFeatures(t, prev, window uint64, stamps, untils []uint64) []string {
	var fs []string
	if t < prev {
		fs = append(fs, "step back")
	}
	for _, s := range stamps {
		if end := s + window; end >= s && end >= 1 && t == end-1 {
			fs = append(fs, "now = stamp+window-1")
		}
		if end := s + window; end >= s && t == end {
			fs = append(fs, "now = stamp+window")
		}
	}
	for _, u := range untils {
		if u >= 1 && t == u-1 {
			fs = append(fs, "now = until-1")
		}
		if t == u {
			fs = append(fs, "now = until")
		}
	}
	return fs
}

// TestGoStringIsJSON checks that %#v of the vocabulary reads as its JSON.
func TestGoStringIsJSON(t *testing.T) {
	ip := oracle.Bytes("a")
	tests := []struct {
		v      any
		want   string
		reason string
	}{
		{oracle.I(-1), "oracle.Num(-1)", "a set Num"},
		{oracle.Num{}, "oracle.Num(absent)", "an absent Num"},
		{oracle.Op{Kind: oracle.Admit, IP: &ip, Now: oracle.I(3)}, `oracle.Op{"op":"admit","now":"3","ip":"a"}`, "an op with a pointer field"},
		{oracle.Config{}, `oracle.Config{}`, "lim's empty config"},
		{oracle.Result{Verdict: "pass"}, `oracle.Result{"verdict":"pass"}`, "a result"},
	}
	for _, tt := range tests {
		if got := fmt.Sprintf("%#v", tt.v); got != tt.want {
			t.Errorf("Sprintf(%%#v, %s) = %s, want %s", tt.reason, got, tt.want)
		}
	}
}
