//go:build !fuzzsmoke

package fuzz

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	ilim "github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisclient"
	"github.com/limcheck/limcheck/impl/redisgate"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/limcheck/limcheck/internal/slowdown"
	"github.com/limcheck/limcheck/internal/subject"
	"github.com/limcheck/limcheck/oracle"
	"github.com/redis/rueidis"
)

// The cluster tests' gate: cap 3 and no refill within a test (ivl 2^40
// ticks, every admit at tick 0), so a key admitted n times passes exactly
// min(n, 3) times in any order; the production layout (a set per key), so
// keys never share a bucket; no shedding (maxif 2^30). The gate's tag
// {lim:NAME} has slot 13907, and so has the tag {NS:0} of the cluster
// store's one partition (thr:{NS:0}, NS its namespace): the store's keys
// live in the gate's slot, and move with it.
const (
	clusterCap       = 3
	clusterName      = "mig40111"
	clusterTag       = "{lim:" + clusterName + "}"
	clusterNamespace = "mig21899"
	clusterPartition = "thr:{" + clusterNamespace + ":0}"
)

// newClusterGate is the cluster tests' gate over c in the Exact layout; its
// calls time out after timeout.
func newClusterGate(t *testing.T, c rueidis.Client, timeout time.Duration) *redisgate.Gate {
	t.Helper()
	return newClusterGateIn(t, c, timeout, redisgate.Exact, 0)
}

// clusterSeed is the seed of the cluster tests' gate.
var clusterSeed = [16]byte{1, 2, 3}

