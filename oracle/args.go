package oracle

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/limcheck/limcheck/model/gate"
)

// dec decodes an op's arguments, keeping the first error.
type dec struct {
	op  Kind
	err error
}

func (d *dec) fail(format string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s: %s", ErrBadOp, d.op, fmt.Sprintf(format, a...))
	}
}

// i64 returns an int64 argument.
func (d *dec) i64(name string, n Num) int64 {
	v, ok := n.Int64()
	if !ok {
		d.fail("%s is %s, want an int64", name, n)
	}
	return v
}

// u64 returns a uint64 argument.
func (d *dec) u64(name string, n Num) uint64 {
	v, ok := n.Uint64()
	if !ok {
		d.fail("%s is %s, want a uint64", name, n)
	}
	return v
}

// bytes returns a byte-string argument.
func (d *dec) bytes(name string, b *Bytes) string {
	if b == nil {
		d.fail("%s is absent", name)
		return ""
	}
	return string(*b)
}

// LimArgs are the decoded arguments of a lim op; only those of its kind are set.
type LimArgs struct {
	Tks, Last, Cap, Refil, Ivl, Maxif, Now, Cost, N, Retry int64
	IP                                                     string
}

// Lim decodes the arguments of a lim op.
func (o Op) Lim() (LimArgs, error) {
	d := dec{op: o.Kind}
	var a LimArgs
	switch o.Kind {
	case LimCfg:
		a.Cap, a.Refil, a.Ivl, a.Maxif = d.i64("cap", o.Cap), d.i64("refil", o.Refil), d.i64("ivl", o.Ivl), d.i64("maxif", o.Maxif)
	case LimBktNew:
		a.Cap, a.Now = d.i64("cap", o.Cap), d.i64("now", o.Now)
	case LimTake:
		a.Tks, a.Last, a.Now, a.Cost = d.i64("tks", o.Tks), d.i64("last", o.Last), d.i64("now", o.Now), d.i64("cost", o.Cost)
		a.Cap, a.Refil, a.Ivl, a.Maxif = d.i64("cap", o.Cap), d.i64("refil", o.Refil), d.i64("ivl", o.Ivl), d.i64("maxif", o.Maxif)
	case LimAcq:
		a.N, a.Maxif = d.i64("n", o.N), d.i64("maxif", o.Maxif)
	case LimRel:
		a.N = d.i64("n", o.N)
	case LimIPKey:
		a.IP = d.bytes("ip", o.IP)
	case LimResp503:
		a.Retry = d.i64("retry", o.Retry)
	default:
		d.fail("not a lim op")
	}
	return a, d.err
}

// GateArgs are the decoded arguments of a gate op.
type GateArgs struct {
	IP  string
	Now int64
}

// Gate decodes the arguments of a gate op.
func (o Op) Gate() (GateArgs, error) {
	d := dec{op: o.Kind}
	var a GateArgs
	switch o.Kind {
	case Admit, Bucket:
		a.IP, a.Now = d.bytes("ip", o.IP), d.i64("now", o.Now)
	case Release, InFlight:
	default:
		d.fail("not a gate op")
	}
	return a, d.err
}

// ThrottleArgs are the decoded arguments of a throttle op.
type ThrottleArgs struct {
	Key    string
	Keys   []string
	Now    uint64
	Faults []Fault
}

// Throttle decodes the arguments of a throttle op; set_faults only when
// faults is true (component throttle_faults).
func (o Op) Throttle(faults bool) (ThrottleArgs, error) {
	d := dec{op: o.Kind}
	var a ThrottleArgs
	switch o.Kind {
	case Check, RecordFailure:
		a.Key, a.Now = d.bytes("key", o.Key), d.u64("now", o.Now)
	case CheckAny:
		a.Keys, a.Now = d.keys(o.Keys), d.u64("now", o.Now)
	case RecordSuccess, Reset:
		a.Key = d.bytes("key", o.Key)
	case PurgeExpired:
		a.Now = d.u64("now", o.Now)
	case SetFaults:
		a.Faults = d.faults(faults, o.Faults)
	default:
		d.fail("not a throttle op")
	}
	return a, d.err
}

