package gen

import (
	"math"

	"github.com/limcheck/limcheck/model/gate"
	"github.com/limcheck/limcheck/model/lim"
	"github.com/limcheck/limcheck/oracle"
)

// A bulk run (drawBulk) is where a gate trace reaches the widths a port
// can get wrong and a 64-op trace never does: 1 gate trace in 16 opens with n
// admits at one time, every one a pass, of k keys of one set, then an
// in_flight read, and goes on as any trace. Its config is rewritten so
// that each admit passes: maxif, cap and ways at least what the run needs
// (maxif at n-1 to n+1 or MaxInt64, so that the last admit or the next one
// sheds), sets at most 64 when k > 4 (finding k keys of one set costs
// about k*sets hashes). So:
//
//   - keys per set: n = k of 17 or 65 (past a fixed array of 16 or 64
//     ways), half of the runs (no more keys: the model's admit of a new
//     key reads every way of its set, so k keys cost k^2 reads);
//   - passes in flight without a release: 257 or 258 (past a uint8
//     count) of 1 to 4 keys, and, 1 bulk run in 1024 (1 gate trace in
//     16,384), 65,537 or 65,538 (past a uint16 count: the only traces of
//     more than a few hundred ops, each about as many ops as the mutant
//     matrix's whole fuzz budget);
//   - keys in the table: 1 bulk run in 16 of the rest (1 gate trace in
//     256) is a table run (drawTableRun) of 1,025 or 1,026 keys, past a
//     table kept in an arena of 1024 ways;
//   - the bits of the keys of one set: the first keys differ from the
//     first only above bit 16, only in the top byte, and only in the low
//     16 bits (bulkKeys), where a port that keeps a key's tag in fewer
//     bits, or in a float, takes one key for another.
//
// Its draws come from the trace's side source, so that no other trace
// changes; a run costs no draw per op.

// bulkSizes are a bulk run's admits: past 16, 64 and 256 (a uint8 count
// wraps at 256: 257 and 258 cross it by one and two).
var bulkSizes = []int{17, 65, 257, 258}

// tableRunSizes are a table run's keys: past an arena of 1024 ways by one
// and two.
var tableRunSizes = []int{1025, 1026}

// drawBulk draws whether a gate trace on g opens with a bulk run, and the
// run's ops: none 15 times in 16, and for a config the gate refuses. It
// rewrites g so that every admit of the run passes.
func drawBulk(t src, g *oracle.GateConfig) []oracle.Op {
	n := drawBulkSize(t)
	if n == 0 {
		return nil
	}
	cap, refil, ivl, maxif, sets, ways, tick, err := oracle.Config{Gate: g}.GateConfig()
	seed, serr := oracle.Config{Gate: g}.GateSeed()
	if err != nil || serr != nil || min(cap, refil, ivl, maxif, sets, ways, tick) < 1 {
		return nil // refused (GATE-1): no op runs
	}
	if n == tableRunSizes[0] || n == tableRunSizes[1] {
		return drawTableRun(t, g, seed, n)
	}
	k := n
	if n > 65 { // the model's admit of a new key reads every way of its set: k keys cost k^2 reads
		k = t.intRange(1, 4, "bulk keys")
	}
	if k > 4 && sets > 64 {
		sets = pick(t, "bulk sets", int64(1), 2, 3, 64)
	}
	ips := bulkKeys(seed, sets, uint32(t.uint64Range(0, uint64(lim.KeyPrime-1), "bulk first key")), k)
	k = len(ips) // fewer when the set is too rare to find k keys of it cheaply
	need := int64((n + k - 1) / k)
	cap = max(cap, need+pick(t, "bulk cap over need", int64(0), 1, math.MaxInt64-need))
	ways = max(ways, int64(k)+pick(t, "bulk ways over keys", int64(0), 1, int64(k)))
	maxif = max(maxif, pick(t, "bulk maxif", int64(n-1), int64(n), int64(n+1), math.MaxInt64))
	g.Cap, g.Maxif, g.Sets, g.Ways = oracle.I(cap), oracle.I(maxif), oracle.I(sets), oracle.I(ways)
	now := oracle.I(absInt64Time(t))
	ptrs := make([]*oracle.Bytes, k)
	for i, ip := range ips {
		ptrs[i] = bytesOf(ip)
	}
	ops := make([]oracle.Op, n, n+1)
	for i := range ops {
		ops[i] = oracle.Op{Kind: oracle.Admit, IP: ptrs[i%k], Now: now}
	}
	return append(ops, oracle.Op{Kind: oracle.InFlight})
}