// newClusterGateIn is the cluster tests' gate over c in layout mode with
// slabs slabs (0 in the Exact layout, or for the default).
func newClusterGateIn(t *testing.T, c rueidis.Client, timeout time.Duration, mode redisgate.Mode, slabs int64) *redisgate.Gate {
	t.Helper()
	seed := clusterSeed
	g, err := redisgate.New(redisgate.Config{Client: c, Name: clusterName, Lim: ilim.NewConfig(clusterCap, 1, 1<<40, 1<<30),
		Sets: math.MaxInt64, Ways: 1, TickNanos: 1, Seed: &seed, LeaseTTL: time.Hour, Timeout: timeout, Mode: mode, Slabs: slabs})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// newClusterStore is a throttle store of one partition, clusterPartition:
// its keys live in the gate's slot, and move with it.
func newClusterStore(t *testing.T, c rueidis.Client, timeout time.Duration) *redisstore.Store {
	t.Helper()
	s, err := redisstore.New(redisstore.Config{Client: c, Namespace: clusterNamespace, StampsPerKey: 64, TTL: time.Hour, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// clusterTally counts, per key, the admits and passes of the gate and the
// failures added to the store, from any goroutine.
type clusterTally struct {
	mu      sync.Mutex
	admits  map[string]int
	passes  map[string]int
	adds    map[string]uint64
	lastAdd map[string]uint64 // the largest count an AddFailure returned
	errs    []error
}

func newClusterTally() *clusterTally {
	return &clusterTally{admits: map[string]int{}, passes: map[string]int{}, adds: map[string]uint64{}, lastAdd: map[string]uint64{}}
}

// admit admits ip at tick 0 and releases a pass at once.
func (ct *clusterTally) admit(g *redisgate.Gate, ip string) {
	d, err := g.Admit(ip, 0)
	if err == nil && d.Verdict == gate.Pass {
		err = g.Release(d)
	}
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if err != nil {
		ct.errs = append(ct.errs, fmt.Errorf("admit %s: %w", ip, err))
		return
	}
	ct.admits[ip]++
	if d.Verdict == gate.Pass {
		ct.passes[ip]++
	}
}

// fail adds one failure to key at time 1000, within a window that never
// ends.
func (ct *clusterTally) fail(s *redisstore.Store, key string) {
	n, err := s.AddFailure(key, 1000, 1<<40)
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if err != nil {
		ct.errs = append(ct.errs, fmt.Errorf("add failure %s: %w", key, err))
		return
	}
	ct.adds[key]++
	ct.lastAdd[key] = max(ct.lastAdd[key], n)
}

// check fails t unless no call failed and every key's passes and failure
// count are exact: min(admits, cap) passes, as many stamps as adds.
func (ct *clusterTally) check(t *testing.T, g *redisgate.Gate, s *redisstore.Store) {
	t.Helper()
	for _, err := range ct.errs {
		t.Error(err)
	}
	for ip, n := range ct.admits {
		if want := min(n, clusterCap); ct.passes[ip] != want {
			t.Errorf("key %s: %d passes of %d admits, want %d", ip, ct.passes[ip], n, want)
		}
	}
	for key, n := range ct.adds {
		got, err := s.Count(key, 1000, 1<<40)
		if err != nil || got != n || ct.lastAdd[key] != n {
			t.Errorf("key %s: Count = %d, %v and the last AddFailure said %d; want %d (one stamp per add)", key, got, err, ct.lastAdd[key], n)
		}
	}
	if n, err := g.InFlight(); err != nil || n != 0 {
		t.Errorf("InFlight() = %d, %v after every pass was released, want 0", n, err)
	}
}

// stat reads one counter of INFO on node: a line "NAME:FIELD=N,..." (an
// errorstat's count, a cmdstat's calls); 0 when the line is absent.
func stat(t *testing.T, node *redistest.Server, section, name, field string) int64 {
	t.Helper()
	info, err := node.Command("INFO", section)
	if err != nil {
		t.Fatalf("INFO %s on %s: %v", section, node.Addr(), err)
	}
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `:.*\b` + field + `=(\d+)`).FindStringSubmatch(info)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// TestRedisClusterSlotMigrationFailsNoCall: the gate's slot (and a throttle
// store's keys in it) moves from one primary to another, key by key
// (CLUSTER SETSLOT IMPORTING and MIGRATING, MIGRATE ... KEYS, SETSLOT
// NODE), while admits and AddFailures run: the calls that meet TRYAGAIN
// (some of a call's keys moved, some not), ASK (all moved) or MOVED (after
// the move) are retried or redirected within their timeout, and no call
// fails; each key's passes and failure count are exact afterwards, and the
// lease set is empty once every pass is released.
func TestRedisClusterSlotMigrationFailsNoCall(t *testing.T) {
	c := redistest.StartCluster(t, 0)
	client, err := redisclient.New(redisclient.Target{Mode: redisclient.Cluster, Addrs: c.Seeds()})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	timeout := slowdown.Scale(10 * time.Second) // longer than the whole migration: a new key's admit waits it out
	g, s := newClusterGate(t, client, timeout), newClusterStore(t, client, timeout)
	ct := newClusterTally()
	holder, err := g.Admit("holder", 0) // a lease held throughout: the lease set exists on one node or the other
	if err != nil || holder.Verdict != gate.Pass {
		t.Fatalf("Admit(holder) = %+v, %v", holder, err)
	}
	const keys = 60
	for i := range keys {
		ct.admit(g, "k"+strconv.Itoa(i))
		ct.fail(s, "f"+strconv.Itoa(i))
	}
	slot, err := c.Slot(clusterTag + ":if")
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := c.Slot(clusterPartition); err != nil || ps != slot {
		t.Fatalf("the store's partition %s is in slot %d (%v), want the gate's, %d", clusterPartition, ps, err, slot)
	}
	from, err := c.Owner(slot)
	if err != nil {
		t.Fatal(err)
	}
	to := c.Nodes[0]
	if to == from {
		to = c.Nodes[1]
	}
	if err := redistest.BeginMigration(slot, from, to); err != nil {
		t.Fatal(err)
	}
	// The lease set moves first: an admit of a key whose set is still on
	// the source now meets TRYAGAIN until its set moves too.
	if err := redistest.MigrateKeys(from, to, clusterTag+":if"); err != nil {
		t.Fatal(err)
	}
	tryagain := func() int64 {
		return stat(t, from, "errorstats", "errorstat_TRYAGAIN", "count") + stat(t, to, "errorstats", "errorstat_TRYAGAIN", "count")
	}
	var wg sync.WaitGroup
	wg.Go(func() { ct.admit(g, "k0") })
	for deadline := time.Now().Add(timeout); tryagain() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no TRYAGAIN within %v while k0's set and the lease set are on two nodes", timeout)
		}
	}
	// Load while the rest moves, a batch of 5 keys at a time: old keys,
	// new keys (whose admits wait for the slot's end: TRYAGAIN on the
	// target, which lacks their set), and failures.
	stop := make(chan struct{})
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := (w*97 + i*13) % (2 * keys)
				ct.admit(g, "k"+strconv.Itoa(k))
				if i%3 == 0 && k < keys {
					ct.fail(s, "f"+strconv.Itoa(k))
				}
			}
		})
	}
	moved := 0
	for {
		ks, err := redistest.KeysInSlot(from, slot, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(ks) == 0 {
			break
		}
		if err := redistest.MigrateKeys(from, to, ks...); err != nil {
			t.Fatal(err)
		}
		moved += len(ks)
		time.Sleep(time.Millisecond) // let the load meet the slot half moved
	}
	// Every key is on the target, the slot still the source's: the source
	// answers ASK, and the target runs the admit after ASKING.
	ct.admit(g, "k1")
	if err := c.EndMigration(slot, to); err != nil {
		t.Fatal(err)
	}
	for i := range keys { // after the move: MOVED for a client that still maps the slot to the source
		ct.admit(g, "k"+strconv.Itoa(i))
	}
	close(stop)
	wg.Wait()
	if err := g.Release(holder); err != nil {
		t.Fatal(err)
	}
	if owner, err := c.Owner(slot); err != nil || owner != to {
		t.Fatalf("slot %d is on %v (%v) after the migration, want %s", slot, owner, err, to.Addr())
	}
	asks := stat(t, to, "commandstats", "cmdstat_asking", "calls")
	t.Logf("slot %d: %d keys moved from %s to %s; TRYAGAIN %d, ASKING %d, MOVED at the source %d", slot, moved, from.Addr(), to.Addr(),
		tryagain(), asks, stat(t, from, "errorstats", "errorstat_MOVED", "count"))
	if asks == 0 {
		t.Errorf("no ASKING reached the target: no call was redirected by ASK")
	}
	ct.check(t, g, s)
}