// keys returns check_any's key list, which must be present (maybe empty).
func (d *dec) keys(ks []Bytes) []string {
	if ks == nil {
		d.fail("keys is absent")
	}
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// faults checks set_faults' rules: only for throttle_faults, known ops only.
func (d *dec) faults(allowed bool, fs []Fault) []Fault {
	if !allowed {
		d.fail("set_faults needs component %s", ThrottleFaults)
	}
	for _, f := range fs {
		if !knownStoreOp(f.Op) {
			d.fail("fault op %q is not a store operation", f.Op)
		}
	}
	return fs
}

// StoreOps lists the store operations of spec STORE-2..STORE-9.
func StoreOps() []string {
	return []string{"ban_until", "count", "add_failure", "ban", "clear_failures", "clear", "purge"}
}

func knownStoreOp(op string) bool {
	for _, s := range StoreOps() {
		if s == op {
			return true
		}
	}
	return false
}

// GateConfig decodes a gate config's integers, and checks its seed
// ([Config.GateSeed] returns it).
func (c Config) GateConfig() (cap, refil, ivl, maxif, sets, ways, tick int64, err error) {
	d := dec{op: "config"}
	if c.Gate == nil {
		d.fail("gate config is absent")
		return 0, 0, 0, 0, 0, 0, 0, d.err
	}
	g := c.Gate
	cap, refil, ivl, maxif = d.i64("cap", g.Cap), d.i64("refil", g.Refil), d.i64("ivl", g.Ivl), d.i64("maxif", g.Maxif)
	sets, ways, tick = d.i64("sets", g.Sets), d.i64("ways", g.Ways), d.i64("tick_nanos", g.TickNanos)
	d.seed("seed", g.Seed)
	return cap, refil, ivl, maxif, sets, ways, tick, d.err
}

// GateSeed decodes a gate config's seed (GATE-18, VEC-9).
func (c Config) GateSeed() (gate.Seed, error) {
	d := dec{op: "config"}
	if c.Gate == nil {
		d.fail("gate config is absent")
		return gate.Seed{}, d.err
	}
	return d.seed("seed", c.Gate.Seed), d.err
}

// seed returns a seed argument: 32 lowercase hex digits, the bytes in order.
func (d *dec) seed(name, text string) gate.Seed {
	s, err := ParseSeed(text)
	if err != nil {
		d.fail("%s %v", name, err)
	}
	return s
}

// ParseSeed reads a seed's text form, 32 lowercase hex digits (spec VEC-9);
// anything else, the empty (absent) text included, is an error.
func ParseSeed(text string) (gate.Seed, error) {
	// spec VEC-9: "seed a string of 32 lowercase hex digits, the seed's bytes in order"
	var s gate.Seed
	if text == "" {
		return s, errors.New("is absent, want 32 lowercase hex digits")
	}
	if len(text) != 2*len(s) || strings.ToLower(text) != text {
		return s, fmt.Errorf("is %q, want 32 lowercase hex digits", cutSeed(text))
	}
	if _, err := hex.Decode(s[:], []byte(text)); err != nil {
		return s, fmt.Errorf("is %q, want 32 lowercase hex digits", cutSeed(text))
	}
	return s, nil
}

// cutSeed cuts a seed's text for a message: at most 40 bytes.
func cutSeed(text string) string {
	if len(text) > 40 {
		return text[:40] + "..."
	}
	return text
}

// SeedText returns the text form of s: 32 lowercase hex digits.
func SeedText(s gate.Seed) string { return s.String() }

// ThrottleConfig decodes a throttle config.
func (c Config) ThrottleConfig() (threshold, window, ban uint64, err error) {
	d := dec{op: "config"}
	if c.Throttle == nil {
		d.fail("throttle config is absent")
		return 0, 0, 0, d.err
	}
	t := c.Throttle
	threshold, window, ban = d.u64("threshold", t.Threshold), d.u64("window_secs", t.WindowSecs), d.u64("ban_secs", t.BanSecs)
	return threshold, window, ban, d.err
}
