//go:build !fuzzsmoke

package fuzz

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/limcheck/limcheck/impl/gate"
	ilim "github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisclient"
	"github.com/limcheck/limcheck/impl/redisgate"
	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/limcheck/limcheck/internal/slowdown"
	"github.com/limcheck/limcheck/internal/subject"
	mgate "github.com/limcheck/limcheck/model/gate"
	mlim "github.com/limcheck/limcheck/model/lim"
	"github.com/limcheck/limcheck/oracle"
	"github.com/redis/rueidis"
)

// TestRedisClusterSpread checks redisgate's Spread layout on a Redis
// Cluster of three primaries, each with a replica, that it starts itself
// and shares between its subtests (a cluster start is the expensive part);
// the failover runs last, since it kills a primary. See each subtest's
// function for what it checks.
func TestRedisClusterSpread(t *testing.T) {
	c := redistest.StartCluster(t, 1)
	t.Run("FleetIsLinearizable", func(t *testing.T) { spreadFleetIsLinearizable(t, c) })
	t.Run("CheckerCatchesADoubledTake", func(t *testing.T) { spreadCheckerCatchesADoubledTake(t, c) })
	t.Run("CommandsSpreadOverPrimaries", func(t *testing.T) { spreadCommandsSpreadOverPrimaries(t, c) })
	t.Run("SlotMigrationFailsNoAdmit", func(t *testing.T) { spreadSlotMigrationFailsNoAdmit(t, c) })
	t.Run("VectorsAndMachinePass", func(t *testing.T) { spreadVectorsAndMachinePass(t, c) })
	t.Run("PrimaryKillFailsOverTruly", func(t *testing.T) { spreadPrimaryKillFailsOverTruly(t, c) })
}

