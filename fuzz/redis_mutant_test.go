//go:build !fuzzsmoke && !race

package fuzz

// Planted bugs in the Lua scripts of the Redis gate and store, run under the
// unchanged Go code through a redistest.Swap: the checks against a real
// server must catch every one. gremlins (make mutate) mutates Go, never the
// Lua, so without this nothing would show that those checks can fail.
//
// It runs without the race detector (make test's gotest runs it in the
// plain build): it checks the checks' power over Lua, and every check it
// runs is a test of its own under the detector (TestVectorsPassRedis,
// TestLinRedisPurgeIsOneStepPerPartition and the others named below),
// which would find nothing more here and made this test twice as slow.

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/impl/gate"
	ilim "github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisgate"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/limcheck/limcheck/internal/slowdown"
	"github.com/limcheck/limcheck/internal/subject"
	"github.com/limcheck/limcheck/oracle"
	"github.com/redis/rueidis"
)

// luaMutant is one planted bug: in script (a path from the module root),
// the one occurrence of old becomes new. A bug in arithLua is in both gate
// scripts the server runs (redisgate.JoinArith), and must be caught
// through each: planted in admit.lua's text alone under the Exact gate's
// checks, then in spread.lua's alone under the Spread gate's. A bug in
// storeLibLua is in every store script that compares stamps
// (redisstore.JoinLib), and must be caught through each alone.
type luaMutant struct {
	name     string // the bug, as a reviewer would name it
	script   string
	old, new string
}

const (
	arithLua   = "impl/redisgate/lua/arith.lua"
	admitLua   = "impl/redisgate/lua/admit.lua"
	spreadLua  = "impl/redisgate/lua/spread.lua"
	addLua     = "impl/throttle/redisstore/lua/add.lua"
	banLua     = "impl/throttle/redisstore/lua/ban.lua"
	purgeLua   = "impl/throttle/redisstore/lua/purge.lua"
	clearFsLua = "impl/throttle/redisstore/lua/clearfailures.lua"
	checkLua   = "impl/throttle/redisstore/lua/check.lua"
	reserveLua = "impl/throttle/redisstore/lua/reserve.lua"
	storeLib   = "impl/throttle/redisstore/lua/lib.lua"
)

// storeLibUsers are the store scripts loaded with storeLib joined in.
var storeLibUsers = []string{addLua, checkLua, banLua, purgeLua, reserveLua}

// The lt of the throttle scripts (storeLib: two big-endian uint64s compared
// by their 32-bit halves) through Lua numbers (doubles): the ecosystem's
// commonest bug, exact only below 2^53.
const (
	ltHead   = "local function lt(a, i, b, j) -- the uint64 at a[i] < the one at b[j]\n"
	ltDouble = ltHead + "  do local ah, al = struct.unpack('>I4I4', a, i); local bh, bl = struct.unpack('>I4I4', b, j); return ah * 4294967296 + al < bh * 4294967296 + bl end\n"
)

