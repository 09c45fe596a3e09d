//go:build !fuzzsmoke

package fuzz

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/redisgate"
	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/limcheck/limcheck/internal/slowdown"
	"github.com/limcheck/limcheck/internal/subject"
)

// faultRig is a Redis store behind a fault proxy, on its own server, and a
// MemStore (equal to the model, TestPropImplThrottleEqualsModel) that gets
// exactly the operations the Redis store acknowledged.
type faultRig struct {
	srv   *redistest.Server
	proxy *redistest.Proxy
	redis *redisstore.Store
	mem   *throttle.MemStore
}

func newFaultRig(t *testing.T) *faultRig {
	t.Helper()
	srv := redistest.Start(t)
	proxy := redistest.NewProxy(t, srv.Addr())
	c, err := subject.NewClient(proxy.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	rs, err := redisstore.New(redisstore.Config{Client: c, Namespace: "faults", StampsPerKey: 4, TTL: time.Hour,
		Timeout: slowdown.Scale(500 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 4})
	if err != nil {
		t.Fatal(err)
	}
	return &faultRig{srv: srv, proxy: proxy, redis: rs, mem: mem}
}

// writes is the rig's write workload: each op applied to a store.
var faultWrites = []func(throttle.Store) error{
	func(s throttle.Store) error { _, err := s.AddFailure("a", 10, 100); return err },
	func(s throttle.Store) error { _, err := s.Ban("b", 500); return err },
	func(s throttle.Store) error { _, err := s.AddFailure("b", 20, 100); return err },
	func(s throttle.Store) error { return s.ClearFailures("b") },
	func(s throttle.Store) error { _, err := s.AddFailure("c", 30, 100); return err },
	func(s throttle.Store) error { return s.Clear("c") },
	func(s throttle.Store) error { _, err := s.Purge(200, 100); return err },
}

// both applies w to both stores; Redis must succeed.
func (r *faultRig) both(t *testing.T, w func(throttle.Store) error) {
	t.Helper()
	if err := w(r.redis); err != nil {
		t.Fatalf("redis store: %v", err)
	}
	if err := w(r.mem); err != nil {
		t.Fatalf("mem store: %v", err)
	}
}

// same fails t unless every read of both stores agrees.
func (r *faultRig) same(t *testing.T, when string) {
	t.Helper()
	for _, k := range []string{"a", "b", "c", "d"} {
		rb, err1 := r.redis.BanUntil(k)
		mb, _ := r.mem.BanUntil(k)
		rc, err2 := r.redis.Count(k, 150, 1000)
		mc, _ := r.mem.Count(k, 150, 1000)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatalf("%s: reads of %q: %v", when, k, err)
		}
		if rb != mb || rc != mc {
			t.Fatalf("%s: key %q: redis ban %d count %d, model (MemStore) ban %d count %d", when, k, rb, rc, mb, mc)
		}
	}
}

// TestRedisStoreDefiniteFaultsLoseNothing checks that while connects are
// refused or reset, every store operation fails with a *StoreError, has no
// effect, and everything acknowledged before is intact afterwards (STORE-1,
// DIST-5).
func TestRedisStoreDefiniteFaultsLoseNothing(t *testing.T) {
	r := newFaultRig(t)
	for _, mode := range []redistest.Mode{redistest.Refuse, redistest.Reset} {
		r.both(t, faultWrites[0])
		if err := r.proxy.SetMode(mode); err != nil {
			t.Fatal(err)
		}
		for i, w := range faultWrites {
			var se *throttle.StoreError
			if err := w(r.redis); !errors.As(err, &se) {
				t.Fatalf("mode %d: write %d = %v, want a *throttle.StoreError", mode, i, err)
			}
		}
		if _, err := r.redis.BanUntil("a"); !errors.Is(err, redisstore.ErrUnavailable) {
			t.Fatalf("mode %d: BanUntil = %v, want ErrUnavailable", mode, err)
		}
		// A refused connect is definite. A reset during the connection's
		// handshake may read as ambiguous (the client cannot tell how far
		// it got), which is the safe side; either way nothing ran.
		_, err := r.redis.AddFailure("a", 11, 100)
		if mode == redistest.Refuse && !errors.Is(err, redisstore.ErrUnavailable) {
			t.Fatalf("AddFailure on a refused connect = %v, want ErrUnavailable (definite)", err)
		}
		if !errors.Is(err, redisstore.ErrUnavailable) && !errors.Is(err, redisstore.ErrIndeterminate) {
			t.Fatalf("mode %d: AddFailure = %v, want ErrUnavailable or ErrIndeterminate", mode, err)
		}
		if err := r.proxy.SetMode(redistest.Pass); err != nil {
			t.Fatal(err)
		}
		r.same(t, "after the fault")
	}
	for _, w := range faultWrites {
		r.both(t, w)
	}
	r.same(t, "after the workload")
}

// TestRedisStoreLostReplyIsIndeterminateAndNotRetried checks DIST-5: a write
// whose reply is lost fails with ErrIndeterminate and took effect at most
// once (never retried: once when Redis executed it, not at all when the
// connection's reset cut it off first), and that a read whose reply is lost
// has no effect.
func TestRedisStoreLostReplyIsIndeterminateAndNotRetried(t *testing.T) {
	r := newFaultRig(t)
	for _, w := range faultWrites { // connected, every script loaded: the next reply is the op's
		r.both(t, w)
	}
	// Every write is one script or command here, Purge too (one script
	// per partition, and the rig's store has one).
	for i, w := range faultWrites {
		if err := r.proxy.SetMode(redistest.DropReply); err != nil {
			t.Fatal(err)
		}
		before := r.proxy.Drops()
		err := w(r.redis)
		if r.proxy.Drops() != before+1 {
			t.Fatalf("write %d: the proxy dropped %d replies, want 1", i, r.proxy.Drops()-before)
		}
		if !errors.Is(err, redisstore.ErrIndeterminate) {
			t.Fatalf("write %d with its reply lost = %v, want ErrIndeterminate", i, err)
		}
		// Ambiguous means it ran once or not at all, never twice: the
		// proxy drops the next reply on the connection, which is the
		// write's own unless the client's background traffic (a PING)
		// got there first, and then the reset can cut the write off before
		// the server read it. Either way Redis holds the model's state with
		// the write applied once, or the state before it.
		was := r.state(t, r.mem)
		if err := w(r.mem); err != nil {
			t.Fatal(err)
		}
		switch got := r.state(t, r.redis); got {
		case r.state(t, r.mem): // it ran once
		case was: // it never reached the server: run it now, so the stores agree
			t.Logf("write %d: the reset cut it off before the server read it (another reply was the one dropped)", i)
			if err := w(r.redis); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("write %d with its reply lost: redis holds %v, want the state before it %v or after it once %v", i, got, was, r.state(t, r.mem))
		}
		r.same(t, "after a lost reply")
	}
}

// state is (ban-until, count at 150 over a window of 1000) of each key
// same compares, in s.
func (r *faultRig) state(t *testing.T, s throttle.Store) [4][2]uint64 {
	t.Helper()
	var out [4][2]uint64
	for i, k := range []string{"a", "b", "c", "d"} {
		b, err1 := s.BanUntil(k)
		c, err2 := s.Count(k, 150, 1000)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatalf("reads of %q: %v", k, err)
		}
		out[i] = [2]uint64{b, c}
	}
	return out
}

