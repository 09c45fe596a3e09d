package fuzz

// The composition that redisgate's Spread mode implements (the cluster
// layout, spec 3.1.0): several nodes, each with its own exact in-flight
// count capped at maxif, all sharing one table (model/gate's sets, ways and
// budgets). An admit on node i reserves its place in node i's count before
// it reaches the table: when node i is full it sheds without touching the
// table; otherwise its take (pass or limited, with its set, way and bucket)
// is one atomic step on the shared table; a pass keeps its place until its
// release, a limited take gives it back at once. A release is node i's
// alone, idempotent per decision.
//
// A history of such a fleet is checked in two parts:
//   - the shared part by porcupine, against linSpreadMachine: every take,
//     bucket read and release, as one atomic step each on the table and the
//     per-node counts of passes not yet released (a take on a node whose
//     passes fill its maxif cannot happen: its own place would be one more);
//   - the node-local part against each node's own log (linSpreadLocal): a
//     shed is legal only if, at some instant within it, maxif other admits
//     of its node could hold a place, and an in_flight read only if, at some
//     instant within it, its count lies between what must and what may be
//     held. A limited admit may hold its place for its whole call, a pass
//     from its call to its release's return; a pass surely holds it from its
//     return to its release's call. Sheds and reads touch no shared state, so
//     they are not porcupine's.
//
// The checks here run the composition in memory (impl/gate's table behind
// per-node counts) and against planted bugs; redis_spread_test.go runs
// redisgate's Spread mode through the same clients and checker on a Redis
// Cluster.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/anishathalye/porcupine"
	igate "github.com/limcheck/limcheck/impl/gate"
	ilim "github.com/limcheck/limcheck/impl/lim"
	mgate "github.com/limcheck/limcheck/model/gate"
	mlim "github.com/limcheck/limcheck/model/lim"
	"github.com/limcheck/limcheck/oracle"
)

// The fleet of the Spread checks: three nodes of two clients each, the
// linearizability checks' bucket (cap 2, one token per 3 ticks), 4 sets of
// 2 ways grouped in 2 slabs (sets 0 and 2 share slab 0, 1 and 3 slab 1).
const (
	linSpreadNodes   = 3
	linSpreadClients = 2 // per node
	linSpreadSets    = 4
	linSpreadSlabs   = 2
	linSpreadOps     = 24 // per client
)

// linSpreadMaxifs are the per-node maxif of the rounds: 1 sheds whenever a
// node's other client holds a pass, 2 and 4 when its clients hold more.
var linSpreadMaxifs = []int64{1, 2, 4}

// linSpreadIPs are the addresses the clients send from. Under
// linSpreadSeed, set 1 holds four of them (a, c, h, j: admissions there
// evict, and its budget refuses some), set 3 two (d, e), in the same slab
// as set 1, and set 2 one (b), in the other slab.
var linSpreadIPs = []string{"a", "c", "h", "j", "d", "e", "b"}

// linSpreadSeed is the table's seed, model's and impl's.
var linSpreadSeed = [16]byte{7}

// linSpreadIn is one operation of a fleet: admit(ip, now), release(),
// in_flight() or bucket(ip, now) on node. A release names the call stamp
// of the admit whose decision it releases (of); again marks a release that
// must be a no-op (DIST-4: a second release of a pass, or the release of a
// decision that did not pass).
type linSpreadIn struct {
	kind  oracle.Kind
	node  int
	ip    string
	now   int64
	of    int64
	again bool
}

func (in linSpreadIn) String() string {
	switch in.kind {
	case oracle.Admit:
		return fmt.Sprintf("node %d: admit(%q, %d)", in.node, in.ip, in.now)
	case oracle.Bucket:
		return fmt.Sprintf("node %d: bucket(%q, %d)", in.node, in.ip, in.now)
	case oracle.Release:
		return fmt.Sprintf("node %d: release(admit at %d, again %v)", in.node, in.of, in.again)
	}
	return fmt.Sprintf("node %d: %s()", in.node, in.kind)
}

func (in linSpreadIn) describe(out any) string {
	return fmt.Sprintf("node %d: %s", in.node, linGateIn{kind: in.kind, ip: in.ip, now: in.now}.describe(out))
}