// luaMutants are the planted bugs. Equivalent ones are left out: now >
// last for now >= last at the refill (steps are 0 when equal), and the
// refill without its clamp at cap (a bucket at or past cap is full, and a
// full way's key is born again at cap, GATE-15, while eviction only ranks
// ways that are not full).
var luaMutants = []luaMutant{
	{"arith: refill steps without the borrow of x_r < last_r (LIM-9)", arithLua,
		"    if x3 < l3 or (x3 == l3 and x4 < l4) then\n      sl = sl - 1\n", "    if false then\n      sl = sl - 1\n"},
	{"arith: the refill's tokens lose their carry", arithLua,
		"if t2 >= B then t1, t2 = t1 + 1, t2 - B end", "if t2 >= B then t2 = t2 - B end"},
	{"arith: the refill's last loses its carry", arithLua,
		"if l2 >= B then l1, l2 = l1 + 1, l2 - B end", "if l2 >= B then l2 = l2 - B end"},
	{"arith: a step back of now refills by negative steps (LIM-8)", arithLua,
		"if not (x1 < l1 or (x1 == l1 and (x2 < l2 or (x2 == l2 and (x3 < l3 or (x3 == l3 and x4 < l4)))))) then -- x >= last", "if true then"},
	{"arith: an eviction charges the budget cap, not cap - tks' (GATE-19)", arithLua,
		"local k1, k2, k3, k4 = subqr(c1, c2, c3, c4, mt1, mt2, mt3, mt4)", "local k1, k2, k3, k4 = c1, c2, c3, c4"},
	{"arith: a budget full at now is refilled, not born again at now (GATE-19)", arithLua,
		"if not full then p1, p2, p3, p4, p5, p6, p7, p8 = r1, r2, r3, r4, r5, r6, a7, a8 end", "p1, p2, p3, p4, p5, p6, p7, p8 = r1, r2, r3, r4, r5, r6, a7, a8"},
	{"arith: an absent budget is born empty (GATE-19)", arithLua,
		"p1, p2, p3, p4, p5, p6, p7, p8 = c1, c2, c3, c4, n1, n2, n3, n4", "p1, p2, p3, p4, p5, p6, p7, p8 = 0, 0, 0, 0, n1, n2, n3, n4"},
	{"arith: a refusal's retry counts the whole cost, not the deficit (GATE-19)", arithLua,
		"d1, d2, d3, d4 = subqr(k1, k2, k3, k4, p1, p2, p3, p4)", "d1, d2, d3, d4 = k1, k2, k3, k4"},
	{"arith: subqr's borrow of a quotient adds refil - 1 to the remainder, not refil", arithLua,
		"r1, r2 = r1 + f1, r2 + f2 + 1", "r1, r2 = r1 + f1, r2 + f2"},
	{"arith: a take that borrows a quotient loses the borrow's carry", arithLua,
		"      if t2 < 0 then t1, t2 = t1 - 1, t2 + B end\n      t3, t4 = f1, f2", "      t3, t4 = f1, f2"},
	{"arith: the set's TTL ignores the budget (DIST-6)", arithLua,
		"    n_steps = (c1 - p1) * B + (c2 - p2) + 2\n", ""},
	{"gate: shed only past maxif (< for <=, GATE-4)", admitLua,
		"if not (nh < m1 or (nh == m1 and n - nh * B < m2)) then return {'shed'", "if nh > m1 or (nh == m1 and n - nh * B > m2) then return {'shed'"},
	{"gate: eviction takes the emptiest way, not the fullest (GATE-16)", admitLua,
		"if most_way == nil or mt1 < r1 or (mt1 == r1 and (mt2 < r2 or (mt2 == r2 and (mt3 < r3 or (mt3 == r3 and (mt4 < r4 or",
		"if most_way == nil or mt1 > r1 or (mt1 == r1 and (mt2 > r2 or (mt2 == r2 and (mt3 > r3 or (mt3 == r3 and (mt4 > r4 or"},
	{"gate: an expired lease still counts in flight (DIST-3)", admitLua,
		"n = redis.call('ZCOUNT', KEYS[1], '(' .. now_ms, '+inf') -- live leases", "n = redis.call('ZCARD', KEYS[1]) -- live leases"},
	{"gate: a new set is written without a TTL (DIST-6)", admitLua,
		"  redis.call('PEXPIRE', KEYS[2], ttl)\n", ""},
	{"gate: a new lease set is written without a TTL (DIST-6)", admitLua,
		"    redis.call('PEXPIRE', KEYS[1], lset)\n", ""},
	{"gate: a refused eviction does not store the budget's refill (GATE-19)", admitLua,
		"if paid then -- GATE-19: on both outcomes", "if paid and not d1 then"},
	{"gate: a refused eviction writes the newcomer's way (GATE-19)", admitLua,
		"if not d1 then -- GATE-19: a refused eviction writes no way", "if true then"},
	{"gate: a pass skips the set's PEXPIRE though its recorded expiry falls short (DIST-6)", admitLua,
		"expiry >= now_ms + ttl)", "expiry >= now_ms)"},
	{"spread: eviction takes the emptiest way, not the fullest (GATE-16)", spreadLua,
		"if most_way == nil or mt1 < r1 or (mt1 == r1 and (mt2 < r2 or (mt2 == r2 and (mt3 < r3 or (mt3 == r3 and (mt4 < r4 or",
		"if most_way == nil or mt1 > r1 or (mt1 == r1 and (mt2 > r2 or (mt2 == r2 and (mt3 > r3 or (mt3 == r3 and (mt4 > r4 or"},
	{"spread: a refused eviction writes the newcomer's way (GATE-19)", spreadLua,
		"if not d1 then -- GATE-19: a refused eviction writes no way", "if true then"},
	{"spread: the sweep drops a set that still carries information (DIST-6)", spreadLua,
		"if not select(7, refill(a1, a2, a3, a4, a5, a6, a7, a8, s1, s2, s3, s4, c1, c2, c3, c4)) then carries = true; break end", "if false then carries = true; break end"},
	{"spread: the sweep drops what is full at now, not since now less the margin (DIST-6)", spreadLua,
		"local s1, s2, s3, s4 = unpack('>i4I4i4I4', ARGV[6])", "local s1, s2, s3, s4 = n1, n2, n3, n4"},
	{"spread: the slab's TTL shrinks (PEXPIRE without GT, DIST-6)", spreadLua,
		"redis.call('PEXPIRE', KEYS[1], ttl, 'GT')", "redis.call('PEXPIRE', KEYS[1], ttl)"},
	{"spread: a new slab is written without a TTL (DIST-6)", spreadLua,
		"  redis.call('PEXPIRE', KEYS[1], ttl)\n", ""},
	{"spread: the PEXPIRE is skipped though the recorded expiry falls short (DIST-6)", spreadLua,
		"expiry >= now_ms + ttl)", "expiry >= now_ms)"},
	{"spread: every set of a slab shares one budget field (the wrong slab field)", spreadLua,
		"local bf = sf .. 'b'", "local bf = 'b'"},
	{"spread: the set's ways are written under the key's field, not the set's (the wrong slab field)", spreadLua,
		"fields[#fields + 1], fields[#fields + 2] = sf, v", "fields[#fields + 1], fields[#fields + 2] = key, v"},
	{"store: the fused ban needs a count past the threshold (> for >=, STORE-5)", addLua,
		"c >= threshold", "c > threshold"},
	{"store: the trim keeps k-1 stamps (PROP-17)", addLua,
		"string.sub(v, i, 8 * k)", "string.sub(v, i, 8 * k - 8)"},
	{"store: a new stamp goes first, not in order (stamps stay largest first)", addLua,
		"while i < #v and not lt(v, i, now, 1) do i = i + 8 end\n", ""},
	{"store: the fused ban overwrites a later ban-until (no max, STORE-5)", addLua,
		" and lt(v, 1, ARGV[6], 1)", ""},
	{"store: a new partition is written without a TTL (DIST-6)", addLua,
		"redis.call('PEXPIRE', KEYS[1], ARGV[7], 'NX')", "redis.call('TYPE', KEYS[1])"},
	{"store: a write shortens the partition's TTL (no GT, DIST-6)", addLua,
		"redis.call('PEXPIRE', KEYS[1], ARGV[7], 'GT') == 0", "redis.call('PEXPIRE', KEYS[1], ARGV[7]) == 0"},
	{"store: a settled reservation stays (FailReserved)", addLua,
		"if KEYS[2] then redis.call('ZREM', KEYS[2], ARGV[8]) end", ""},
	{"store: check counts stamps out of the window (THR-4)", checkLua,
		"if ARGV[2] == '' then return", "if true then return"},
	{"store: ban overwrites a later ban-until (no max, STORE-5)", banLua,
		"if lt(v, 1, ARGV[2], 1) then", "if string.sub(v, 1, 8) ~= ARGV[2] then"},
	{"store: a partition a ban creates has no TTL (DIST-6)", banLua,
		"redis.call('PEXPIRE', KEYS[1], ARGV[3], 'NX')", "redis.call('TYPE', KEYS[1])"},
	{"store: purge keeps a ban that ends at now (ban end off by one, STORE-9)", purgeLua,
		"if not lt(ARGV[1], 1, w, 1) then", "if lt(w, 1, ARGV[1], 1) then"},
	{"store: purge keeps the first stamp out of the window (STORE-9)", purgeLua,
		"w = string.sub(w, 1, j - 1)", "w = string.sub(w, 1, j + 7)"},
	{"store: purge counts a key it only trimmed (STORE-9)", purgeLua,
		"      redis.call('HSET', KEYS[1], f, w)\n", "      redis.call('HSET', KEYS[1], f, w)\n      n = n + 1\n"},
	{"store: purge ignores its cursor (one batch per partition)", purgeLua,
		"next, flat = r[1], r[2]", "flat = r[2]"},
	{"store: clear_failures untracks a banned key (STORE-6)", clearFsLua,
		"if string.sub(v, 1, 8) == string.rep('\\0', 8) then", "if true then"},
	{"store: clear_failures keeps the stamps (STORE-6)", clearFsLua,
		"  redis.call('HSET', KEYS[1], ARGV[1], string.sub(v, 1, 8))\n", ""},
	{"store: reserve lets a banned key reserve (no ban test)", reserveLua,
		"if lt(ARGV[4], 1, ban, 1) then return {c, ban, r, ''} end -- banned: now < ban-until\n", ""},
	{"store: reserve ignores the caller's held entries", reserveLua,
		"local p = r + tonumber(ARGV[6])", "local p = r"},
	{"store: reserve admits the threshold'th attempt in flight (> for >=)", reserveLua,
		"c + p >= tonumber(ARGV[5])", "c + p > tonumber(ARGV[5])"},
	{"store: reservations out of the window keep counting", reserveLua,
		"  redis.call('ZREMRANGEBYLEX', KEYS[2], '-', '(' .. string.sub(ARGV[3], 2))\n", ""},
	{"store: the scripts compare uint64s as doubles", storeLib, ltHead, ltDouble},
	{"store: the scripts compare uint64s by their high halves alone", storeLib,
		"return ah < bh or (ah == bh and al < bl)", "return ah < bh"},
	{"store: the reservations are written without a TTL (DIST-6)", reserveLua,
		"redis.call('PEXPIRE', KEYS[2], ARGV[8])", "redis.call('TYPE', KEYS[2])"},
}