// drawBulkSize draws whether a gate trace opens with a bulk run, and its
// admits: 0 (none) 15 times in 16, else one of bulkSizes, or 1 time in
// 1024 2^16+1 or 2^16+2, or 1 time in 16 of the rest a table run's (one of
// tableRunSizes).
func drawBulkSize(t src) int {
	if !rare(t, "bulk run", 4) {
		return 0
	}
	n := pick(t, "bulk admits", bulkSizes...)
	switch {
	case rare(t, "bulk past 2^16", 10):
		n = 1<<16 + t.intRange(1, 2, "bulk past 2^16 by")
	case rare(t, "table run", 4):
		n = pick(t, "table run keys", tableRunSizes...)
	}
	return n
}

// drawTableRun returns a table run of n admits at one time, each of its own
// key and each a pass, then a read of the last key's bucket and an in_flight
// read, and rewrites g for it: a table of 64 sets of 32 ways, 256 of 8 or
// 1024 of 2 (2048 ways, twice the keys: the model's admit reads the ways of
// one set, so a run in few ways per set costs n*ways reads, where one set
// would cost n^2), keys placed so that no set holds more than its ways (no
// eviction: every key stays live), cap at least 1 and maxif at least n. A
// port that keeps at most 1024 ways in all places the 1,025th key and
// drops it, and its bucket read finds none.
func drawTableRun(t src, g *oracle.GateConfig, seed gate.Seed, n int) []oracle.Op {
	sets := pick(t, "table run sets", int64(64), 256, 1024)
	ways := 2048 / sets
	maxif := pick(t, "table run maxif", int64(n), int64(n+1), math.MaxInt64)
	g.Sets, g.Ways = oracle.I(sets), oracle.I(ways)
	g.Maxif = oracle.I(max(i64Of(g.Maxif), maxif))
	now := oracle.I(absInt64Time(t))
	k := uint32(t.uint64Range(0, uint64(lim.KeyPrime-1), "table run first key"))
	held := make([]int64, sets)
	ops := make([]oracle.Op, 0, n+2)
	for len(ops) < n {
		k = (k + 1) % uint32(lim.KeyPrime)
		s := gate.SipHash(seed, uint64(k)) % uint64(sets)
		if held[s] == ways {
			continue // the set is full: the key would evict
		}
		held[s]++
		ops = append(ops, oracle.Op{Kind: oracle.Admit, IP: bytesOf(ipOfKey(k)), Now: now})
	}
	return append(ops, oracle.Op{Kind: oracle.Bucket, IP: ops[n-1].IP, Now: now}, oracle.Op{Kind: oracle.InFlight})
}