// linSpreadMachine is the shared part of the composition as a linMachine:
// model/gate's table (its own maxif never binds) and each node's passes not
// yet released.
type linSpreadMachine struct {
	g      *mgate.Gate
	maxif  int64
	passes [linSpreadNodes]int64
}

// linSpreadSnap is linSpreadMachine's whole state: each node's passes, for
// each address the way that holds its key and its stored bucket, each set's
// budget.
type linSpreadSnap struct {
	passes  [linSpreadNodes]int64
	ways    [7]int64
	buckets [7]linGateOut
	budgets [linSpreadSets]linGateOut
}

// newLinSpreadTable is model/gate with the fleet's table and a maxif that
// never binds.
func newLinSpreadTable() *mgate.Gate {
	g, err := mgate.New(mgate.Config{Lim: mlim.NewConfig(linGateCap, linGateRefil, linGateIvl, math.MaxInt64),
		Sets: linSpreadSets, Ways: linGateWays, TickNanos: linGateTickNanos, Seed: linSpreadSeed})
	if err != nil {
		panic(err) // a valid constant config
	}
	return g
}

// linSpreadModel is the porcupine model of the shared part of a fleet of
// maxif per node.
func linSpreadModel(maxif int64) porcupine.Model {
	return linModel(func() linMachine[linSpreadIn, linGateOut, linSpreadSnap] {
		return &linSpreadMachine{g: newLinSpreadTable(), maxif: maxif}
	}, nil)
}

func (m *linSpreadMachine) apply(in linSpreadIn) linGateOut {
	switch in.kind {
	case oracle.Admit:
		if m.passes[in.node] >= m.maxif {
			return linSpreadShed(m.g, in.ip) // no recorded take equals it
		}
		d := m.g.Admit(in.ip, in.now)
		if d.Verdict == mgate.Pass {
			m.passes[in.node]++
		}
		return linGateOut{Verdict: string(d.Verdict), Set: d.Set, Way: d.Way, Retry: d.Retry, RetryAfter: d.RetryAfter, Response: d.Response}
	case oracle.Release:
		if !in.again {
			m.passes[in.node] = max(m.passes[in.node]-1, 0)
		}
		return linGateOut{}
	}
	b, ok := m.g.Bucket(in.ip, in.now)
	return linBucketOut(ok, b.Tks, b.Last)
}

func (m *linSpreadMachine) snapshot() linSpreadSnap {
	s := linSpreadSnap{passes: m.passes}
	for i, ip := range linSpreadIPs {
		s.ways[i] = mgate.NoWay
		if _, w, ok := m.g.WayOf(ip); ok {
			s.ways[i] = w
		}
		b, ok := m.g.Bucket(ip, math.MinInt64) // every held way: see linGateMachine.snapshot
		s.buckets[i] = linBucketOut(ok, b.Tks, b.Last)
	}
	for set, b := range modelBudgets(m.g) {
		s.budgets[set] = linBucketOut(true, b.Tks, b.Last)
	}
	return s
}

// linSpreadShed is the output of a shed admit of ip: its set, no way,
// Retry-After 1 (spec GATE-4, GATE-9).
func linSpreadShed(g *mgate.Gate, ip string) linGateOut {
	return linGateOut{Verdict: string(mgate.Shed), Set: g.SetOf(ip), Way: mgate.NoWay, RetryAfter: 1, Response: mlim.Response503(1)}
}

// linSpreadShared is h without its sheds and in_flight reads: the part
// porcupine checks.
func linSpreadShared(h []porcupine.Operation) []porcupine.Operation {
	var out []porcupine.Operation
	for _, op := range h {
		in := op.Input.(linSpreadIn)
		if in.kind == oracle.InFlight || op.Output.(linGateOut).Verdict == string(mgate.Shed) {
			continue
		}
		out = append(out, op)
	}
	return out
}

// linSpreadHold is when an admit's place may be held (from call to
// mayEnd) and when it must be (from mustFrom to mustEnd; empty unless a
// pass), in call and return stamps.
type linSpreadHold struct{ call, mayEnd, mustFrom, mustEnd int64 }

