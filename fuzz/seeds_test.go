package fuzz

import (
	"math"

	"github.com/limcheck/limcheck/oracle"
)

// traceSeed is a named trace: a finding's counterexample (spec.md FIND-n)
// or an edge case. Each is a regression test (TestImplAgreesOnSeedTraces)
// and a seed of its component's fuzz target.
type traceSeed struct {
	name   string
	reason string
	tr     oracle.Trace
}

// Constructors of ops, for the seed tables.

func take(tks, last, cap, refil, ivl, maxif, now, cost int64) oracle.Op {
	I := oracle.I
	return oracle.Op{Kind: oracle.LimTake, Tks: I(tks), Last: I(last), Cap: I(cap), Refil: I(refil), Ivl: I(ivl), Maxif: I(maxif), Now: I(now), Cost: I(cost)}
}

func ipKey(ip string) oracle.Op { return oracle.Op{Kind: oracle.LimIPKey, IP: bs(ip)} }
func acq(n, maxif int64) oracle.Op {
	return oracle.Op{Kind: oracle.LimAcq, N: oracle.I(n), Maxif: oracle.I(maxif)}
}
func rel(n int64) oracle.Op      { return oracle.Op{Kind: oracle.LimRel, N: oracle.I(n)} }
func resp(retry int64) oracle.Op { return oracle.Op{Kind: oracle.LimResp503, Retry: oracle.I(retry)} }
func admit(ip string, now int64) oracle.Op {
	return oracle.Op{Kind: oracle.Admit, IP: bs(ip), Now: oracle.I(now)}
}
func bucket(ip string, now int64) oracle.Op {
	return oracle.Op{Kind: oracle.Bucket, IP: bs(ip), Now: oracle.I(now)}
}

var (
	release  = oracle.Op{Kind: oracle.Release}
	inFlight = oracle.Op{Kind: oracle.InFlight}
)

func check(key string, now uint64) oracle.Op {
	return oracle.Op{Kind: oracle.Check, Key: bs(key), Now: oracle.U(now)}
}
func fail(key string, now uint64) oracle.Op {
	return oracle.Op{Kind: oracle.RecordFailure, Key: bs(key), Now: oracle.U(now)}
}
func success(key string) oracle.Op { return oracle.Op{Kind: oracle.RecordSuccess, Key: bs(key)} }
func reset(key string) oracle.Op   { return oracle.Op{Kind: oracle.Reset, Key: bs(key)} }
func purge(now uint64) oracle.Op   { return oracle.Op{Kind: oracle.PurgeExpired, Now: oracle.U(now)} }
func checkAny(now uint64, keys ...string) oracle.Op {
	ks := make([]oracle.Bytes, len(keys))
	for i, k := range keys {
		ks[i] = oracle.Bytes(k)
	}
	return oracle.Op{Kind: oracle.CheckAny, Keys: ks, Now: oracle.U(now)}
}

// faults is set_faults of rules, each an op and its keys.
func faults(rules ...oracle.Fault) oracle.Op { return oracle.Op{Kind: oracle.SetFaults, Faults: rules} }
func rule(op string, keys ...string) oracle.Fault {
	f := oracle.Fault{Op: op}
	for _, k := range keys {
		f.Keys = append(f.Keys, oracle.Bytes(k))
	}
	return f
}

func bs(s string) *oracle.Bytes { b := oracle.Bytes(s); return &b }

func limTrace(ops ...oracle.Op) oracle.Trace { return oracle.Trace{Component: oracle.Lim, Ops: ops} }

func gateTraceW(cap, refil, ivl, maxif, sets, ways, tick int64, ops ...oracle.Op) oracle.Trace {
	I := oracle.I
	return oracle.Trace{Component: oracle.Gate, Ops: ops, Config: oracle.Config{Gate: &oracle.GateConfig{
		Cap: I(cap), Refil: I(refil), Ivl: I(ivl), Maxif: I(maxif), Sets: I(sets), Ways: I(ways), TickNanos: I(tick),
		Seed: fuzzSeeds[0]}}}
}

// gateTrace is gateTraceW with 2 ways.
func gateTrace(cap, refil, ivl, maxif, sets, tick int64, ops ...oracle.Op) oracle.Trace {
	return gateTraceW(cap, refil, ivl, maxif, sets, 2, tick, ops...)
}

func throttleTrace(c oracle.Component, threshold, window, ban uint64, ops ...oracle.Op) oracle.Trace {
	U := oracle.U
	return oracle.Trace{Component: c, Ops: ops, Config: oracle.Config{Throttle: &oracle.ThrottleConfig{
		Threshold: U(threshold), WindowSecs: U(window), BanSecs: U(ban)}}}
}