// loadedScript is the text the server runs for the script at path, from
// files (a path's text, by path): the gate scripts with arithLua joined in
// as redisgate loads them, storeLibUsers with storeLib as redisstore
// does, any other as it is.
func loadedScript(files map[string]string, path string) string {
	switch {
	case path == admitLua || path == spreadLua:
		return redisgate.JoinArith(files[arithLua], files[path])
	case slices.Contains(storeLibUsers, path):
		return redisstore.JoinLib(files[storeLib], files[path])
	}
	return files[path]
}

// mutantVia are the scripts the server runs that a bug in path is in:
// both gate scripts for arithLua, storeLibUsers for storeLib, else path's
// own.
func mutantVia(path string) []string {
	switch path {
	case arithLua:
		return []string{admitLua, spreadLua}
	case storeLib:
		return storeLibUsers
	}
	return []string{path}
}

// checksOf are the checks that run the loaded script of path.
func checksOf(path string) mutantChecks {
	return mutantChecks{gate: path == admitLua, spread: path == spreadLua, throttle: path != admitLua && path != spreadLua}
}

// mutantKill is what caught a mutant: "" when nothing did.
type mutantKill string

// TestEveryLuaMutantIsKilled checks that the Redis checks can fail: each
// planted bug of luaMutants, run by the server in place of its script
// (redistest.Swap) under the unchanged Go code, is caught by the
// conformance vectors of the components it touches (the check limcheck run
// makes), by the DIST-6 audit that every key has a TTL, for the gate by
// the DIST-3 check that an expired lease is a release, by seeded histories
// against the model on small tables that evict and spend their budgets
// (TestRedisGateBudgetHistoriesEqualModel) and by the DIST-6 check that a
// set outlives its spent budget (TestRedisGateSetTTLCoversItsBudget), and for the store
// by the purge checks of mutantPurgeRace (an interleaving inside a purge
// over 1 and 2 partitions, checked by porcupine; large partitions), by
// seeded reservation histories against MemStore's (mutantReserveHistories),
// by TestRedisStorePartitionTTLIsSetAndOnlyGrows's checks and by
// TestRedisStoreIsExactPast2To53's histories; a mutant of the Spread script
// faces the gate vectors, the budget histories, the budget's TTL and the
// carries in the Spread layout, and redisSpreadTTL and redisSpreadSweep
// (mutantSpreadChecks). A mutant of the gate's shared arithmetic
// (arithLua) is caught twice: in admit.lua's loaded text alone, by the
// Exact gate's checks, and in spread.lua's alone, by the Spread gate's; one
// of the store's shared lt (storeLib) five times, in each store script that
// compares stamps, by the store's checks. The
// original scripts, swapped for themselves, pass all three (so a kill is
// the bug's, not the proxy's), and every mutant's script must really have
// run.
func TestEveryLuaMutantIsKilled(t *testing.T) {
	srv := redistest.StartWith(t, redistest.NoFsync()...) // never restarted
	files := map[string]string{}
	for _, path := range append([]string{arithLua, admitLua, spreadLua, storeLib}, storeLibUsers...) {
		files[path] = readScript(t, path)
	}
	for _, m := range luaMutants {
		files[m.script] = readScript(t, m.script)
	}
	same := map[string]string{}
	for path := range files {
		if path != arithLua && path != storeLib {
			src := loadedScript(files, path)
			same[src] = src
		}
	}
	if kill := runMutant(t, srv, same, mutantChecks{gate: true, spread: true, throttle: true}); kill != "" {
		t.Fatalf("the original scripts through the swap fail a check: %s", kill)
	}
	for _, m := range luaMutants {
		src := files[m.script]
		if n := strings.Count(src, m.old); n != 1 {
			t.Errorf("mutant %q: %q occurs %d times in %s, want once", m.name, m.old, n, m.script)
			continue
		}
		mutated := maps.Clone(files)
		mutated[m.script] = strings.Replace(src, m.old, m.new, 1)
		for _, via := range mutantVia(m.script) {
			swap := map[string]string{loadedScript(files, via): loadedScript(mutated, via)}
			kill := runMutant(t, srv, swap, checksOf(via))
			if kill == "" {
				t.Errorf("mutant %q of %s survives every check of %s", m.name, m.script, via)
				continue
			}
			t.Logf("killed: %s (in %s): %s", m.name, via, kill)
		}
	}
}