// TestRedisClusterPartitionedStorePassesVectors runs every throttle and
// throttle_faults vector through the Redis subject on a cluster of three
// primaries, its store over 8 partitions: each operation stays in one
// slot (a key's partition and its reservations share a hash tag), so every
// vector passes as on one server; and, by the cluster's own CLUSTER
// KEYSLOT, a namespace's 8 partitions spread over more than one primary
// and partition 0 of two namespaces is in two slots.
func TestRedisClusterPartitionedStorePassesVectors(t *testing.T) {
	c := redistest.StartCluster(t, 0)
	r := subject.NewRedisFor(redisclient.Target{Mode: redisclient.Cluster, Addrs: c.Seeds()})
	defer r.Close()
	r.Partitions = 8
	vectorsPassRedis(t, r, func(comp oracle.Component) bool { return comp == oracle.Throttle || comp == oracle.ThrottleFaults })
	owners := map[string]bool{}
	for p := range 8 {
		slot, err := c.Slot(fmt.Sprintf("thr:{ns:%d}", p))
		if err != nil {
			t.Fatal(err)
		}
		owner, err := c.Owner(slot)
		if err != nil {
			t.Fatal(err)
		}
		owners[owner.Addr()] = true
	}
	if len(owners) < 2 {
		t.Errorf("8 partitions' slots are on %d primaries of 3, want them spread", len(owners))
	}
	a, errA := c.Slot("thr:{login:0}")
	b, errB := c.Slot("thr:{api:0}")
	if errA != nil || errB != nil || a == b {
		t.Errorf("partition 0 of namespaces login and api: slots %d, %d (%v, %v), want two slots", a, b, errA, errB)
	}
}