const (
	minI = math.MinInt64
	maxI = math.MaxInt64
	maxU = uint64(math.MaxUint64)
	sec  = 1_000_000_000
)

// limSeeds are lim's findings and edges.
func limSeeds() []traceSeed {
	return []traceSeed{
		{"find-01-too-early", "FIND-1: retry 5, a take at 5 still rejects, at 10 passes",
			limTrace(take(0, 0, 2, 2, 10, 1, 0, 1), take(0, 0, 2, 2, 10, 1, 5, 1), take(0, 0, 2, 2, 10, 1, 10, 1))},
		{"find-01-too-late", "FIND-1: retry 10, but a take at 10 passes",
			limTrace(take(0, 0, 1, 1, 10, 1, 9, 1), take(0, 0, 1, 1, 10, 1, 10, 1))},
		{"find-02-03-12-keys", "FIND-2, FIND-3, FIND-12: colliding, differing and NUL-blind keys",
			limTrace(ipKey("10.17.102.130"), ipKey("10.23.191.7"), ipKey("::1"), ipKey("0:0:0:0:0:0:0:1"), ipKey("\x00a"), ipKey("a"), ipKey(""))},
		{"find-04-cost-above-cap", "FIND-4: cost 3 > cap 2 rejects with retry 10, forever",
			limTrace(take(2, 0, 2, 1, 10, 1, 0, 3), take(2, 10, 2, 1, 10, 1, 10, 3))},
		{"find-11-lowered-cap", "FIND-11: bucket {10, 0} under cap 3, a take at -5 clamps to 3 and spends",
			limTrace(take(10, 0, 3, 1, 10, 1, -5, 1))},
		{"find-13-retry-ignores-step-back", "FIND-13: bucket {0, 100}, a take at 0 says retry 10",
			limTrace(take(0, 100, 1, 1, 10, 1, 0, 1))},
		{"edge-overflow", "LIM-1: now - last, steps * refil and steps * ivl overflow int64",
			limTrace(take(0, minI, maxI, maxI, 1, 1, maxI, maxI), take(0, minI, maxI, 2, 3, 1, maxI, 1), take(maxI, minI, maxI, maxI, maxI, maxI, maxI, 1))},
		{"edge-retry-saturates", "LIM-13: (cost - tks) * ivl / refil above MaxInt64",
			limTrace(take(0, 0, maxI, 1, maxI, 1, 0, maxI), take(0, 0, 1, 1, maxI, 1, maxI-1, 2))},
		{"edge-out-of-contract", "LIM-7: cost < 1, tks < 0, a config parameter < 1",
			limTrace(take(1, 0, 1, 1, 1, 1, 0, 0), take(1, 0, 1, 1, 1, 1, 0, minI), take(-1, 0, 1, 1, 1, 1, 5, 1),
				take(1, 0, 1, 1, 0, 1, 5, 1), take(1, 0, 1, 0, 1, 1, 5, 1), take(1, 0, 1, 1, 1, minI, 5, 1),
				oracle.Op{Kind: oracle.LimCfg, Cap: oracle.I(0), Refil: oracle.I(-1), Ivl: oracle.I(minI), Maxif: oracle.I(maxI)})},
		{"edge-acq-rel", "LIM-14, LIM-15: n < 0, maxif <= 0, n + 1 overflowing, release below 0",
			limTrace(acq(-1, 5), acq(0, 0), acq(maxI, maxI), acq(maxI-1, maxI), acq(0, minI), rel(0), rel(minI), rel(maxI))},
		{"edge-bkt-new-and-503", "LIM-6, LIM-18: extreme buckets; negative, zero and extreme retries",
			limTrace(oracle.Op{Kind: oracle.LimBktNew, Cap: oracle.I(minI), Now: oracle.I(maxI)}, resp(-1), resp(0), resp(minI), resp(maxI), resp(9), resp(10))},
	}
}