// linSpreadLocal checks the node-local part of h for nodes of maxif: each
// shed's output is a shed's, and it, each in_flight read and each release
// is legal against its node's own log (see the top of this file). It
// returns the first violation.
func linSpreadLocal(h []porcupine.Operation, maxif int64) error {
	table := newLinSpreadTable()
	const never = math.MaxInt64
	holds := map[int64]*linSpreadHold{} // by the admit's call stamp
	node := map[int64]int{}
	for _, op := range h {
		in, out := op.Input.(linSpreadIn), op.Output.(linGateOut)
		if in.kind != oracle.Admit || out.Verdict == string(mgate.Shed) {
			continue
		}
		hold := &linSpreadHold{call: op.Call, mayEnd: op.Return}
		if out.Verdict == string(mgate.Pass) {
			hold.mayEnd, hold.mustFrom, hold.mustEnd = never, op.Return, never
		}
		holds[op.Call], node[op.Call] = hold, in.node
	}
	for _, op := range h { // a pass's first release ends its place
		in := op.Input.(linSpreadIn)
		if in.kind != oracle.Release || in.again {
			continue
		}
		hold, ok := holds[in.of]
		if !ok || node[in.of] != in.node || hold.mustEnd != never {
			return fmt.Errorf("release at %d on node %d: admit at %d is no pass of this node not yet released", op.Call, in.node, in.of)
		}
		hold.mayEnd, hold.mustEnd = op.Return, op.Call
	}
	// count is how many places of node, other than self's, must and may be
	// held at the instant after stamp k.
	count := func(n int, self, k int64) (must, may int64) {
		for c, hold := range holds {
			if node[c] != n || c == self {
				continue
			}
			if hold.call <= k && k < hold.mayEnd {
				may++
			}
			if hold.mustFrom <= k && k < hold.mustEnd {
				must++
			}
		}
		return must, may
	}
	for _, op := range h {
		in, out := op.Input.(linSpreadIn), op.Output.(linGateOut)
		switch {
		case in.kind == oracle.Admit && out.Verdict == string(mgate.Shed):
			if want := linSpreadShed(table, in.ip); out != want {
				return fmt.Errorf("%s: the shed returned %+v, want %+v", in, out, want)
			}
			if !linSpreadSome(op, func(k int64) bool { _, may := count(in.node, op.Call, k); return may >= maxif }) {
				return fmt.Errorf("%s [%d, %d] -> shed, but node %d never had %d places held during it", in, op.Call, op.Return, in.node, maxif)
			}
		case in.kind == oracle.InFlight:
			if !linSpreadSome(op, func(k int64) bool { must, may := count(in.node, -1, k); return must <= out.N && out.N <= may }) {
				return fmt.Errorf("%s [%d, %d] -> %d, but node %d never held that many places during it", in, op.Call, op.Return, out.N, in.node)
			}
		}
	}
	return nil
}

// linSpreadSome reports whether at some instant within op (after stamp k,
// for k from its call to its return - 1) ok(k) holds.
func linSpreadSome(op porcupine.Operation, ok func(k int64) bool) bool {
	for k := op.Call; k < op.Return; k++ {
		if ok(k) {
			return true
		}
	}
	return false
}

// linSpreadCheck checks history h of nodes of maxif: Illegal with the
// node-local violation, or porcupine's verdict on the shared part.
func linSpreadCheck(h []porcupine.Operation, maxif int64) (porcupine.CheckResult, error) {
	if err := linSpreadLocal(h, maxif); err != nil {
		return porcupine.Illegal, err
	}
	res, _ := linCheck(linSpreadModel(maxif), linSpreadShared(h))
	return res, nil
}

// linSpreadRequire fails t unless history h (described by what) of nodes
// of maxif passes both parts of the check.
func linSpreadRequire(t *testing.T, h []porcupine.Operation, maxif int64, what string) {
	t.Helper()
	if err := linSpreadLocal(h, maxif); err != nil {
		t.Fatalf("%s: node-local check: %v\n%s", what, err, linSpreadListing(h))
	}
	linRequire(t, linSpreadModel(maxif), linSpreadShared(h), what)
}

