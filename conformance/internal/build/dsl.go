package build

import (
	"math"
	"strconv"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/model/gate"
	"github.com/limcheck/limcheck/model/lim"
	"github.com/limcheck/limcheck/oracle"
)

// The ends of the integer domains, for builders.
const (
	minI = math.MinInt64
	maxI = math.MaxInt64
	maxU = math.MaxUint64
)

// on lists the spec IDs a case checks.
func on(ids ...string) []string { return ids }

// strict returns d at level strict: its input is out of contract.
func (d Draft) strict() Draft {
	d.Level = conformance.Strict
	return d
}

// limCase returns a core lim draft.
func limCase(area, desc string, clauses []string, ops ...oracle.Op) Draft {
	return Draft{Component: oracle.Lim, Area: area, Level: conformance.Core, Clauses: clauses, Description: desc, Ops: ops}
}

// gateCase returns a core gate draft on cfg.
func gateCase(area string, cfg *oracle.Config, desc string, clauses []string, ops ...oracle.Op) Draft {
	return Draft{Component: oracle.Gate, Area: area, Level: conformance.Core, Clauses: clauses, Description: desc, Config: cfg, Ops: ops}
}

// thrCase returns a core throttle draft on cfg.
func thrCase(area string, cfg *oracle.Config, desc string, clauses []string, ops ...oracle.Op) Draft {
	return Draft{Component: oracle.Throttle, Area: area, Level: conformance.Core, Clauses: clauses, Description: desc, Config: cfg, Ops: ops}
}

// faultCase returns a core throttle_faults draft on cfg.
func faultCase(area string, cfg *oracle.Config, desc string, clauses []string, ops ...oracle.Op) Draft {
	d := thrCase(area, cfg, desc, clauses, ops...)
	d.Component = oracle.ThrottleFaults
	return d
}

// limCfg is lim_cfg's four parameters, as a take's ops carry them.
type limCfg struct{ cap, refil, ivl, maxif int64 }

// lc returns the lim config {cap, refil, ivl, maxif}.
func lc(cap, refil, ivl, maxif int64) limCfg { return limCfg{cap, refil, ivl, maxif} }

// bucketArgs is a bucket {tks, last}, as a take's ops carry it.
type bucketArgs struct{ tks, last int64 }

// bk returns the bucket {tks, last}.
func bk(tks, last int64) bucketArgs { return bucketArgs{tks, last} }

func i(v int64) oracle.Num  { return oracle.I(v) }
func u(v uint64) oracle.Num { return oracle.U(v) }

func by(s string) *oracle.Bytes {
	b := oracle.Bytes(s)
	return &b
}

// lim ops.

func cfgOp(cap, refil, ivl, maxif int64) oracle.Op {
	return oracle.Op{Kind: oracle.LimCfg, Cap: i(cap), Refil: i(refil), Ivl: i(ivl), Maxif: i(maxif)}
}

func bktNew(cap, now int64) oracle.Op {
	return oracle.Op{Kind: oracle.LimBktNew, Cap: i(cap), Now: i(now)}
}

func take(b bucketArgs, c limCfg, now, cost int64) oracle.Op {
	return oracle.Op{Kind: oracle.LimTake, Tks: i(b.tks), Last: i(b.last), Cap: i(c.cap), Refil: i(c.refil),
		Ivl: i(c.ivl), Maxif: i(c.maxif), Now: i(now), Cost: i(cost)}
}

func acq(n, maxif int64) oracle.Op { return oracle.Op{Kind: oracle.LimAcq, N: i(n), Maxif: i(maxif)} }
func rel(n int64) oracle.Op        { return oracle.Op{Kind: oracle.LimRel, N: i(n)} }
func ipKey(ip string) oracle.Op    { return oracle.Op{Kind: oracle.LimIPKey, IP: by(ip)} }
func resp(retry int64) oracle.Op   { return oracle.Op{Kind: oracle.LimResp503, Retry: i(retry)} }

// gate config and ops.

// gcfgW is a gate config: lim_cfg's parameters, sets, ways and tick_nanos,
// with the zero seed (a public seed: every gate case carries one, VEC-9).
func gcfgW(cap, refil, ivl, maxif, sets, ways, tick int64) *oracle.Config {
	return &oracle.Config{Gate: &oracle.GateConfig{Cap: i(cap), Refil: i(refil), Ivl: i(ivl), Maxif: i(maxif), Sets: i(sets), Ways: i(ways), TickNanos: i(tick),
		Seed: zeroSeed}}
}

