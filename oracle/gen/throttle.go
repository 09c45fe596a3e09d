package gen

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/limcheck/limcheck/oracle"
	"pgregory.net/rapid"
)

// maxThreshold is impl's largest threshold: it keeps at most 16384 stamps
// per key, and its adapter refuses more (the trace is skipped).
const maxThreshold = 1 << 14

// ThrottleConfig draws a throttle config: threshold 1..6 7 times in 8,
// else large (threshold: up to MaxUint64, past impl's 16384 about 1 time in
// 25); window_secs and ban_secs 1, small, 900, around 2^63, near
// MaxUint64 or at a power of two +-1; 1 time in 16 one field is 0, a
// config every subject refuses (THR-1, THR-6).
func ThrottleConfig() *rapid.Generator[oracle.ThrottleConfig] { return custom(genThrottleConfig) }

// genThrottleConfig is ThrottleConfig's draw.
func genThrottleConfig(t src) oracle.ThrottleConfig {
	v := []uint64{threshold(t), duration(t, "window_secs"), duration(t, "ban_secs")}
	if rare(t, "invalid throttle config", 4) {
		v[t.intRange(0, 2, "invalid field")] = 0
	}
	return oracle.ThrottleConfig{Threshold: oracle.U(v[0]), WindowSecs: oracle.U(v[1]), BanSecs: oracle.U(v[2])}
}

// threshold draws a threshold: 1..6 7 times in 8, else one of: a size
// just past a plausible fixed ring of stamps (ringSizes: the trace then
// piles failures on one key, Ops's focus), a size at a width's edge up to
// MaxUint64 (beyond impl's 16384 the trace is skipped there), 7, 64,
// 16383, 16384 or any of 7..16384.
func threshold(t src) uint64 {
	if !rare(t, "large threshold", 3) {
		return t.uint64Range(1, 6, "small threshold")
	}
	switch t.intRange(0, 4, "large threshold band") {
	case 0:
		return pick(t, "threshold past a ring", ringSizes...)
	case 1, 2:
		return max(pow2Edge(t), 1)
	case 3:
		return pick(t, "large threshold", uint64(7), 64, maxThreshold-1, maxThreshold)
	}
	return t.uint64Range(7, maxThreshold, "any threshold")
}

// ringSizes are thresholds just past the fixed rings and buffers a port
// may keep a key's stamps in (8, 16, 32, 64, 128).
// (rapid favours the first of a list: the largest first, the hardest to
// reach by piling failures).
var ringSizes = []uint64{129, 128, 127, 100, 65, 64, 63, 33, 32, 31, 17, 16, 15, 9}

// maxFocus is the largest threshold for which an Ops focuses (a trace
// of up to maxFocus+16 ops).
const maxFocus = 160

// duration draws a window or ban length >= 1.
func duration(t src, label string) uint64 {
	switch t.intRange(0, 9, label+" band") {
	case 0, 1, 2, 3, 4, 5:
		return pick(t, label, uint64(1), 2, 3, 10, 900, 900, 1<<63, math.MaxUint64-1, math.MaxUint64)
	case 6, 7, 8:
		return t.uint64Range(1, 1000, "small "+label)
	}
	return max(genUint64(t), 1)
}

// ThrottleKeys returns the throttle key pool: few keys, so that operations
// meet, among them the empty key, invalid UTF-8 (THR-17) and two long keys
// that share their first 900 bytes (longKeys: a key cut to a fixed length
// merges them).
func ThrottleKeys() []string { return slices.Clone(throttleKeys) }

// throttleKeys is what ThrottleKeys returns, built once: never write to it.
var throttleKeys = []string{"", "ip:192.0.2.1", "acct:bob", "\xff\x00", "acct:h\u00e9", "k", longKeys[0], longKeys[1]}

// longKeys are two keys of 901 bytes that differ only in their last byte:
// a port that keeps or hashes only a prefix of a key (64, 256, 512 bytes)
// takes them for one. They stay under conformance.MaxString (1 KiB).
var longKeys = [2]string{strings.Repeat("p", 900) + "1", strings.Repeat("p", 900) + "2"}