// linSpreadListing is h, one operation a line by call stamp.
func linSpreadListing(h []porcupine.Operation) string {
	var b strings.Builder
	b.WriteString("history (client [call, return] operation -> result):\n")
	for _, op := range linByCall(h) {
		fmt.Fprintf(&b, "  c%d [%d, %d] %s\n", op.ClientId, op.Call, op.Return, linDescribe(op.Input, op.Output))
	}
	return b.String()
}

// linSpreadNode is one node of a fleet as its clients drive it: admit
// returns the decision's output and its release (a no-op for a decision
// that did not pass); inFlight is the node's count.
type linSpreadNode interface {
	admit(ip string, now int64) (linGateOut, func())
	inFlight() int64
	bucket(ip string, now int64) linGateOut
}

// linSpreadClient returns the body of client c of a fleet: c runs on node
// c.id / linSpreadClients of nodes and does n operations at the shared
// clock: mostly admits, releases of its passes (now and then twice, or of
// a limited decision: no-ops), in_flight and bucket reads; at the end it
// releases what it still holds.
func linSpreadClient(nodes []linSpreadNode, clock *linClock, n int) func(*linClient, *rand.Rand) {
	return func(c *linClient, rng *rand.Rand) {
		id := c.id / linSpreadClients
		g := nodes[id]
		type held struct {
			call    int64
			release func()
		}
		var passes []held
		var other *held // a decision that did not pass, or a released pass
		release := func(h held, again bool) {
			linDo(c, linSpreadIn{kind: oracle.Release, node: id, of: h.call, again: again}, func() linGateOut { h.release(); return linGateOut{} })
		}
		for range n {
			switch r := rng.IntN(100); {
			case len(passes) > 0 && r < 30:
				h := passes[0]
				release(h, false)
				other, passes = &h, passes[1:]
			case other != nil && r < 34:
				release(*other, true)
			case r < 40:
				linDo(c, linSpreadIn{kind: oracle.InFlight, node: id}, func() linGateOut { return linGateOut{N: g.inFlight()} })
			case r < 46:
				in := linSpreadIn{kind: oracle.Bucket, node: id, ip: linSpreadIPs[rng.IntN(len(linSpreadIPs))], now: clock.next(rng)}
				linDo(c, in, func() linGateOut { return g.bucket(in.ip, in.now) })
			default:
				in := linSpreadIn{kind: oracle.Admit, node: id, ip: linSpreadIPs[rng.IntN(len(linSpreadIPs))], now: clock.next(rng)}
				var rel func()
				out := linDo(c, in, func() linGateOut { o, r := g.admit(in.ip, in.now); rel = r; return o })
				h := held{call: c.ops[len(c.ops)-1].Call, release: rel}
				if out.Verdict == string(mgate.Pass) {
					passes = append(passes, h)
				} else {
					other = &h
				}
			}
			if rng.IntN(3) == 0 {
				runtime.Gosched()
			}
		}
		for _, h := range passes {
			release(h, false)
		}
	}
}

// linSpreadRun runs one history of round r of check on nodes.
func linSpreadRun(check string, r int, nodes []linSpreadNode) []porcupine.Operation {
	return linRun(len(nodes)*linSpreadClients, linSeed(check, r), linSpreadClient(nodes, new(linClock), linSpreadOps))
}

// linSpreadTally counts outcomes as linGateVerdict does.
func linSpreadTally(seen map[string]int, h []porcupine.Operation) {
	for _, op := range h {
		if op.Input.(linSpreadIn).kind == oracle.Admit {
			seen[linGateVerdict(op.Output)]++
		}
	}
}

// linMemFleet is the composition in memory: one impl/gate table whose own
// maxif never binds, behind nodes that reserve a place in their own count
// first (a CAS against maxif), give a limited decision's back at once and
// a pass's at its first release. Its bugs, when set, are planted:
// doubleTake takes twice per admit (a replayed take), oneCount makes the
// nodes share one count (a fleet-wide cap where each node has its own).
type linMemFleet struct {
	table      *igate.Gate
	maxif      int64
	counts     [linSpreadNodes]atomic.Int64
	doubleTake bool
	oneCount   bool
}

