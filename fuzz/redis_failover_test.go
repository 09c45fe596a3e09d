//go:build !fuzzsmoke

package fuzz

import (
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/redisclient"
	"github.com/limcheck/limcheck/impl/redisgate"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/limcheck/limcheck/internal/slowdown"
)

// failover drives the cluster tests' gate g and store s (their calls time
// out after 2s) through a kill -9 of a primary that serves them (kill),
// after which a replica takes over (promoted reports it). Before the kill, key x is admitted until limited
// and key fx gets three failures, and the replica has caught up (synced).
// Then workers admit fresh keys (each once) and add failures to fresh
// keys, without pause, through the outage and after, until an admit
// succeeds on the new primary. It fails t unless:
//   - every failed call wraps the package's ErrUnavailable or
//     ErrIndeterminate (DIST-5: the outage is reported as such), and at
//     least one failed (the outage was seen);
//   - every admit that succeeded passed (a fresh key's bucket is full), and
//     every AddFailure that succeeded counted 1: no decision is wrong;
//   - after the failover the client recovered by itself: x is still
//     limited and fx has its three failures (what the replica had).
func failover(t *testing.T, g *redisgate.Gate, s *redisstore.Store, synced func(), kill func(), promoted func() bool) {
	t.Helper()
	for i := range clusterCap + 1 {
		d, err := g.Admit("x", 0)
		if err != nil || (i < clusterCap) != (d.Verdict == gate.Pass) {
			t.Fatalf("admit %d of x = %v, %v", i, d.Verdict, err)
		}
	}
	for range 3 {
		if _, err := s.AddFailure("fx", 1000, 1<<40); err != nil {
			t.Fatal(err)
		}
	}
	synced()
	var (
		mu      sync.Mutex
		errs    []error
		wrong   []string
		fresh   atomic.Int64
		stop    = make(chan struct{})
		wg      sync.WaitGroup
		outages atomic.Int64
		unsure  atomic.Int64 // the failed calls reported indeterminate
	)
	report := func(err error, store bool) {
		definite, ambiguous := redisgate.ErrUnavailable, redisgate.ErrIndeterminate
		if store {
			definite, ambiguous = redisstore.ErrUnavailable, redisstore.ErrIndeterminate
		}
		outages.Add(1)
		if errors.Is(err, ambiguous) {
			unsure.Add(1)
		}
		if !errors.Is(err, definite) && !errors.Is(err, ambiguous) {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	}
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				k := strconv.FormatInt(fresh.Add(1), 10)
				if d, err := g.Admit("n"+k, 0); err != nil {
					report(err, false)
				} else if d.Verdict != gate.Pass {
					mu.Lock()
					wrong = append(wrong, "admit of fresh key n"+k+": "+d.Verdict.String())
					mu.Unlock()
				} else if err := g.Release(d); err != nil {
					report(err, false)
				}
				if n, err := s.AddFailure("fn"+k, 1000, 1<<40); err != nil {
					report(err, true)
				} else if n != 1 {
					mu.Lock()
					wrong = append(wrong, "first failure of fresh key fn"+k+" counted "+strconv.FormatUint(n, 10))
					mu.Unlock()
				}
			}
		})
	}
	time.Sleep(10 * time.Millisecond) // the workers are busy before the kill
	kill()
	within := slowdown.Scale(30 * time.Second)
	deadline := time.Now().Add(within)
	for !promoted() {
		if time.Now().After(deadline) {
			close(stop)
			wg.Wait()
			t.Fatalf("no replica took over within %v", within)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var after redisgate.Decision
	var err error
	for {
		if after, err = g.Admit("x", 0); err == nil {
			break
		}
		report(err, false)
		if time.Now().After(deadline) {
			close(stop)
			wg.Wait()
			t.Fatalf("the gate did not recover within %v of the kill: %v", within, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	for _, err := range errs {
		t.Errorf("a failure reported as neither unavailable nor indeterminate: %v", err)
	}
	for _, w := range wrong {
		t.Errorf("a wrong decision: %s", w)
	}
	if outages.Load() == 0 {
		t.Errorf("no call failed: the kill went unseen")
	}
	if after.Verdict != gate.Limited {
		t.Errorf("admit of x after the failover = %v, want limited (the replica had its bucket)", after.Verdict)
	}
	if n, err := s.Count("fx", 1000, 1<<40); err != nil || n != 3 {
		t.Errorf("Count(fx) after the failover = %d, %v; want 3", n, err)
	}
	t.Logf("%d fresh keys, %d failed calls (%d indeterminate)", fresh.Load(), outages.Load(), unsure.Load())
}

// waitSynced waits until replica has processed primary's whole replication
// stream.
func waitSynced(t *testing.T, primary, replica *redistest.Server) {
	t.Helper()
	deadline := time.Now().Add(slowdown.Scale(10 * time.Second))
	for replOffset(t, replica) < replOffset(t, primary) {
		if time.Now().After(deadline) {
			t.Fatalf("the replica %s did not catch up with %s", replica.Addr(), primary.Addr())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestRedisClusterPrimaryKillFailsOverTruly: kill -9 of the primary that
// holds the gate's slot (with a replica to take over): the calls meanwhile
// fail as unavailable or indeterminate, none decides wrongly, and the
// cluster client finds the promoted replica by itself, with the state it
// had (see failover).
func TestRedisClusterPrimaryKillFailsOverTruly(t *testing.T) {
	c := redistest.StartCluster(t, 1)
	client, err := redisclient.New(redisclient.Target{Mode: redisclient.Cluster, Addrs: c.Seeds()})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	slot, owner, replica := primaryWithReplica(t, c, clusterTag+":if")
	g, s := newClusterGate(t, client, 2*time.Second), newClusterStore(t, client, 2*time.Second)
	failover(t, g, s, func() { waitSynced(t, owner, replica) }, owner.Kill, promoted(c, slot, replica))
}

// primaryWithReplica returns the slot of key, the primary that holds it and
// a live replica of that primary; the test fails when there is none.
func primaryWithReplica(t *testing.T, c *redistest.Cluster, key string) (slot int, owner, replica *redistest.Server) {
	t.Helper()
	slot, err := c.Slot(key)
	if err != nil {
		t.Fatal(err)
	}
	if owner, err = c.Owner(slot); err != nil {
		t.Fatal(err)
	}
	if replica, err = c.ReplicaOf(owner); err != nil || replica == nil {
		t.Fatalf("no replica of %s: %v", owner.Addr(), err)
	}
	return slot, owner, replica
}

// promoted reports, when called, whether replica now holds slot: the
// cluster failed over to it.
func promoted(c *redistest.Cluster, slot int, replica *redistest.Server) func() bool {
	return func() bool {
		o, err := c.Owner(slot)
		return err == nil && o == replica
	}
}

// TestRedisSentinelFailoverFailsOverTruly: kill -9 of the primary under a
// Sentinel: the calls meanwhile fail as unavailable or indeterminate, none
// decides wrongly, and the Sentinel client follows the Sentinel to the
// promoted replica by itself, with the state it had (see failover).
func TestRedisSentinelFailoverFailsOverTruly(t *testing.T) {
	s := redistest.StartSentinel(t)
	client, err := redisclient.New(redisclient.Target{Mode: redisclient.Sentinel, Master: redistest.MasterName, Addrs: s.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	g, st := newClusterGate(t, client, 2*time.Second), newClusterStore(t, client, 2*time.Second)
	failover(t, g, st, func() { waitSynced(t, s.Primary, s.Replica) }, s.Primary.Kill, func() bool {
		a, err := s.PrimaryAddr()
		return err == nil && a == s.Replica.Addr()
	})
}
