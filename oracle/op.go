package oracle

import (
	"math"
	"math/bits"
)

// Component names what a trace exercises; a port states in its handshake
// which components it implements.
type Component string

// The components (spec.md): the pure functions of seed 000, the gate, the
// throttle, and the throttle over a fault-injecting store.
const (
	Lim            Component = "lim"
	Gate           Component = "gate"
	Throttle       Component = "throttle"
	ThrottleFaults Component = "throttle_faults"
)

// Components lists every component, in spec order.
func Components() []Component { return []Component{Lim, Gate, Throttle, ThrottleFaults} }

// Kind names an operation.
type Kind string

// The operations, by component. lim's are pure functions: each op carries
// every argument. gate's and throttle's act on the instance a trace builds
// from its Config.
const (
	// lim (seed 000 names).
	LimCfg     Kind = "lim_cfg"      // cap refil ivl maxif -> ok err cap refil ivl maxif
	LimBktNew  Kind = "lim_bkt_new"  // cap now -> tks last
	LimTake    Kind = "lim_take"     // tks last cap refil ivl maxif now cost -> ok retry tks last
	LimAcq     Kind = "lim_acq"      // n maxif -> ok n
	LimRel     Kind = "lim_rel"      // n -> n
	LimIPKey   Kind = "lim_ip_key"   // ip -> key
	LimResp503 Kind = "lim_resp_503" // retry -> response

	// gate.
	Admit    Kind = "admit"     // ip now -> verdict set way retry retry_after response (no way on a shed)
	Release  Kind = "release"   // -> (nothing)
	InFlight Kind = "in_flight" // -> n
	Bucket   Kind = "bucket"    // ip now -> touched tks last

	// throttle (seed 003 names).
	Check         Kind = "check"          // key now -> verdict remaining until
	CheckAny      Kind = "check_any"      // keys now -> verdict remaining until
	RecordFailure Kind = "record_failure" // key now -> verdict remaining until | error
	RecordSuccess Kind = "record_success" // key -> | error
	Reset         Kind = "reset"          // key -> | error
	PurgeExpired  Kind = "purge_expired"  // now -> count | error
	SetFaults     Kind = "set_faults"     // faults -> (throttle_faults only)
)

// Op is one operation with its arguments. Only the fields its Kind names
// are set; the rest are absent and left out of JSON.
type Op struct {
	Kind   Kind    `json:"op"`
	Tks    Num     `json:"tks,omitzero"`
	Last   Num     `json:"last,omitzero"`
	Cap    Num     `json:"cap,omitzero"`
	Refil  Num     `json:"refil,omitzero"`
	Ivl    Num     `json:"ivl,omitzero"`
	Maxif  Num     `json:"maxif,omitzero"`
	Now    Num     `json:"now,omitzero"`
	Cost   Num     `json:"cost,omitzero"`
	N      Num     `json:"n,omitzero"`
	Retry  Num     `json:"retry,omitzero"`
	IP     *Bytes  `json:"ip,omitempty"`
	Key    *Bytes  `json:"key,omitempty"`
	Keys   []Bytes `json:"keys,omitzero"` // nil: absent; empty: check_any of no key
	Faults []Fault `json:"faults,omitzero"`
}

// Fault is a fault rule of STORE-10: op fails for the listed keys, or for
// every key when Keys is empty.
type Fault struct {
	Op   string  `json:"op"`
	Keys []Bytes `json:"keys,omitempty"`
}

// Verdict strings of gate and throttle results, as spec.md names them.
const (
	VerdictPass        = "pass"
	VerdictShed        = "shed"
	VerdictLimited     = "limited"
	VerdictAllow       = "allow"
	VerdictBanned      = "banned"
	VerdictUnavailable = "unavailable"
)

// ErrorClass is the class of an error an operation reports instead of a
// result: the only classes spec.md defines.
type ErrorClass string

// The error classes.
const (
	ErrStore  ErrorClass = "store"  // a store operation failed (record_*, reset, purge_expired)
	ErrConfig ErrorClass = "config" // a config was refused (gate and throttle construction)
)

// Result is what an operation returned. Only the fields its Kind returns are
// set; a failed operation sets Error alone.
type Result struct {
	// spec VEC-18: "every integer argument and result field is a VEC-6 decimal string"
	OK         Num        `json:"ok,omitzero"`
	Err        Num        `json:"err,omitzero"`
	Cap        Num        `json:"cap,omitzero"`
	Refil      Num        `json:"refil,omitzero"`
	Ivl        Num        `json:"ivl,omitzero"`
	Maxif      Num        `json:"maxif,omitzero"`
	Retry      Num        `json:"retry,omitzero"`
	Tks        Num        `json:"tks,omitzero"`
	Last       Num        `json:"last,omitzero"`
	N          Num        `json:"n,omitzero"`
	Key        Num        `json:"key,omitzero"`
	Response   *Bytes     `json:"response,omitempty"`
	Verdict    string     `json:"verdict,omitempty"`
	Set        Num        `json:"set,omitzero"`
	Way        Num        `json:"way,omitzero"`
	RetryAfter Num        `json:"retry_after,omitzero"`
	Touched    *bool      `json:"touched,omitempty"`
	Remaining  Num        `json:"remaining,omitzero"`
	Until      Num        `json:"until,omitzero"`
	Count      Num        `json:"count,omitzero"`
	Error      ErrorClass `json:"error,omitempty"`
}

// Equal reports whether r and s are the same result: every field equal,
// Response and Touched by what they point to. It is the equality of
// Compare, and of the conformance vectors' "equals its expect exactly"
// (spec VEC-10).
func (r Result) Equal(s Result) bool {
	if !ptrEqual(r.Response, s.Response) || !ptrEqual(r.Touched, s.Touched) {
		return false
	}
	r.Response, s.Response, r.Touched, s.Touched = nil, nil, nil, nil
	return r == s
}

// ptrEqual reports whether a and b are both nil or point to equal values.
func ptrEqual[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// Config builds the instance a gate or throttle trace runs on. lim traces
// need none.
type Config struct {
	Gate     *GateConfig     `json:"gate,omitempty"`
	Throttle *ThrottleConfig `json:"throttle,omitempty"`
}

// GateConfig is a gate's config: lim_cfg's four parameters, the number of
// sets, the ways per set and the tick length in nanoseconds (all int64), and
// the seed's text form (GATE-18, VEC-9: 32 lowercase hex digits; "" is
// absent, which [Config.GateConfig] refuses). The seed stays text so that a
// malformed one survives decoding and is refused by name.
type GateConfig struct {
	Cap       Num    `json:"cap"`
	Refil     Num    `json:"refil"`
	Ivl       Num    `json:"ivl"`
	Maxif     Num    `json:"maxif"`
	Sets      Num    `json:"sets"`
	Ways      Num    `json:"ways"`
	TickNanos Num    `json:"tick_nanos"`
	Seed      string `json:"seed,omitempty"`
}

// ThrottleConfig is a throttle's config (all uint64).
type ThrottleConfig struct {
	Threshold  Num `json:"threshold"`
	WindowSecs Num `json:"window_secs"`
	BanSecs    Num `json:"ban_secs"`
}

// TableSize returns sets * ways, the number of ways of g's table, saturated
// at MaxInt64 (GATE-1: the product is exact, so a larger table is valid and
// merely huge), or 0 when either is absent or < 1.
func (g GateConfig) TableSize() int64 {
	s, ok1 := g.Sets.Int64()
	w, ok2 := g.Ways.Int64()
	if !ok1 || !ok2 || s < 1 || w < 1 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(s), uint64(w))
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lo)
}