// Seeds of the cases, as text (GATE-18): the zero seed most cases use, the
// spec's check-value seed (bytes 00 01 .. 0f) and the all-0xff seed.
const (
	zeroSeed  = "00000000000000000000000000000000"
	checkSeed = "000102030405060708090a0b0c0d0e0f"
	ffSeed    = "ffffffffffffffffffffffffffffffff"
)

// seeded returns a copy of the gate config c with the seed of text seed.
func seeded(c *oracle.Config, seed string) *oracle.Config {
	g := *c.Gate
	g.Seed = seed
	return &oracle.Config{Gate: &g}
}

// setOf is the set of ip in a gate of sets sets under seed (GATE-13,
// GATE-18): an input the builders choose keys by, computed, not an
// expectation (the model computes those). It panics on a malformed seed, a
// builder's mistake.
func setOf(seed, ip string, sets int64) int64 {
	s, err := oracle.ParseSeed(seed)
	if err != nil {
		panic(err)
	}
	return int64(gate.SipHash(s, uint64(lim.IPKey(ip))) % uint64(sets))
}

// mates returns the first n addresses prefix+"0", prefix+"1", ... whose set
// among sets under seed is the set of ip, ip excepted: keys that compete for
// ip's ways, found under the case's seed.
func mates(seed, ip string, sets int64, n int, prefix string) []string {
	want := setOf(seed, ip, sets)
	var out []string
	for j := 0; len(out) < n; j++ {
		if cand := prefix + strconv.Itoa(j); cand != ip && setOf(seed, cand, sets) == want {
			out = append(out, cand)
		}
	}
	return out
}

// gcfg is gcfgW with 4 ways, more than the cases that use it fill.
func gcfg(cap, refil, ivl, maxif, sets, tick int64) *oracle.Config {
	return gcfgW(cap, refil, ivl, maxif, sets, 4, tick)
}

func admit(ip string, now int64) oracle.Op {
	return oracle.Op{Kind: oracle.Admit, IP: by(ip), Now: i(now)}
}
func release() oracle.Op  { return oracle.Op{Kind: oracle.Release} }
func inFlight() oracle.Op { return oracle.Op{Kind: oracle.InFlight} }
func bucket(ip string, now int64) oracle.Op {
	return oracle.Op{Kind: oracle.Bucket, IP: by(ip), Now: i(now)}
}

// throttle config and ops.

// tcfg is a throttle config {threshold, window_secs, ban_secs}.
func tcfg(threshold, window, ban uint64) *oracle.Config {
	return &oracle.Config{Throttle: &oracle.ThrottleConfig{Threshold: u(threshold), WindowSecs: u(window), BanSecs: u(ban)}}
}

func check(key string, now uint64) oracle.Op {
	return oracle.Op{Kind: oracle.Check, Key: by(key), Now: u(now)}
}

// checkAny is check_any(keys, now); no keys is the empty list, not absent.
func checkAny(now uint64, keys ...string) oracle.Op {
	ks := make([]oracle.Bytes, len(keys))
	for n, k := range keys {
		ks[n] = oracle.Bytes(k)
	}
	return oracle.Op{Kind: oracle.CheckAny, Keys: ks, Now: u(now)}
}

func fail(key string, now uint64) oracle.Op {
	return oracle.Op{Kind: oracle.RecordFailure, Key: by(key), Now: u(now)}
}

func success(key string) oracle.Op { return oracle.Op{Kind: oracle.RecordSuccess, Key: by(key)} }
func reset(key string) oracle.Op   { return oracle.Op{Kind: oracle.Reset, Key: by(key)} }
func purge(now uint64) oracle.Op   { return oracle.Op{Kind: oracle.PurgeExpired, Now: u(now)} }

// faults is set_faults with the given rules (none: clear them).
func faults(rules ...oracle.Fault) oracle.Op {
	return oracle.Op{Kind: oracle.SetFaults, Faults: append([]oracle.Fault{}, rules...)}
}

// rule is a fault rule: op fails for keys, or for every key when none.
func rule(op string, keys ...string) oracle.Fault {
	f := oracle.Fault{Op: op}
	for _, k := range keys {
		f.Keys = append(f.Keys, oracle.Bytes(k))
	}
	return f
}

// fails repeats fail(key, now) for each now.
func fails(key string, nows ...uint64) []oracle.Op {
	ops := make([]oracle.Op, len(nows))
	for n, now := range nows {
		ops[n] = fail(key, now)
	}
	return ops
}

// seq concatenates op lists, for builders that mix single ops and fails.
func seq(parts ...[]oracle.Op) []oracle.Op {
	var ops []oracle.Op
	for _, p := range parts {
		ops = append(ops, p...)
	}
	return ops
}

// ops is a list of single ops, for seq.
func ops(o ...oracle.Op) []oracle.Op { return o }