// gateSeeds are the gate's findings and edges.
func gateSeeds() []traceSeed {
	return []traceSeed{
		{"worked-example", "spec.md's worked example",
			gateTrace(2, 1, 10, 2, 64, 100_000_000, admit("a", 0), admit("a", 1), admit("b", 2), release, release, admit("a", 4), admit("a", 10), inFlight)},
		{"find-02-shared-key", "FIND-2: the second address is the first one's key and finds its bucket empty",
			gateTrace(1, 1, 10, 10, 4096, sec, admit("10.17.102.130", 0), admit("10.23.191.7", 0), bucket("10.17.102.130", 0))},
		{"find-09-global-in-flight", "FIND-9: one unreleased request sheds every other address",
			gateTrace(10, 1, 1, 1, 64, sec, admit("a", 0), admit("b", 0), release, admit("b", 0))},
		{"find-16-turns-pay", "FIND-16: a and b take turns in one way; the set's budget pays one turn, then refuses",
			gateTraceW(1, 1, 1000, 10, 1, 1, sec, admit("a", 0), admit("b", 0), admit("a", 0), admit("b", 0), bucket("a", 0), bucket("b", 0))},
		{"find-27-newcomer-waits", "FIND-27: c, never seen, waits for the budget b's turn spent; it pays again a step later",
			gateTraceW(1, 1, 1000, 10, 1, 1, sec, admit("a", 0), admit("b", 0), admit("c", 0), admit("c", 999), admit("c", 1000))},
		{"find-12-nul-twin", "FIND-12: \"\\x00a\" spends \"a\"'s token",
			gateTrace(1, 1, 10, 10, 3, sec, admit("a", 0), admit("\x00a", 0), admit("\x00\x00a", 10))},
		{"edge-retry-after-saturates", "GATE-12: retry * tick_nanos above MaxInt64",
			gateTrace(1, 1, maxI, 5, 1, maxI, admit("x", 0), admit("x", 0), admit("x", maxI))},
		{"edge-extreme-times", "LIM-1 through the gate: MinInt64 then MaxInt64, then a step back",
			gateTrace(maxI, maxI, 1, 3, 2, 1, admit("x", minI), admit("x", maxI), admit("x", minI), bucket("x", minI), bucket("x", maxI))},
		{"edge-reads", "GATE-11: release below 0; buckets untouched, held, and full at a later read",
			gateTrace(1, 1, 1, 1, 1, 1, release, inFlight, bucket("", 0), bucket("a", minI), admit("", 0), bucket("", 0), bucket("", 1), release, release, inFlight)},
		{"edge-evict-fullest", "GATE-16: the fullest way goes, ties to the lowest, the victim returns born full",
			gateTraceW(3, 1, 100, 9, 1, 2, 1, admit("a", 0), admit("a", 0), admit("b", 1), admit("c", 2), bucket("b", 2), admit("d", 2), admit("b", 3), bucket("a", 3))},
		{"edge-full-boundary", "GATE-14: one tick before full the bucket is kept, at full it is reborn",
			gateTraceW(2, 1, 10, 9, 1, 1, 1, admit("a", 0), admit("a", 0), bucket("a", 19), admit("a", 19), bucket("a", 29), bucket("a", 30), admit("a", 30))},
		{"edge-flood-one-set", "GATE-16: a flood of one set evicts its own fresh entries, not the depleted victim",
			gateTraceW(2, 1, 1000, 99, 1, 2, 1, admit("v", 0), admit("v", 0), admit("x1", 1), admit("x2", 1), admit("x3", 1), bucket("v", 1), admit("v", 1))},
		{"edge-config-sets-0", "GATE-1: sets 0 is refused", gateTrace(1, 1, 1, 1, 0, 1, admit("a", 0))},
		{"edge-config-ways-0", "GATE-1: ways 0 is refused", gateTraceW(1, 1, 1, 1, 1, 0, 1, admit("a", 0))},
		{"edge-config-tick-0", "GATE-1: tick_nanos 0 is refused", gateTrace(1, 1, 1, 1, 1, 0, admit("a", 0))},
		{"edge-config-maxif-neg", "GATE-1: maxif < 1 is refused", gateTrace(1, 1, 1, minI, 64, 1, admit("a", 0))},
	}
}

