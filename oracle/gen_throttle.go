package oracle

import (
	"math"

	"pgregory.net/rapid"
)

// maxThreshold is the largest threshold GenThrottleConfig draws: impl keeps
// at most 16384 stamps per key, and its adapter refuses more.
const maxThreshold = 1 << 14

// GenThrottleConfig draws a throttle config: threshold 1..6 7 times in 8,
// else up to 16384; window_secs and ban_secs 1, small, 900, around 2^63 or
// near MaxUint64; 1 time in 16 one field is 0, a config every subject
// refuses (THR-1, THR-6).
func GenThrottleConfig() *rapid.Generator[ThrottleConfig] {
	return rapid.Custom(func(t *rapid.T) ThrottleConfig {
		v := []uint64{threshold(t), duration(t, "window_secs"), duration(t, "ban_secs")}
		if rare(t, "invalid throttle config", 4) {
			v[rapid.IntRange(0, 2).Draw(t, "invalid field")] = 0
		}
		return ThrottleConfig{Threshold: U(v[0]), WindowSecs: U(v[1]), BanSecs: U(v[2])}
	})
}

// threshold draws a threshold: 1..6 7 times in 8, else 7..16384.
func threshold(t *rapid.T) uint64 {
	if !rare(t, "large threshold", 3) {
		return rapid.Uint64Range(1, 6).Draw(t, "small threshold")
	}
	if rapid.Bool().Draw(t, "threshold edge") {
		return pick(t, "large threshold", uint64(7), 64, maxThreshold-1, maxThreshold)
	}
	return rapid.Uint64Range(7, maxThreshold).Draw(t, "any threshold")
}

// duration draws a window or ban length >= 1.
func duration(t *rapid.T, label string) uint64 {
	switch rapid.IntRange(0, 9).Draw(t, label+" band") {
	case 0, 1, 2, 3, 4, 5:
		return pick(t, label, uint64(1), 2, 3, 10, 900, 900, 1<<63, math.MaxUint64-1, math.MaxUint64)
	case 6, 7, 8:
		return rapid.Uint64Range(1, 1000).Draw(t, "small "+label)
	}
	return max(GenUint64().Draw(t, "any "+label), 1)
}

// ThrottleKeys returns the throttle key pool: few keys, so that operations
// meet, among them the empty key and invalid UTF-8 (THR-17).
func ThrottleKeys() []string {
	return []string{"", "ip:192.0.2.1", "acct:bob", "\xff\x00", "acct:h\u00e9", "k"}
}

// GenThrottleKey draws a key: from ThrottleKeys 15 times in 16, else any
// bytes.
func GenThrottleKey() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		if !rare(t, "key off the pool", 4) {
			return rapid.SampledFrom(ThrottleKeys()).Draw(t, "pool key")
		}
		return string(rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, "key bytes"))
	})
}

// GenFaults draws the rule list of a set_faults op (STORE-10): empty (no
// faults) half of the time, else 1..3 rules over every store op, each
// without keys (every key, and purge) or with 1..2 pool keys.
func GenFaults() *rapid.Generator[[]Fault] {
	return rapid.Custom(func(t *rapid.T) []Fault {
		if !rapid.Bool().Draw(t, "faults") {
			return []Fault{}
		}
		return rapid.SliceOfN(genFault(), 1, 3).Draw(t, "fault rules")
	})
}

// genFault draws one fault rule.
func genFault() *rapid.Generator[Fault] {
	return rapid.Custom(func(t *rapid.T) Fault {
		f := Fault{Op: rapid.SampledFrom(StoreOps()).Draw(t, "fault op")}
		if rapid.Bool().Draw(t, "fault lists keys") {
			for _, k := range rapid.SliceOfN(rapid.SampledFrom(ThrottleKeys()), 1, 2).Draw(t, "fault keys") {
				f.Keys = append(f.Keys, Bytes(k))
			}
		}
		return f
	})
}