// TestRedisStoreBlackholeReturnsWithinTimeout checks that a store call to a
// server that never answers returns an error (ambiguous for a write) within
// its timeout, not after a hang, and that nothing it sent took effect.
func TestRedisStoreBlackholeReturnsWithinTimeout(t *testing.T) {
	r := newFaultRig(t)
	r.both(t, faultWrites[0])
	if err := r.proxy.SetMode(redistest.Blackhole); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := r.redis.AddFailure("a", 12, 100)
	if !errors.Is(err, redisstore.ErrIndeterminate) {
		t.Fatalf("AddFailure into a black hole = %v, want ErrIndeterminate", err)
	}
	if limit := slowdown.Scale(5 * time.Second); time.Since(start) > limit {
		t.Fatalf("AddFailure into a black hole took %v, more than %v", time.Since(start), limit)
	}
	if err := r.proxy.SetMode(redistest.Reset); err != nil { // drop the stuck connection
		t.Fatal(err)
	}
	if err := r.proxy.SetMode(redistest.Pass); err != nil {
		t.Fatal(err)
	}
	r.same(t, "after the black hole") // the proxy forwarded nothing
}

// TestRedisStoreSurvivesKill9 checks that every operation acknowledged
// before a kill -9 of redis-server is there after a restart from its
// append-only file (appendfsync always), that operations while it is down
// fail, and that the scripts run again after the restart (NOSCRIPT, then
// EVAL).
func TestRedisStoreSurvivesKill9(t *testing.T) {
	r := newFaultRig(t)
	for _, w := range faultWrites[:5] {
		r.both(t, w)
	}
	r.srv.Kill()
	for i, w := range faultWrites {
		var se *throttle.StoreError
		if err := w(r.redis); !errors.As(err, &se) {
			t.Fatalf("write %d while down = %v, want a *throttle.StoreError", i, err)
		}
	}
	if err := r.srv.Restart(); err != nil {
		t.Fatal(err)
	}
	r.same(t, "after the restart")
	for _, w := range faultWrites {
		r.both(t, w)
	}
	r.same(t, "after the workload")
}