// bulkKeys returns up to n addresses whose LIM-16 keys are distinct and in
// the set of key k0 among sets under seed (GATE-13): k0 first, then one key
// that differs from it only above bit 16, one only in the top byte (bit 31
// first: each side of 2^31, where an int32 turns negative), one only in the
// low 16 bits, then more of the low kind and of the high kind in turn. It
// hashes at most 64*n + 1024 candidates, so it may return fewer.
func bulkKeys(seed gate.Seed, sets int64, k0 uint32, n int) []string {
	k0 = min(k0, uint32(lim.KeyPrime-1))
	setOf := func(k uint32) uint64 { return gate.SipHash(seed, uint64(k)) % uint64(sets) }
	want := setOf(k0)
	keys := []uint32{k0}
	seen := map[uint32]bool{k0: true}
	tries := 64*n + 1024
	// kinds[i](m) is the m-th candidate of a kind, m = 1, 2, ...; 0 when
	// the kind has no more.
	kinds := []func(m uint32) uint32{
		func(m uint32) uint32 { return k0 ^ m<<16 },        // above bit 16
		func(m uint32) uint32 { return k0 ^ (m^0x80)<<24 }, // the top byte, bit 31 alone first
		func(m uint32) uint32 { return k0 ^ m },            // the low 16 bits
	}
	limits := []uint32{1<<16 - 1, 255, 1<<16 - 1}
	ms := make([]uint32, len(kinds))
	find := func(i int) bool {
		for ms[i] < limits[i] && tries > 0 && len(keys) < n {
			ms[i]++
			tries--
			c := kinds[i](ms[i])
			if c != k0 && int64(c) < lim.KeyPrime && !seen[c] && setOf(c) == want {
				keys, seen[c] = append(keys, c), true
				return true
			}
		}
		return false
	}
	for i := range kinds {
		find(i)
	}
	for len(keys) < n {
		if lo, hi := find(2), find(0); !lo && !hi {
			break
		}
	}
	ips := make([]string, len(keys))
	for i, k := range keys {
		ips[i] = ipOfKey(k)
	}
	return ips
}