// throttleSeeds are the throttle's findings and edges, for component c.
func throttleSeeds(c oracle.Component) []traceSeed {
	return []traceSeed{
		{"find-05-counts-survive-ban", "FIND-5: config {3, 100, 10}",
			throttleTrace(c, 3, 100, 10, fail("k", 0), fail("k", 1), fail("k", 2), check("k", 12), fail("k", 12), check("k", 21), check("k", 22), check("k", 103))},
		{"find-06-allow-while-banned", "FIND-6: config {2, 100, 50}",
			throttleTrace(c, 2, 100, 50, fail("k", 0), fail("k", 1), success("k"), fail("k", 2), check("k", 2))},
		{"find-07-saturated-ban", "FIND-7: a failure at 2^64-6 bans until 2^64-1, which is not banned",
			throttleTrace(c, 1, 900, 900, fail("k", maxU-5), check("k", maxU-1), check("k", maxU))},
		{"find-08-step-back-stretches", "FIND-8: a failure at 1000 counts from 0 to 1009",
			throttleTrace(c, 2, 10, 900, fail("k", 1000), check("k", 0), check("k", 1009), check("k", 1010))},
		{"find-10-purge-then-step-back", "FIND-10: purge_expired(100) then check(5)",
			throttleTrace(c, 2, 10, 900, fail("k", 0), purge(100), check("k", 5))},
		{"edge-window-max", "THR-4: t + window computed exactly at MaxUint64",
			throttleTrace(c, 2, maxU, maxU, fail("", maxU), fail("", 0), check("", maxU), purge(maxU), checkAny(maxU, "", ""))},
		{"edge-check-any", "THR-9, THR-10: none, duplicates, banned and allow mixed",
			throttleTrace(c, 2, 900, 900, checkAny(0), fail("a", 0), fail("a", 0), fail("b", 1), checkAny(1, "a", "b", "a", "c"), checkAny(1, "b", "b"))},
		{"edge-reset-and-purge", "THR-15, THR-16: reset lifts a ban, purge counts untracked keys",
			throttleTrace(c, 1, 10, 20, fail("\xff\x00", 5), reset("\xff\x00"), check("\xff\x00", 5), fail("x", 5), purge(14), purge(15), purge(25), check("x", 25))},
		{"edge-threshold-16384", "impl's most stamps per key",
			throttleTrace(c, 1<<14, 900, 900, fail("k", 0), fail("k", 0), check("k", 0))},
		{"edge-config-zero", "THR-1: a zero field is refused", throttleTrace(c, 0, 900, 900, check("k", 0))},
	}
}

// faultSeeds are throttle_faults' edges: every store op failing.
func faultSeeds() []traceSeed {
	c := oracle.ThrottleFaults
	return []traceSeed{
		{"fault-ban-after-add", "PROP-20: a failed ban leaves the failure counted",
			throttleTrace(c, 1, 100, 100, faults(rule("ban")), fail("k", 0), faults(), check("k", 0), fail("k", 1))},
		{"fault-every-op", "STORE-1, STORE-10: each store op failing for every key",
			throttleTrace(c, 3, 100, 100, fail("k", 0), fail("k", 0),
				faults(rule("ban_until")), check("k", 1), checkAny(1, "k"), faults(rule("count")), check("k", 1),
				faults(rule("add_failure")), fail("k", 1), faults(rule("ban")), fail("k", 1), check("k", 1),
				faults(rule("clear_failures")), success("k"), faults(rule("clear")), reset("k"),
				faults(rule("purge")), purge(500), faults(), check("k", 1), purge(500))},
		{"fault-key-lists", "STORE-10: rules with keys fail only their keys; purge only matches rules without keys",
			throttleTrace(c, 1, 100, 100, faults(rule("add_failure", "a", ""), rule("purge", "a")), fail("a", 0), fail("", 0), fail("b", 0),
				purge(1000), faults(rule("ban_until", "b")), checkAny(0, "a", "b"), check("a", 0))},
	}
}

// traceSeeds are every trace seed, by fuzz target.
func traceSeeds() map[string][]traceSeed {
	return map[string][]traceSeed{
		"FuzzLim":            limSeeds(),
		"FuzzGate":           gateSeeds(),
		"FuzzThrottle":       throttleSeeds(oracle.Throttle),
		"FuzzThrottleFaults": append(throttleSeeds(oracle.ThrottleFaults), faultSeeds()...),
	}
}

// ipSeeds are FuzzIPKey's seeds: FIND-2, FIND-3 and FIND-12's inputs, the
// empty string, invalid UTF-8, and long strings.
func ipSeeds() map[string]string {
	return map[string]string{
		"find-02-a": "10.17.102.130", "find-02-b": "10.23.191.7",
		"find-03-a": "::1", "find-03-b": "0:0:0:0:0:0:0:1",
		"find-12-a": "a", "find-12-b": "\x00a",
		"empty": "", "invalid-utf8": "\xff\xfe\xc3\x28", "nul": "\x00",
		"long-ff": string(make64('\xff')), "non-ascii": "h\u00e9llo \u65e5\u672c",
	}
}

func make64(b byte) []byte {
	out := make([]byte, 64)
	for i := range out {
		out[i] = b
	}
	return out
}

// respSeeds are FuzzResp503's seeds: the sign, the ends, and where the
// decimal form gains a digit.
func respSeeds() map[string]int64 {
	return map[string]int64{
		"zero": 0, "one": 1, "minus-one": -1, "min": minI, "max": maxI,
		"nine": 9, "ten": 10, "e18-minus-1": 999_999_999_999_999_999, "e18": 1_000_000_000_000_000_000,
	}
}