// newClusterClient is a cluster client over c's nodes, closed when t ends.
func newClusterClient(t *testing.T, c *redistest.Cluster) rueidis.Client {
	t.Helper()
	client, err := redisclient.New(redisclient.Target{Mode: redisclient.Cluster, Addrs: c.Seeds()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return client
}

// redisSpreadNode is one node of a fleet (linSpreadNode): a Spread gate
// with its own client. An error of the gate fails t (the cluster is
// healthy here).
type redisSpreadNode struct {
	t *testing.T
	g *redisgate.Gate
}

func (n redisSpreadNode) admit(ip string, now int64) (linGateOut, func()) {
	d, err := n.g.Admit(ip, now)
	if err != nil {
		n.t.Errorf("Admit(%q, %d): %v", ip, now, err)
	}
	out := linGateOut{Verdict: d.Verdict.String(), Set: d.Set, Way: d.Way, Retry: d.Retry, RetryAfter: d.RetryAfter, Response: string(d.AppendResponse(nil))}
	return out, func() {
		if err := n.g.Release(d); err != nil {
			n.t.Errorf("Release: %v", err)
		}
	}
}

func (n redisSpreadNode) inFlight() int64 {
	v, err := n.g.InFlight()
	if err != nil {
		n.t.Errorf("InFlight: %v", err)
	}
	return v
}

func (n redisSpreadNode) bucket(ip string, now int64) linGateOut {
	b, ok, err := n.g.Bucket(ip, now)
	if err != nil {
		n.t.Errorf("Bucket(%q, %d): %v", ip, now, err)
	}
	return linBucketOut(ok, b.Tks, b.Last)
}

// spreadFleetIsLinearizable checks that concurrent histories of three
// nodes, each a Spread gate with its own cluster client and its own
// in-flight count of maxif, two clients per node, over one gate name (the
// linSpread table: sets that share ways and slabs that share sets, the
// two slabs on their own slots), pass the composition's check
// (linSpreadCheck): porcupine over the takes, bucket reads and releases,
// each node's log for its sheds and in_flight reads. They must pass, shed,
// limit and refuse an eviction.
func spreadFleetIsLinearizable(t *testing.T, c *redistest.Cluster) {
	clients := newSpreadFleetClients(t, c)
	seen := map[string]int{}
	for round := range redisLinRounds() {
		maxif := linSpreadMaxifs[round%len(linSpreadMaxifs)]
		nodes := newSpreadFleet(t, clients, "lin"+strconv.Itoa(round), maxif, false)
		h := linSpreadRun(t.Name(), round, nodes)
		linSpreadRequire(t, h, maxif, fmt.Sprintf("spread fleet history %d (maxif %d per node)", round, maxif))
		linSpreadTally(seen, h)
	}
	linRequireSeen(t, seen, string(mgate.Pass), string(mgate.Shed), string(mgate.Limited), linGateRefused)
}

// newSpreadFleetClients is a cluster client per node of a fleet.
func newSpreadFleetClients(t *testing.T, c *redistest.Cluster) []rueidis.Client {
	clients := make([]rueidis.Client, linSpreadNodes)
	for i := range clients {
		clients[i] = newClusterClient(t, c)
	}
	return clients
}

// newSpreadFleet is a fleet (linSpread's table, maxif per node) of Spread
// gates named name, one per client; with doubled, each node takes twice per
// admit (a planted bug).
func newSpreadFleet(t *testing.T, clients []rueidis.Client, name string, maxif int64, doubled bool) []linSpreadNode {
	nodes := make([]linSpreadNode, len(clients))
	for i, client := range clients {
		seed := linSpreadSeed
		g, err := redisgate.New(redisgate.Config{Client: client, Name: name, Lim: ilim.NewConfig(linGateCap, linGateRefil, linGateIvl, maxif),
			Sets: linSpreadSets, Ways: linGateWays, TickNanos: linGateTickNanos, Seed: &seed, TTLMargin: time.Hour,
			Timeout: slowdown.Scale(10 * time.Second), Mode: redisgate.Spread, Slabs: linSpreadSlabs})
		if err != nil {
			t.Fatal(err)
		}
		nodes[i] = redisSpreadNode{t, g}
		if doubled {
			nodes[i] = redisDoubledNode{redisSpreadNode{t, g}}
		}
	}
	return nodes
}

// redisDoubledNode is a Spread node with a planted bug: each admit is sent
// twice (as a retry of an admit whose reply was lost would be), the first
// decision's place given back, the second returned.
type redisDoubledNode struct{ redisSpreadNode }

func (n redisDoubledNode) admit(ip string, now int64) (linGateOut, func()) {
	_, release := n.redisSpreadNode.admit(ip, now)
	release()
	return n.redisSpreadNode.admit(ip, now)
}

// spreadCheckerCatchesADoubledTake checks that the fleet check is not
// vacuous on Redis either: the same clients and checker report a history
// of Spread nodes that take twice per admit Illegal within
// linNegativeRounds rounds.
func spreadCheckerCatchesADoubledTake(t *testing.T, c *redistest.Cluster) {
	clients := newSpreadFleetClients(t, c)
	for r := range linNegativeRounds {
		maxif := linSpreadMaxifs[r%len(linSpreadMaxifs)]
		h := linSpreadRun(t.Name(), r, newSpreadFleet(t, clients, "doubled"+strconv.Itoa(r), maxif, true))
		if res, err := linSpreadCheck(h, maxif); res == porcupine.Illegal {
			t.Logf("history %d is Illegal (%v)", r, err)
			return
		}
	}
	t.Fatalf("linSpreadCheck = Ok for %d histories of Spread nodes that take twice, want Illegal for one: the check is vacuous", linNegativeRounds)
}

// spreadSlabKey is the Redis key of the slab that holds ip's set in the
// cluster tests' gate with slabs slabs: "{lim:NAME:SLAB}", SLAB = set mod
// slabs in decimal (redisgate's layout), the set from model/gate under the
// same seed.
func spreadSlabKey(ip string, slabs int64) string {
	m, err := mgate.New(mgate.Config{Lim: mlim.NewConfig(1, 1, 1, 1), Sets: math.MaxInt64, Ways: 1, TickNanos: 1, Seed: clusterSeed})
	if err != nil {
		panic(err) // a valid constant config
	}
	return "{lim:" + clusterName + ":" + strconv.FormatInt(m.SetOf(ip)%slabs, 10) + "}"
}

// spreadAdmits is the load of the spread check: that many admits over a
// third as many addresses, each admitted three times. BENCHMARKS.md's
// figures are from -spread.admits=30000.
var spreadAdmits = flag.Int("spread.admits", 6_000, "admits of the cluster spread check (over a third as many addresses)")

// spreadCommandsSpreadOverPrimaries checks issue 25's spread goal: one
// Spread gate in the production layout (a set per key, one way, the
// default slabs) sends each primary a share of its admits within ±10% of a
// third: *spreadAdmits admits over a third as many addresses from eight
// goroutines, counted as EVALSHA calls in each primary's INFO
// commandstats after CONFIG RESETSTAT (a count, not a timing). Every admit
// is one EVALSHA: the calls add up to the admits exactly. The counts are
// deterministic: they depend on the gate's name and seed and on the
// slots' owners, which redis-cli --cluster create assigns in order.
func spreadCommandsSpreadOverPrimaries(t *testing.T, c *redistest.Cluster) {
	admits, addrs := *spreadAdmits, *spreadAdmits/3
	client := newClusterClient(t, c)
	seed := clusterSeed
	g, err := redisgate.New(redisgate.Config{Client: client, Name: "share", Lim: ilim.NewConfig(1<<40, 1, 1<<40, 1<<40),
		Sets: math.MaxInt64, Ways: 1, TickNanos: 1, Seed: &seed, TTLMargin: time.Hour, Mode: redisgate.Spread})
	if err != nil {
		t.Fatal(err)
	}
	admit := func(i int) {
		d, err := g.Admit("10.0."+strconv.Itoa(i/256)+"."+strconv.Itoa(i%256), 0)
		if err != nil || d.Verdict != gate.Pass {
			t.Errorf("Admit #%d = %v, %v; want a pass", i, d.Verdict, err)
		}
		_ = g.Release(d)
	}
	for i := range 300 { // every primary loads the script (NOSCRIPT, then EVAL) before the count
		admit(addrs + i)
	}
	primaries := c.Nodes[:3]
	for _, p := range primaries {
		if r, err := p.Command("CONFIG", "RESETSTAT"); err != nil || r != "+OK" {
			t.Fatalf("CONFIG RESETSTAT on %s = %q, %v", p.Addr(), r, err)
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(admits); i = next.Add(1) - 1 {
				admit(int(i) % addrs)
			}
		})
	}
	wg.Wait()
	var calls [3]int64
	var total int64
	for i, p := range primaries {
		calls[i] = stat(t, p, "commandstats", "cmdstat_evalsha", "calls") + stat(t, p, "commandstats", "cmdstat_eval", "calls")
		total += calls[i]
	}
	if total != int64(admits) {
		t.Errorf("the primaries ran %d scripts for %d admits, want one each", total, admits)
	}
	for i, n := range calls {
		share := float64(n) / float64(total)
		t.Logf("primary %s: %d EVALSHA of %d (%.2f%% of the admits, %+.2f%% of an equal third)", primaries[i].Addr(), n, total, 100*share, 100*(3*share-1))
		if share < 0.9/3 || share > 1.1/3 {
			t.Errorf("primary %s ran %d of %d admits: %.2f%% of a third, want within ±10%%", primaries[i].Addr(), n, total, 300*share)
		}
	}
}

// spreadSlotMigrationFailsNoAdmit checks Spread admits through a live
// migration of busy slabs (a gate of 8 slabs, so that each is busy): the
// slots of two slabs move, one after the other, to another primary
// (CLUSTER SETSLOT IMPORTING and MIGRATING, MIGRATE, SETSLOT NODE) while
// four workers admit keys of every slab; between the MIGRATE of a slab and
// the end of its slot's move, admits of that slab meet ASK, and after it,
// MOVED (TRYAGAIN needs a command over two keys of a slot half moved: a
// Spread admit has one key, so it meets none; the count is logged). No
// admit fails, each key's passes are exact (min(admits, cap):
// no refill), and every node's count is back to 0 once every pass is
// released.
func spreadSlotMigrationFailsNoAdmit(t *testing.T, c *redistest.Cluster) {
	client := newClusterClient(t, c)
	const slabs = 8
	g := newClusterGateIn(t, client, slowdown.Scale(10*time.Second), redisgate.Spread, slabs)
	ct := newClusterTally()
	const keys = 60
	bySlab := map[string][]string{}
	for i := range keys {
		k := "k" + strconv.Itoa(i)
		ct.admit(g, k)
		bySlab[spreadSlabKey(k, slabs)] = append(bySlab[spreadSlabKey(k, slabs)], k)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ct.admit(g, "k"+strconv.Itoa((w*97+i*13)%(2*keys)))
			}
		})
	}
	halt := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer halt() // a Fatal stops the workers too
	var moves int64
	for _, slab := range slices.Compact([]string{spreadSlabKey("k0", slabs), spreadSlabKey("k1", slabs)}) {
		moves += moveSpreadSlab(t, c, slab, func() {
			for _, k := range bySlab[slab] {
				ct.admit(g, k)
			}
		})
	}
	halt()
	if moves == 0 {
		t.Errorf("no MOVED at the sources: no admit met a moved slab (a client refreshes its slot map on the first, so each move need not show one)")
	}
	ct.check(t, g, nil)
}