// TestRedisKeysAllHaveTTL checks DIST-6: after a workload of every store
// operation and of gate admits and releases, every key either wrote has a
// TTL, so nothing outlives its use.
func TestRedisKeysAllHaveTTL(t *testing.T) {
	r := newFaultRig(t)
	for _, w := range faultWrites {
		r.both(t, w)
	}
	c, err := subject.NewClient(r.srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	g := newLinRedisGate(t, c, "ttl", 2, time.Minute)
	for _, ip := range []string{"a", "b", "c"} {
		d, err := g.Admit(ip, 5)
		if err != nil {
			t.Fatal(err)
		}
		if ip == "a" {
			_ = g.Release(d)
		}
	}
	ctx := context.Background()
	keys, err := c.Do(ctx, c.B().Keys().Pattern("*").Build()).AsStrSlice()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) < 4 {
		t.Fatalf("KEYS * = %q, want the store's and the gate's keys", keys)
	}
	for _, k := range keys {
		ttl, err := c.Do(ctx, c.B().Pttl().Key(k).Build()).AsInt64()
		if err != nil || ttl <= 0 {
			t.Errorf("key %q: PTTL %d (%v), want a TTL", k, ttl, err)
		}
	}
}

// TestRedisFailoverLosesAcknowledgedWrites pins DIST-7's limit: replication
// is asynchronous, so a failover to a replica can lose writes the primary
// acknowledged. Failures that WAIT saw on the replica survive; two more,
// acknowledged while the replication link lagged (here: a black-holed
// proxy between them), are gone after the primary is killed and the replica
// promoted, so the key's count is lower than the model's.
func TestRedisFailoverLosesAcknowledgedWrites(t *testing.T) {
	primary := redistest.Start(t)
	link := redistest.NewProxy(t, primary.Addr())
	replica := redistest.StartReplica(t, link.Addr())
	c, err := subject.NewClient(primary.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := redisstore.New(redisstore.Config{Client: c, Namespace: "failover", StampsPerKey: 8, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	add := func(now uint64, want uint64) {
		t.Helper()
		if n, err := s.AddFailure("k", now, 100); err != nil || n != want {
			t.Fatalf("AddFailure(k, %d) = %d, %v; want %d", now, n, err, want)
		}
	}
	for i := range uint64(3) {
		add(10+i, i+1)
	}
	// The replica has the first three once it has processed the primary's
	// whole replication stream. (WAIT cannot say so: it counts only the
	// writes of its own connection, none here, since the store writes on
	// rueidis's; it answered :1 at once while the replica, on a busy
	// machine, still had nothing.)
	want := replOffset(t, primary)
	for deadline := time.Now().Add(slowdown.Scale(30 * time.Second)); replOffset(t, replica) < want; {
		if time.Now().After(deadline) {
			t.Fatalf("the replica has not processed the primary's replication stream up to %d", want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := link.SetMode(redistest.Blackhole); err != nil {
		t.Fatal(err)
	}
	add(13, 4) // acknowledged by the primary alone
	add(14, 5)
	primary.Kill()
	if got, err := replica.Command("REPLICAOF", "NO", "ONE"); err != nil || got != "+OK" {
		t.Fatalf("REPLICAOF NO ONE = %q, %v", got, err)
	}
	rc, err := subject.NewClient(replica.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	promoted, err := redisstore.New(redisstore.Config{Client: rc, Namespace: "failover", StampsPerKey: 8, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	n, err := promoted.Count("k", 14, 100)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("count after the failover = %d, want 3: the model (and the primary) had 5, two acknowledged failures lost", n)
	}
}

// TestRedisOutOfMemoryRefusesWritesWhole checks DIST-5's definite case of a
// full server: under maxmemory (policy noeviction) every write script is
// refused before it runs (#!lua), so each fails with ErrUnavailable and
// changes nothing; reads still answer; a gate admit is refused the same way.
// Clear is one HDEL, which Redis runs on a full server (it frees memory):
// it succeeds, and has its effect.
func TestRedisOutOfMemoryRefusesWritesWhole(t *testing.T) {
	r := newFaultRig(t)
	for _, w := range faultWrites[:5] {
		r.both(t, w)
	}
	if got, err := r.srv.Command("CONFIG", "SET", "maxmemory", "1"); err != nil || got != "+OK" {
		t.Fatalf("CONFIG SET maxmemory 1 = %q, %v", got, err)
	}
	for i, w := range faultWrites {
		if i == 5 { // Clear: HDEL
			r.both(t, w)
			continue
		}
		if err := w(r.redis); !errors.Is(err, redisstore.ErrUnavailable) {
			t.Fatalf("write %d under OOM = %v, want ErrUnavailable (refused before it ran)", i, err)
		}
	}
	c, err := subject.NewClient(r.srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	g := newLinRedisGate(t, c, "oom", 2, time.Minute)
	if _, err := g.Admit("a", 0); !errors.Is(err, redisgate.ErrUnavailable) {
		t.Fatalf("Admit under OOM = %v, want ErrUnavailable", err)
	}
	r.same(t, "under OOM") // reads answer, nothing but the Clear changed
	if got, err := r.srv.Command("CONFIG", "SET", "maxmemory", "0"); err != nil || got != "+OK" {
		t.Fatalf("CONFIG SET maxmemory 0 = %q, %v", got, err)
	}
	r.same(t, "after OOM")
}

// replOffset is the master_repl_offset of srv's INFO replication: on a
// primary the end of its replication stream, on a replica how far it has
// processed its primary's.
func replOffset(t *testing.T, srv *redistest.Server) int64 {
	t.Helper()
	info, err := srv.Command("INFO", "replication")
	if err != nil {
		t.Fatalf("INFO replication: %v", err)
	}
	_, rest, ok := strings.Cut(info, "master_repl_offset:")
	if !ok {
		t.Fatalf("INFO replication has no master_repl_offset: %q", info)
	}
	digits, _, _ := strings.Cut(rest, "\r")
	n, err := strconv.ParseInt(strings.TrimSpace(digits), 10, 64)
	if err != nil {
		t.Fatalf("INFO replication's master_repl_offset: %v in %q", err, info)
	}
	return n
}