// ipOfKey returns an address whose LIM-16 key is k (k < KeyPrime): the
// base-131 digits of k, most significant first, as bytes (0..130): the
// hash of those bytes is k itself, as 131^5 > 2^32 and no step reaches the
// modulus. The key 0 is the empty string's.
func ipOfKey(k uint32) string {
	var b []byte
	for v := uint64(k); v > 0; v /= uint64(lim.KeyMul) {
		b = append(b, byte(v%uint64(lim.KeyMul)))
	}
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// A failure run (drawFailureRun) is the throttle's bulk run: 1 throttle
// trace in 32 (throttle_faults too) opens with 257 or 258 failures of the
// empty key at one time, past a count kept in 8 bits (the 256th failure of a
// window wraps it to 0), under a threshold rewritten to 256, 257, 258 or
// impl's largest, so that the 256th failure is where a narrow count bans
// too late or reports what remains wrongly. Its draws come from the
// trace's side source, as a bulk run's.

// failureRunSizes are a failure run's failures: past 255 by one and two.
var failureRunSizes = []int{257, 258}

// drawFailureRun draws whether a throttle trace on c opens with a failure
// run, and its ops: none 31 times in 32, and for a config every subject
// refuses. It rewrites c's threshold.
func drawFailureRun(t src, c *oracle.ThrottleConfig) []oracle.Op {
	if !rare(t, "failure run", 5) {
		return nil
	}
	n := pick(t, "failure run size", failureRunSizes...)
	if _, _, _, err := (oracle.Config{Throttle: c}).ThrottleConfig(); err != nil {
		return nil // refused (THR-1): no op runs
	}
	c.Threshold = oracle.U(pick(t, "failure run threshold", uint64(256), 257, 258, maxThreshold))
	key := bytesOf("") // the simplest key: shrinking has no key of 256 ops to simplify one at a time
	now := oracle.U(pick(t, "failure run now", uint64(0), 1, genUint64(t)))
	ops := make([]oracle.Op, n)
	for i := range ops {
		ops[i] = oracle.Op{Kind: oracle.RecordFailure, Key: key, Now: now}
	}
	return ops
}

// A drain run (drawDrainRun) is where a bucket read meets a bucket that
// refilled whole steps since its last take but is not full, which a read
// at whole steps after an admit rarely does (the key must have taken
// more than a step refills): 1 gate trace in 32 without a bulk run opens
// with 2 to 4 passing admits of one address at one time, then a bucket
// read of it 1 step (or, with 3 or 4 admits, 2 steps) later, under a
// refil rewritten to 1 and a cap and maxif at least the admits. A port
// that reports the bucket refilled at the read's now, not as stored
// (DEC-30), differs there. Half of the runs then evict at the read's now,
// in a table rewritten to one set of one way with cap the admits: a second
// address evicts the drained one, whose refill makes the eviction cheaper
// than cap minus its stored tokens (GATE-16), and the first address
// evicts it back, which the budget (GATE-19) allows only when the first
// eviction was charged the refilled tokens. Its draws come from the
// trace's side source.
func drawDrainRun(t src, g *oracle.GateConfig) []oracle.Op {
	if !rare(t, "drain run", 5) {
		return nil
	}
	k := t.intRange(2, 4, "drain admits")
	steps := int64(t.intRange(1, k-1, "drain read steps"))
	cap, _, ivl, maxif, sets, ways, tick, err := oracle.Config{Gate: g}.GateConfig()
	if _, serr := (oracle.Config{Gate: g}).GateSeed(); err != nil || serr != nil || min(cap, ivl, maxif, sets, ways, tick) < 1 {
		return nil // refused (GATE-1): no op runs
	}
	evict := t.bool("drain then evict")
	g.Refil = oracle.I(1)
	g.Cap = oracle.I(max(cap, int64(k)+pick(t, "drain cap over admits", int64(0), 1, 2)))
	g.Maxif = oracle.I(max(maxif, int64(k)+2))
	if evict {
		g.Cap, g.Sets, g.Ways = oracle.I(int64(k)), oracle.I(1), oracle.I(1)
	}
	now := pick(t, "drain now", int64(0), 1, 1<<40)
	read := now + ivl*steps
	if ivl > (math.MaxInt64-now)/steps {
		read = math.MaxInt64
	}
	ip := bytesOf(pick(t, "drain ip", "10.0.0.1", "", "::1"))
	ops := make([]oracle.Op, k, k+3)
	for i := range ops {
		ops[i] = oracle.Op{Kind: oracle.Admit, IP: ip, Now: oracle.I(now)}
	}
	ops = append(ops, oracle.Op{Kind: oracle.Bucket, IP: ip, Now: oracle.I(read)})
	if evict {
		ops = append(ops, oracle.Op{Kind: oracle.Admit, IP: bytesOf("10.0.0.2"), Now: oracle.I(read)}, oracle.Op{Kind: oracle.Admit, IP: ip, Now: oracle.I(read)})
	}
	return ops
}

// A rebirth run (drawRebornRun) is where a set's budget is full at a
// time off its whole steps, so that GATE-19 gives the eviction then a
// budget born again at that time, not the stored one refilled (whose
// last stays on a whole step of the earlier one): 1 gate trace in 32
// without a bulk or drain run opens with, in one set of one way under
// cap 1 and refil 1 and an ivl of at least 2, a and b at t0 (b evicts a:
// the budget is born and pays), a at t0+ivl+1 (b's bucket is full: its
// way behaves as empty), b then (it evicts a: the budget, full again, is
// born again at that time and pays), and a at t0+2*ivl (its eviction of b
// finds the budget empty; a budget refilled, not born again, has one
// token). Its draws come from the trace's side source.
func drawRebornRun(t src, g *oracle.GateConfig) []oracle.Op {
	if !rare(t, "rebirth run", 5) {
		return nil
	}
	_, _, ivl, maxif, sets, ways, tick, err := oracle.Config{Gate: g}.GateConfig()
	if _, serr := (oracle.Config{Gate: g}).GateSeed(); err != nil || serr != nil || min(ivl, maxif, sets, ways, tick) < 1 {
		return nil // refused (GATE-1): no op runs
	}
	ivl = min(max(ivl, 2), 1<<40)
	g.Cap, g.Refil, g.Ivl, g.Sets, g.Ways = oracle.I(1), oracle.I(1), oracle.I(ivl), oracle.I(1), oracle.I(1)
	g.Maxif = oracle.I(max(maxif, 5))
	t0 := pick(t, "rebirth t0", int64(0), 1, 1<<40)
	a, b := bytesOf(pick(t, "rebirth ip", "10.0.0.1", "", "::1")), bytesOf("10.0.0.2")
	admit := func(ip *oracle.Bytes, now int64) oracle.Op {
		return oracle.Op{Kind: oracle.Admit, IP: ip, Now: oracle.I(now)}
	}
	return []oracle.Op{admit(a, t0), admit(b, t0), admit(a, t0+ivl+1), admit(b, t0+ivl+1), admit(a, t0+2*ivl)}
}