// runMutant runs the checks with scripts swapped on a fresh database of
// srv, gate's or the throttle's, and returns what failed first ("" when
// all passed). It fails t if a swapped script never ran.
func runMutant(t *testing.T, srv *redistest.Server, scripts map[string]string, checks mutantChecks) mutantKill {
	t.Helper()
	if _, err := srv.Command("FLUSHALL"); err != nil {
		t.Fatal(err)
	}
	sw := redistest.NewSwap(t, srv.Addr(), scripts)
	defer sw.Close()
	r := subject.NewRedis(sw.Addr())
	defer r.Close()
	gateChecks, throttleChecks := checks.gate, checks.throttle
	kill := mutantVectors(t, r, gateChecks, throttleChecks)
	if kill == "" && gateChecks {
		kill = mutantLeaseCheck(t, r)
	}
	if kill == "" && gateChecks {
		kill = mutantBudgetChecks(t, r)
	}
	if kill == "" && checks.spread {
		kill = mutantSpreadChecks(t, sw.Addr())
	}
	if kill == "" && throttleChecks {
		kill = mutantPurgeRace(t, srv, r)
	}
	if kill == "" && throttleChecks {
		kill = mutantReserves(t, r)
	}
	if kill == "" && throttleChecks {
		if diff := redisStoreTTLs(srv.Command, mustClient(t, r), r.Namespace); diff != "" {
			kill = mutantKill("store TTLs: " + diff)
		} else if diff := redisExactHistories(mustClient(t, r), r.Namespace); diff != "" {
			kill = mutantKill("exact histories: " + diff)
		}
	}
	if kill == "" { // last: it audits the keys of every check
		kill = mutantTTLAudit(t, srv)
	}
	if sw.Swaps() == 0 || sw.Err() != nil {
		t.Fatalf("the swapped scripts ran %d times (%v): the checks did not run them", sw.Swaps(), sw.Err())
	}
	return kill
}