// newLinMemFleet returns a fleet of maxif per node over a fresh table.
func newLinMemFleet(t *testing.T, maxif int64) *linMemFleet {
	t.Helper()
	seed := linSpreadSeed
	table, err := igate.New(igate.Config{Lim: ilim.NewConfig(linGateCap, linGateRefil, linGateIvl, 1<<40), Sets: linSpreadSets, Ways: linGateWays, TickNanos: linGateTickNanos, Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	return &linMemFleet{table: table, maxif: maxif}
}

// nodes returns the fleet's nodes.
func (f *linMemFleet) nodes() []linSpreadNode {
	var ns []linSpreadNode
	for i := range linSpreadNodes {
		ns = append(ns, linMemNode{f, i})
	}
	return ns
}

// linMemNode is node i of a linMemFleet.
type linMemNode struct {
	f *linMemFleet
	i int
}

func (n linMemNode) count() *atomic.Int64 {
	if n.f.oneCount {
		return &n.f.counts[0]
	}
	return &n.f.counts[n.i]
}

func (n linMemNode) admit(ip string, now int64) (linGateOut, func()) {
	c := n.count()
	for {
		v := c.Load()
		if v >= n.f.maxif {
			set := n.f.table.SetOf(ip)
			return linGateOut{Verdict: string(mgate.Shed), Set: set, Way: mgate.NoWay, RetryAfter: 1, Response: mlim.Response503(1)}, func() {}
		}
		if c.CompareAndSwap(v, v+1) {
			break
		}
	}
	d := n.f.table.Admit(ip, now)
	if n.f.doubleTake {
		d = n.f.table.Admit(ip, now)
	}
	out := linGateOut{Verdict: d.Verdict.String(), Set: d.Set, Way: d.Way, Retry: d.Retry, RetryAfter: d.RetryAfter, Response: string(d.AppendResponse(nil))}
	if d.Verdict != igate.Pass {
		c.Add(-1)
		return out, func() {}
	}
	var released atomic.Bool
	return out, func() {
		if released.CompareAndSwap(false, true) {
			c.Add(-1)
		}
	}
}

func (n linMemNode) inFlight() int64 { return n.count().Load() }

func (n linMemNode) bucket(ip string, now int64) linGateOut {
	b, ok := n.f.table.Bucket(ip, now)
	return linBucketOut(ok, b.Tks, b.Last)
}

// TestLinSpreadFleetIsLinearizableInMemory checks DIST-10's composition model
// against the composition itself, in memory: histories of three nodes of
// two clients, each node with its own exact count of maxif, over one
// impl/gate table, pass both parts of the check (linSpreadCheck), and
// they pass, shed, limit by a bucket and refuse an eviction by a budget.
func TestLinSpreadFleetIsLinearizableInMemory(t *testing.T) {
	seen := map[string]int{}
	for round := range max(*linRounds/3, 1) { // a third of -lin.rounds: ten by default, about a second
		maxif := linSpreadMaxifs[round%len(linSpreadMaxifs)]
		h := linSpreadRun(t.Name(), round, newLinMemFleet(t, maxif).nodes())
		linSpreadRequire(t, h, maxif, fmt.Sprintf("in-memory fleet history %d (maxif %d)", round, maxif))
		linSpreadTally(seen, h)
	}
	linRequireSeen(t, seen, string(mgate.Pass), string(mgate.Shed), string(mgate.Limited), linGateRefused)
}

// TestLinSpreadCheckerRejectsPlantedBugs checks that the Spread check is
// not vacuous: fleets with a planted bug, driven by the same clients, give
// a history that linSpreadCheck reports Illegal within linNegativeRounds
// rounds: a take done twice per admit (caught on the shared table), and
// one count shared by every node (sheds that no node-local log justifies).
func TestLinSpreadCheckerRejectsPlantedBugs(t *testing.T) {
	for _, bug := range []string{"doubleTake", "oneCount"} {
		t.Run(bug, func(t *testing.T) {
			for r := range linNegativeRounds {
				maxif := linSpreadMaxifs[r%len(linSpreadMaxifs)]
				f := newLinMemFleet(t, maxif)
				f.doubleTake, f.oneCount = bug == "doubleTake", bug == "oneCount"
				res, err := linSpreadCheck(linSpreadRun(t.Name(), r, f.nodes()), maxif)
				if res == porcupine.Illegal {
					t.Logf("history %d is Illegal (%v)", r, err)
					return
				}
			}
			t.Fatalf("linSpreadCheck = Ok for %d histories of a fleet with bug %s, want Illegal for one: the check is vacuous", linNegativeRounds, bug)
		})
	}
}

// TestLinSpreadCheckerRejectsHandBuiltHistories checks the checker on
// sequential histories of two nodes of maxif 1 that each break one rule
// of the composition, every admit at tick 0: porcupine or the node-local
// check, as the rule is shared or local, rejects each; a history that keeps
// every rule passes.
func TestLinSpreadCheckerRejectsHandBuiltHistories(t *testing.T) {
	// takes returns the outputs of admits of ips, in order, on a fresh table.
	takes := func(ips ...string) []linGateOut {
		table := newLinSpreadTable()
		var outs []linGateOut
		for _, ip := range ips {
			d := table.Admit(ip, 0)
			outs = append(outs, linGateOut{Verdict: string(d.Verdict), Set: d.Set, Way: d.Way, Retry: d.Retry, RetryAfter: d.RetryAfter, Response: d.Response})
		}
		return outs
	}
	aaa := takes("a", "a", "a") // pass, pass (a's last token), limited
	ade := takes("a", "d", "e") // three passes
	type step struct {
		node  int
		kind  oracle.Kind
		ip    string
		of    int  // a release's admit, by step
		again bool // a release that must be a no-op
		out   linGateOut
	}
	history := func(steps ...step) []porcupine.Operation {
		var h []porcupine.Operation
		for i, s := range steps {
			in := linSpreadIn{kind: s.kind, node: s.node, ip: s.ip, of: int64(2 * s.of), again: s.again}
			h = append(h, porcupine.Operation{ClientId: s.node, Input: in, Call: int64(2 * i), Output: s.out, Return: int64(2*i + 1)})
		}
		return h
	}
	admit := func(node int, ip string, out linGateOut) step {
		return step{node: node, kind: oracle.Admit, ip: ip, out: out}
	}
	release := func(node, of int, again bool) step {
		return step{node: node, kind: oracle.Release, of: of, again: again}
	}
	for _, tc := range []struct {
		name, reason string
		h            []porcupine.Operation
		local        bool // the node-local check rejects it, not porcupine
	}{
		{"doubled take", "a's second admit is limited: its first took two tokens",
			history(admit(0, "a", aaa[0]), release(0, 0, false), admit(1, "a", aaa[2])), false},
		{"over maxif", "node 0 passes a second request while its first holds its only place",
			history(admit(0, "a", ade[0]), admit(0, "d", ade[1])), false},
		{"double release", "a second release of a pass gave back another pass's place: node 0 then holds two",
			history(admit(0, "a", ade[0]), release(0, 0, false), release(0, 0, true), admit(0, "d", ade[1]), admit(0, "e", ade[2])), false},
		{"unjustified shed", "node 1 sheds while only node 0 holds a place",
			history(admit(0, "a", ade[0]), admit(1, "d", linSpreadShed(newLinSpreadTable(), "d"))), true},
		{"wrong in_flight", "node 0 counts none while its pass is held",
			history(admit(0, "a", ade[0]), step{node: 0, kind: oracle.InFlight}), true},
	} {
		if tc.reason == "" {
			t.Fatalf("case %s has no reason", tc.name)
		}
		res, err := linSpreadCheck(tc.h, 1)
		if res != porcupine.Illegal || (err != nil) != tc.local {
			t.Errorf("%s (%s): linSpreadCheck = %s, %v; want Illegal, by the node-local check %v", tc.name, tc.reason, res, err, tc.local)
		}
	}
	ok := history(admit(0, "a", aaa[0]), admit(1, "a", aaa[1]), step{node: 0, kind: oracle.InFlight, out: linGateOut{N: 1}},
		admit(0, "a", linSpreadShed(newLinSpreadTable(), "a")), release(0, 0, false), release(0, 0, true), admit(0, "a", aaa[2]), release(0, 6, true))
	if res, err := linSpreadCheck(ok, 1); res != porcupine.Ok {
		t.Errorf("linSpreadCheck(two nodes, a pass each, a shed, a limited take, releases) = %s, %v; want Ok", res, err)
	}
}