// moveSpreadSlab moves the slot of slab, which holds the slab alone, to
// another primary (c.MoveSlot), calling admit after its MIGRATE, while
// the slot is still the source's (the source answers ASK), and once the
// move ends (MOVED, for a client that still maps the slot to the source).
// It fails t unless some admit met ASK, and returns the MOVED replies the
// source gave meanwhile.
func moveSpreadSlab(t *testing.T, c *redistest.Cluster, slab string, admit func()) int64 {
	t.Helper()
	slot, err := c.Slot(slab)
	if err != nil {
		t.Fatal(err)
	}
	from, err := c.Owner(slot)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := redistest.KeysInSlot(from, slot, 10); err != nil || len(n) != 1 || n[0] != slab {
		t.Fatalf("slot %d holds %v (%v) on its owner %s, want the slab %s alone", slot, n, err, from.Addr(), slab)
	}
	to := c.Nodes[0]
	if to == from {
		to = c.Nodes[1]
	}
	asks := stat(t, to, "commandstats", "cmdstat_asking", "calls")
	moved := stat(t, from, "errorstats", "errorstat_MOVED", "count")
	if err := c.MoveSlot(slot, to, 5, admit); err != nil { // one key: one batch
		t.Fatal(err)
	}
	admit()
	asks = stat(t, to, "commandstats", "cmdstat_asking", "calls") - asks
	moved = stat(t, from, "errorstats", "errorstat_MOVED", "count") - moved
	t.Logf("slab %s (slot %d) moved from %s to %s: ASKING %d, MOVED at the source %d, TRYAGAIN %d", slab, slot, from.Addr(), to.Addr(), asks, moved,
		stat(t, from, "errorstats", "errorstat_TRYAGAIN", "count")+stat(t, to, "errorstats", "errorstat_TRYAGAIN", "count"))
	if asks == 0 {
		t.Errorf("slab %s: no ASKING reached the target: no admit was redirected by ASK", slab)
	}
	if owner, err := c.Owner(slot); err != nil || owner != to {
		t.Fatalf("slot %d is on %v (%v) after the migration, want %s", slot, owner, err, to.Addr())
	}
	return moved
}