// ThrottleKey draws a key: from ThrottleKeys 15 times in 16, else any
// bytes.
func ThrottleKey() *rapid.Generator[string] { return custom(genThrottleKey) }

// genThrottleKey is ThrottleKey's draw.
func genThrottleKey(t src) string {
	if !rare(t, "key off the pool", 4) {
		return pick(t, "pool key", throttleKeys...)
	}
	return randomBytes(t, 12, "key bytes")
}

// Faults draws the rule list of a set_faults op (STORE-10): empty (no
// faults) half of the time, else 1..3 rules over every store op, each
// without keys (every key, and purge) or with 1..2 pool keys.
func Faults() *rapid.Generator[[]oracle.Fault] { return custom(genFaults) }

// genFaults is Faults' draw.
func genFaults(t src) []oracle.Fault {
	if !t.bool("faults") {
		return []oracle.Fault{}
	}
	fs := make([]oracle.Fault, t.intRange(1, 3, "fault rules"))
	for i := range fs {
		fs[i] = genFault(t)
	}
	return fs
}

// genFault draws one fault rule.
func genFault(t src) oracle.Fault {
	f := oracle.Fault{Op: pick(t, "fault op", oracle.StoreOps()...)}
	if t.bool("fault lists keys") {
		for range t.intRange(1, 2, "fault keys") {
			f.Keys = append(f.Keys, oracle.Bytes(pick(t, "fault key", throttleKeys...)))
		}
	}
	return f
}

// thrState is what a throttle Ops remembers: the config, the times of
// recent failures, the ban-untils results reported and the latest time.
type thrState struct {
	threshold   uint64
	window, ban uint64
	faults      bool
	focus       bool     // the threshold is past a plausible ring: pile failures on one key
	stamps      []uint64 // the last recorded failures' times, at most maxTimes
	failed      []string // the keys of the last recorded failures, at most maxTimes
	untils      []uint64 // the last ban-untils reported, at most maxTimes
	now         uint64
}

// newThrState reads window and ban from cfg (1 and 1 when invalid), and
// focuses when the threshold is 9..maxFocus.
func newThrState(cfg oracle.Config, faults bool) thrState {
	threshold, window, ban, err := cfg.ThrottleConfig()
	if err != nil {
		threshold, window, ban = 1, 1, 1
	}
	return thrState{threshold: threshold, window: window, ban: ban, faults: faults, focus: threshold > 8 && threshold <= maxFocus}
}

// observe records the latest time, a recorded failure's stamp and a
// reported ban-until.
func (s *thrState) observe(op oracle.Op, r oracle.Result) {
	switch op.Kind {
	case oracle.Check, oracle.CheckAny, oracle.RecordFailure, oracle.PurgeExpired:
		s.now, _ = op.Now.Uint64()
	}
	if op.Kind == oracle.RecordFailure && r.Error == "" {
		s.stamps = pushU(s.stamps, s.now)
		s.failed = append(s.failed, string(*op.Key))
		if len(s.failed) > maxTimes {
			s.failed = s.failed[1:]
		}
	}
	if r.Verdict == oracle.VerdictBanned {
		u, _ := r.Until.Uint64()
		s.untils = pushU(s.untils, u)
	}
}

// pushU appends x, keeping the last maxTimes values.
func pushU(xs []uint64, x uint64) []uint64 {
	xs = append(xs, x)
	if len(xs) > maxTimes {
		xs = xs[1:]
	}
	return xs
}

// drawThrottle draws a throttle op of kind k; a focused Ops draws
// instead, 7 times in 8, a failure of the focus key at the latest time (or
// one later), so that one key collects more failures than a fixed ring
// holds.
func (g *Ops) drawThrottle(t src, k oracle.Kind) oracle.Op {
	s := &g.thr
	if s.focus && !rare(t, "op off the focus", 3) {
		return oracle.Op{Kind: oracle.RecordFailure, Key: bytesOf(focusKey), Now: oracle.U(addSatU(s.now, t.int64Range(0, 1, "focus step")))}
	}
	switch k {
	case oracle.Check, oracle.RecordFailure:
		return oracle.Op{Kind: k, Key: bytesOf(genThrottleKey(t)), Now: oracle.U(s.time(t))}
	case oracle.CheckAny:
		return oracle.Op{Kind: k, Keys: s.keys(t), Now: oracle.U(s.time(t))}
	case oracle.RecordSuccess, oracle.Reset:
		return oracle.Op{Kind: k, Key: bytesOf(genThrottleKey(t))}
	case oracle.PurgeExpired:
		return oracle.Op{Kind: k, Now: oracle.U(s.time(t))}
	}
	return oracle.Op{Kind: oracle.SetFaults, Faults: genFaults(t)}
}