// mutantChecks are the checks a mutant faces: those of the Exact gate's
// script, of the Spread gate's, of the throttle store's scripts.
type mutantChecks struct{ gate, spread, throttle bool }

// mutantSpreadChecks runs, with the gate in the Spread layout over addr,
// the gate vectors, TestRedisGateBudgetHistoriesEqualModel's histories,
// TestRedisGateSetTTLCoversItsBudget's check,
// TestRedisGateCarriesBetweenHalves's admits, redisSpreadTTL and
// redisSpreadSweep, and names the first that fails.
func mutantSpreadChecks(t *testing.T, addr string) mutantKill {
	t.Helper()
	r := subject.NewRedis(addr).WithLayout(subject.LayoutSpread)
	defer r.Close()
	if kill := mutantVectors(t, r, true, false); kill != "" {
		return "spread: " + kill
	}
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	for _, check := range []func(rueidis.Client, string) (string, error){
		func(c rueidis.Client, name string) (string, error) {
			return redisBudgetHistories(c, name, redisgate.Spread, redisBudgetRuns)
		},
		func(c rueidis.Client, name string) (string, error) { return redisBudgetTTL(c, name, redisgate.Spread) },
		func(c rueidis.Client, name string) (string, error) { return redisCarries(c, name, redisgate.Spread) },
		redisSpreadTTL, redisSpreadSweep,
	} {
		diff, err := check(c, r.Namespace())
		if err != nil {
			return mutantKill(fmt.Sprintf("spread checks: %v", err))
		}
		if diff != "" {
			return mutantKill("spread checks: " + diff)
		}
	}
	return ""
}