// spreadVectorsAndMachinePass runs every gate conformance vector, and the
// gate's rapid state machine (TestPropRedisGateEqualsModel's), against the
// Redis subject in the Spread layout on the cluster: one process is the
// model's single gate, and its slabs lie on every primary.
func spreadVectorsAndMachinePass(t *testing.T, c *redistest.Cluster) {
	r := subject.NewRedisFor(redisclient.Target{Mode: redisclient.Cluster, Addrs: c.Seeds()}).WithLayout(subject.LayoutSpread)
	t.Cleanup(r.Close)
	vectorsPassRedis(t, r, func(c oracle.Component) bool { return c == oracle.Gate })
	checkRedis(t, machineOn(r, oracle.Gate))
}

// spreadPrimaryKillFailsOverTruly is TestRedisClusterPrimaryKillFailsOverTruly
// for a Spread gate: kill -9 of the primary that holds key x's slab; the
// calls meanwhile fail as unavailable or indeterminate (DIST-5), none
// decides wrongly, and the client finds the promoted replica by itself,
// with the state it had (see failover).
func spreadPrimaryKillFailsOverTruly(t *testing.T, c *redistest.Cluster) {
	client := newClusterClient(t, c)
	slot, owner, replica := primaryWithReplica(t, c, spreadSlabKey("x", redisgate.DefaultSlabs))
	g := newClusterGateIn(t, client, 2*time.Second, redisgate.Spread, 0)
	s := newClusterStore(t, client, 2*time.Second)
	failover(t, g, s, func() {
		if n, err := redistest.KeysInSlot(owner, slot, 10); err != nil || len(n) == 0 {
			t.Fatalf("x's slab %s is not in slot %d on %s: %v %v", spreadSlabKey("x", redisgate.DefaultSlabs), slot, owner.Addr(), n, err)
		}
		waitSynced(t, owner, replica)
	}, owner.Kill, promoted(c, slot, replica))
}