// focusKey is the key a focused Ops piles failures on.
const focusKey = "k"

// keys draws check_any's keys: 0..4 of them, repeats allowed (THR-9,
// THR-10); 1 time in 8 followed by many more (longKeyList).
func (s *thrState) keys(t src) []oracle.Bytes {
	out := make([]oracle.Bytes, t.intRange(0, 4, "keys"))
	for i := range out {
		out[i] = oracle.Bytes(genThrottleKey(t))
	}
	if rare(t, "long key list", 3) {
		return s.longKeyList(t, out)
	}
	return out
}

// keyListSizes are check_any list lengths just past where a port may look
// at only the first few keys or keep them in a fixed buffer (rapid
// favours the first of a list: the longest first).
var keyListSizes = []int{65, 100, 17, 33, 64, 32, 16, 9}

// longKeyList extends the drawn keys head to a long check_any list with
// fresh keys no other op names ("f<i>" at index i: allowed in full), and
// places one key last, or just past 8, 16, 32 or 64 keys, or anywhere
// after head: a key that failed recently half of the time, else any drawn
// key. A port that looks at only the first keys misses it.
func (s *thrState) longKeyList(t src, head []oracle.Bytes) []oracle.Bytes {
	n := pick(t, "long key list size", keyListSizes...)
	out := head
	for i := len(head); i < n; i++ {
		out = append(out, oracle.Bytes(fmt.Sprintf("f%d", i)))
	}
	at := pick(t, "key at", n-1, 64, 16, 32, 8, t.intRange(len(head), n-1, "key anywhere"))
	var k string
	if len(s.failed) > 0 && t.bool("a failed key") {
		k = pick(t, "failed key", s.failed...)
	} else {
		k = genThrottleKey(t)
	}
	out[max(min(at, n-1), len(head))] = oracle.Bytes(k)
	return out
}

// time draws a throttle time: the latest time again or +1, a step back, a
// recorded failure's window end +-1 (THR-4: window-1, window, window+1 from
// the stamp), a ban's end +-1 (THR-5: until-1, until), a stamp +-1, or an
// absolute edge (0, MaxUint64, MaxUint64-ban where ban-until saturates).
func (s *thrState) time(t src) uint64 {
	d := t.int64Range(-1, 1, "off the boundary")
	switch t.intRange(0, 11, "now from") {
	case 0, 1:
		return s.now
	case 2:
		return addSatU(s.now, 1)
	case 3:
		return addSatU(s.now, -pick(t, "step back", int64(1), 2, int64(min(s.window, math.MaxInt64))))
	case 4, 5:
		if len(s.stamps) > 0 {
			return addSatU(addU(pick(t, "stamp", s.stamps...), s.window), d)
		}
	case 6, 7:
		if len(s.untils) > 0 {
			return addSatU(pick(t, "until", s.untils...), d)
		}
	case 8:
		if len(s.stamps) > 0 {
			return addSatU(pick(t, "stamp", s.stamps...), d)
		}
	case 9:
		return addSatU(s.now, t.int64Range(2, 1000, "step ahead"))
	}
	return s.absTime(t)
}

// absTime draws an absolute time: 0, 1, around 2^63, near MaxUint64, just
// where now + ban_secs saturates, or anything.
func (s *thrState) absTime(t src) uint64 {
	if t.bool("edge time") {
		sat := math.MaxUint64 - s.ban
		return pick(t, "time edge", uint64(0), 1, 1<<63, math.MaxUint64-1, math.MaxUint64, sat, sat+1, sat-1)
	}
	return genUint64(t)
}