// thrState is what a throttle OpGen remembers: the config, the times of
// recent failures, the ban-untils results reported and the latest time.
type thrState struct {
	window, ban uint64
	faults      bool
	stamps      []uint64 // the last recorded failures' times, at most maxTimes
	untils      []uint64 // the last ban-untils reported, at most maxTimes
	now         uint64
}

// newThrState reads window and ban from cfg (1 and 1 when invalid).
func newThrState(cfg Config, faults bool) thrState {
	_, window, ban, err := cfg.ThrottleConfig()
	if err != nil {
		window, ban = 1, 1
	}
	return thrState{window: window, ban: ban, faults: faults}
}

// observe records the latest time, a recorded failure's stamp and a
// reported ban-until.
func (s *thrState) observe(op Op, r Result) {
	switch op.Kind {
	case Check, CheckAny, RecordFailure, PurgeExpired:
		s.now, _ = op.Now.Uint64()
	}
	if op.Kind == RecordFailure && r.Error == "" {
		s.stamps = pushU(s.stamps, s.now)
	}
	if r.Verdict == VerdictBanned {
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

// drawThrottle draws a throttle op of kind k.
func (g *OpGen) drawThrottle(t *rapid.T, k Kind) Op {
	s := &g.thr
	switch k {
	case Check, RecordFailure:
		return Op{Kind: k, Key: bytesOf(GenThrottleKey().Draw(t, "key")), Now: U(s.time(t))}
	case CheckAny:
		return Op{Kind: k, Keys: s.keys(t), Now: U(s.time(t))}
	case RecordSuccess, Reset:
		return Op{Kind: k, Key: bytesOf(GenThrottleKey().Draw(t, "key"))}
	case PurgeExpired:
		return Op{Kind: k, Now: U(s.time(t))}
	}
	return Op{Kind: SetFaults, Faults: GenFaults().Draw(t, "faults")}
}

// keys draws check_any's keys: 0..4 of them, repeats allowed (THR-9, THR-10).
func (s *thrState) keys(t *rapid.T) []Bytes {
	ks := rapid.SliceOfN(GenThrottleKey(), 0, 4).Draw(t, "keys")
	out := make([]Bytes, len(ks))
	for i, k := range ks {
		out[i] = Bytes(k)
	}
	return out
}

// time draws a throttle time: the latest time again or +1, a step back, a
// recorded failure's window end +-1 (THR-4: window-1, window, window+1 from
// the stamp), a ban's end +-1 (THR-5: until-1, until), a stamp +-1, or an
// absolute edge (0, MaxUint64, MaxUint64-ban where ban-until saturates).
func (s *thrState) time(t *rapid.T) uint64 {
	d := rapid.Int64Range(-1, 1).Draw(t, "off the boundary")
	switch rapid.IntRange(0, 11).Draw(t, "now from") {
	case 0, 1:
		return s.now
	case 2:
		return addSatU(s.now, 1)
	case 3:
		return addSatU(s.now, -pick(t, "step back", int64(1), 2, int64(min(s.window, math.MaxInt64))))
	case 4, 5:
		if len(s.stamps) > 0 {
			return addSatU(addU(rapid.SampledFrom(s.stamps).Draw(t, "stamp"), s.window), d)
		}
	case 6, 7:
		if len(s.untils) > 0 {
			return addSatU(rapid.SampledFrom(s.untils).Draw(t, "until"), d)
		}
	case 8:
		if len(s.stamps) > 0 {
			return addSatU(rapid.SampledFrom(s.stamps).Draw(t, "stamp"), d)
		}
	case 9:
		return addSatU(s.now, rapid.Int64Range(2, 1000).Draw(t, "step ahead"))
	}
	return s.absTime(t)
}

// absTime draws an absolute time: 0, 1, around 2^63, near MaxUint64, just
// where now + ban_secs saturates, or anything.
func (s *thrState) absTime(t *rapid.T) uint64 {
	if rapid.Bool().Draw(t, "edge time") {
		sat := math.MaxUint64 - s.ban
		return pick(t, "time edge", uint64(0), 1, 1<<63, math.MaxUint64-1, math.MaxUint64, sat, sat+1, sat-1)
	}
	return GenUint64().Draw(t, "time")
}