// mutantVectors runs the conformance vectors of the chosen components
// against r, as TestVectorsPassRedis does, and names the first that fails.
func mutantVectors(t *testing.T, r *subject.Redis, gateChecks, throttleChecks bool) mutantKill {
	t.Helper()
	cases, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatalf("conformance.Load(Vectors) error: %v", err)
	}
	for _, c := range cases {
		switch comp := c.Trace().Component; {
		case comp == oracle.Gate && !gateChecks, comp == oracle.Lim,
			comp != oracle.Gate && !throttleChecks:
			continue
		}
		res := judge.Check(r, c)
		switch {
		case res.Verdict == judge.Skip && pastRedisLimits(c.Trace().Config):
		case res.Verdict == judge.Fail && res.Divergence == nil:
			return mutantKill(fmt.Sprintf("vector %s errs: %s", c.ID, res.Why))
		case res.Verdict != judge.Pass:
			op := -1
			if res.Divergence != nil {
				op = res.Divergence.Index
			}
			return mutantKill(fmt.Sprintf("vector %s (%s) %s at op %d", c.ID, c.Description, res.Verdict, op))
		}
	}
	return ""
}

// mutantTTLAudit is DIST-6's audit: every key in the database has a TTL.
func mutantTTLAudit(t *testing.T, srv *redistest.Server) mutantKill {
	t.Helper()
	c, err := subject.NewClient(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	keys, err := c.Do(ctx, c.B().Keys().Pattern("*").Build()).AsStrSlice()
	if err != nil || len(keys) == 0 {
		t.Fatalf("KEYS * = %q, %v: want the checks' keys", keys, err)
	}
	for _, k := range keys {
		if ttl, err := c.Do(ctx, c.B().Pttl().Key(k).Build()).AsInt64(); err != nil || ttl <= 0 {
			return mutantKill(fmt.Sprintf("key %q has PTTL %d (%v), want a TTL", k, ttl, err))
		}
	}
	return ""
}

// mutantPurgeRace is TestLinRedisPurgeIsOneStepPerPartition's split
// history, TestLinRedisPurgeOfOnePartitionIsOneStep's whole one (each must
// be linearizable, with its count) and
// TestRedisPurgeCountsEveryKeyOfLargePartitions's check.
func mutantPurgeRace(t *testing.T, srv *redistest.Server, r *subject.Redis) mutantKill {
	t.Helper()
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	ns := r.Namespace()
	out, _, split := linPurgeRace(t, c, ns, 2)
	if res, _ := linCheck(linStoreParts(ns, 2), split); res != porcupine.Ok || out.Count != 2 {
		return mutantKill(fmt.Sprintf("purge race: purge_expired(20) over 2 partitions = count %d (failed %v): split history %s", out.Count, out.Failed, res))
	}
	out, whole, _ := linPurgeRace(t, c, r.Namespace(), 1)
	if res, _ := linCheck(linThrModelWhole(), whole); res != porcupine.Ok || out.Count != 1 {
		return mutantKill(fmt.Sprintf("purge race: purge_expired(20) over 1 partition = count %d (failed %v): history %s", out.Count, out.Failed, res))
	}
	if diff := redisPurgeLarge(srv.Command, c, r.Namespace(), 1); diff != "" {
		return mutantKill("large partitions: " + diff)
	}
	return ""
}

// mutantLeaseCheck is DIST-3 at maxif 1: a pass never released holds the
// only place until its lease (100 ms) expires; then in_flight is 0 and the
// next admit passes.
func mutantLeaseCheck(t *testing.T, r *subject.Redis) mutantKill {
	t.Helper()
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	g, err := redisgate.New(redisgate.Config{Client: c, Name: r.Namespace(), Lim: ilim.NewConfig(10, 1, 1, 1),
		Sets: math.MaxInt64, Ways: 1, TickNanos: 1, LeaseTTL: 100 * time.Millisecond, Seed: &redisTestSeed})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := g.Admit("a", 0); err != nil || d.Verdict != gate.Pass {
		return mutantKill(fmt.Sprintf("lease check: Admit(a, 0) = %v, %v; want pass", d.Verdict, err))
	}
	deadline := time.Now().Add(slowdown.Scale(10 * time.Second))
	for n, _ := g.InFlight(); n != 0; n, _ = g.InFlight() {
		if time.Now().After(deadline) {
			t.Fatalf("lease check: the lease of a pass never released did not expire")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d, err := g.Admit("b", 0); err != nil || d.Verdict != gate.Pass {
		return mutantKill(fmt.Sprintf("lease check: Admit(b, 0) after the only lease expired = %v, %v; want pass", d.Verdict, err))
	}
	return ""
}

// mutantBudgetChecks runs TestRedisGateBudgetHistoriesEqualModel's
// histories, TestRedisGateSetTTLCoversItsBudget's check,
// TestRedisGateCarriesBetweenHalves's admits and
// TestRedisGateOneWaySetTTLCoversItsBucket's on r.
func mutantBudgetChecks(t *testing.T, r *subject.Redis) mutantKill {
	t.Helper()
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	diff, err := redisBudgetHistories(c, r.Namespace(), redisgate.Exact, redisBudgetRuns)
	if err == nil && diff == "" {
		diff, err = redisBudgetTTL(c, r.Namespace(), redisgate.Exact)
	}
	if err == nil && diff == "" {
		diff, err = redisCarries(c, r.Namespace(), redisgate.Exact)
	}
	if err == nil && diff == "" {
		diff, err = redisOneWayTTL(c, r.Namespace())
	}
	switch {
	case err != nil:
		return mutantKill(fmt.Sprintf("budget checks: %v", err))
	case diff != "":
		return mutantKill("budget checks: " + diff)
	}
	return ""
}

// mustClient is r's client, or fails t.
func mustClient(t *testing.T, r *subject.Redis) rueidis.Client {
	t.Helper()
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mutantReserves runs mutantReserveHistories, the reservations against
// MemStore's, on r's client.
func mutantReserves(t *testing.T, r *subject.Redis) mutantKill {
	t.Helper()
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	kill, err := mutantReserveHistories(c, r.Namespace())
	if err != nil {
		t.Fatalf("reservation histories: %v", err)
	}
	return kill
}
