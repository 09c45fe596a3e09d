//go:build !fuzzsmoke

package fuzz

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/anishathalye/porcupine"
	ithrottle "github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/limcheck/limcheck/internal/subject"
	"github.com/limcheck/limcheck/oracle"
	"github.com/redis/rueidis"
)

// redisPartition is the name of key's partition in a store of namespace ns
// over parts partitions, as redisstore's doc gives it: thr:{NS:P} with P
// the FNV-1a 64 hash of the key's bytes modulo parts.
func redisPartition(ns string, parts int, key string) string {
	h := fnv.New64a()
	h.Write([]byte(key))
	return fmt.Sprintf("thr:{%s:%d}", ns, h.Sum64()%uint64(parts))
}

// reservationsKey is the name of key's reservations in such a store:
// thr:{NS:P}:r:K.
func reservationsKey(ns string, parts int, key string) string {
	return redisPartition(ns, parts, key) + ":r:" + key
}

// linPurgeClient is a rueidis client that adds, for each purge script it
// runs (purge.lua as the store loads it, redisstore.JoinLib, by its source
// or SHA-1), the script's count of purged
// keys to its partition's, and runs hook once, right after the first such
// script has its reply: a deterministic interleaving between two
// partitions' purges. An EVALSHA answered NOSCRIPT (the script's first run
// on a fresh server) is no purge's reply: the hook waits for the EVAL
// rueidis sends next, or a test run alone would interleave before any
// partition was purged.
type linPurgeClient struct {
	rueidis.Client
	src, sha string
	counts   map[string]uint64 // partition name -> keys purged
	hook     func()
}

// readScript reads a script of the module (the tests run in fuzz/).
func readScript(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", path))
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return string(b)
}

func newLinPurgeClient(t *testing.T, c rueidis.Client) *linPurgeClient {
	src := redisstore.JoinLib(readScript(t, "impl/throttle/redisstore/lua/lib.lua"), readScript(t, "impl/throttle/redisstore/lua/purge.lua"))
	sum := sha1.Sum([]byte(src))
	return &linPurgeClient{Client: c, src: src, sha: hex.EncodeToString(sum[:]), counts: map[string]uint64{}}
}

func (c *linPurgeClient) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	args := cmd.Commands() // read before Do: rueidis recycles a command once it has a reply
	purge := len(args) >= 4 && (args[0] == "EVALSHA" || args[0] == "EVAL") && (args[1] == c.sha || args[1] == c.src)
	part := ""
	if purge {
		part = strings.Clone(args[3])
	}
	r := c.Client.Do(ctx, cmd)
	if !purge {
		return r
	}
	a, err := r.ToArray()
	if err != nil || len(a) != 2 {
		return r // not a purge's reply: a NOSCRIPT, after which rueidis sends the script by EVAL
	}
	n, _ := a[1].AsInt64()
	c.counts[part] += uint64(n)
	if h := c.hook; h != nil {
		c.hook = nil
		h()
	}
	return r
}

// linPartNode is one node of a partitioned history: a throttle over a
// redisstore of parts partitions behind a linPurgeClient. split is its
// history with each purge_expired split into one operation per partition
// (its partition's name as the input's key, its count as the output), each
// over the purge's whole call-return interval: the history that the
// store's promise (each partition's purge is one atomic step) makes
// linearizable partition by partition.
type linPartNode struct {
	rec   *linPurgeClient
	thr   *ithrottle.Throttle
	names []string
	split []porcupine.Operation
}

func newLinPartNode(t *testing.T, c rueidis.Client, ns string, parts int) *linPartNode {
	t.Helper()
	n := &linPartNode{rec: newLinPurgeClient(t, c)}
	s, err := redisstore.New(redisstore.Config{Client: n.rec, Namespace: ns, Partitions: parts, StampsPerKey: linThrThreshold, TTL: subject.RedisTTL})
	if err != nil {
		t.Fatal(err)
	}
	n.thr = newLinImplThrottle(t, s)
	for p := range parts {
		n.names = append(n.names, fmt.Sprintf("thr:{%s:%d}", ns, p))
	}
	return n
}

// do runs in on the node for client c, recording it whole in c.ops and
// split in n.split.
func (n *linPartNode) do(c *linClient, in linThrIn) linThrOut {
	clear(n.rec.counts)
	out := linDo(c, in, func() linThrOut { return linThrCall(n.thr, in) })
	op := c.ops[len(c.ops)-1]
	if in.kind != oracle.PurgeExpired {
		n.split = append(n.split, op)
		return out
	}
	for _, name := range n.names {
		sub, pin := op, in
		pin.key = name
		sub.Input, sub.Output = pin, linThrOut{Count: n.rec.counts[name], Failed: out.Failed}
		n.split = append(n.split, sub)
	}
	return out
}

// linStoreParts is the porcupine model of split histories of a store of
// namespace ns over parts partitions, checked partition by partition: a
// keyed operation's partition is its key's, a split purge's its input key.
func linStoreParts(ns string, parts int) porcupine.Model {
	return linModel(newLinThrMachine, func(in linThrIn) string {
		if in.kind == oracle.PurgeExpired {
			return in.key
		}
		return redisPartition(ns, parts, linThrKey(in))
	})
}

// TestLinRedisPartitionedPurgeIsLinearizablePerPartition checks DIST-11: what the
// store promises of a purge over several partitions: concurrent histories
// of four throttles, one per node, over 2 partitions (linThrKeys[0] in
// partition 0, the other keys in partition 1), with purge_expired, are
// linearizable with respect to model/throttle partition by partition, each
// purge split into its partitions' atomic steps with their counts. The
// histories must purge some key.
func TestLinRedisPartitionedPurgeIsLinearizablePerPartition(t *testing.T) {
	srv, r := sharedRedis(t)
	clients := linRedisClients(t, srv.Addr())
	purged := 0
	for round := range redisLinRounds() {
		ns := r.Namespace()
		nodes := make([]*linPartNode, len(clients))
		for i, c := range clients {
			nodes[i] = newLinPartNode(t, c, ns, 2)
		}
		clock := new(linClock)
		h := linRun(linClients, linSeed(t.Name(), round), func(c *linClient, rng *rand.Rand) {
			for range linOpsPerClient {
				nodes[c.id].do(c, linThrOp(rng, clock, linThrMix{purge: true}))
				if rng.IntN(3) == 0 {
					runtime.Gosched()
				}
			}
		})
		var split []porcupine.Operation
		for _, n := range nodes {
			split = append(split, n.split...)
		}
		linRequire(t, linStoreParts(ns, 2), split, fmt.Sprintf("partitioned purge history %d", round))
		for _, op := range h {
			purged += int(op.Output.(linThrOut).Count)
		}
	}
	if purged == 0 {
		t.Errorf("purge_expired counts sum to 0 over %d histories, want some key purged", redisLinRounds())
	}
}

// linPurgeRace runs an interleaving inside a purge, over parts partitions
// of namespace ns (a = linThrKeys[0] in partition 0 of 2, b =
// linThrKeys[1] in partition 1): a has a failure at 0; purge_expired(20)
// runs, and right after its first partition's script another node records
// a failure of a at 0, then of b at 0; then check(a, 5). It returns the
// purge's output, the whole history and the split one (linPartNode).
func linPurgeRace(t *testing.T, c rueidis.Client, ns string, parts int) (linThrOut, []porcupine.Operation, []porcupine.Operation) {
	t.Helper()
	n0, n1 := newLinPartNode(t, c, ns, parts), newLinPartNode(t, c, ns, parts)
	a, b := linThrKeys[0], linThrKeys[1]
	var stamp atomic.Int64
	c0, c1 := &linClient{id: 0, stamp: &stamp}, &linClient{id: 1, stamp: &stamp}
	n1.do(c1, linThrIn{kind: oracle.RecordFailure, key: a, now: 0})
	n0.rec.hook = func() {
		n1.do(c1, linThrIn{kind: oracle.RecordFailure, key: a, now: 0})
		n1.do(c1, linThrIn{kind: oracle.RecordFailure, key: b, now: 0})
	}
	got := n0.do(c0, linThrIn{kind: oracle.PurgeExpired, now: 20})
	n1.do(c1, linThrIn{kind: oracle.Check, key: a, now: 5})
	return got, append(c0.ops, c1.ops...), append(n0.split, n1.split...)
}

// TestLinRedisPurgeIsOneStepPerPartition pins what a purge over several
// partitions is: one atomic step per partition, not one over the store.
// Over 2 partitions, linPurgeRace's purge purges a (partition 0), then the
// other node records a failure of a and one of b, then the purge purges b
// (partition 1): count 2, and a keeps its new stamp. The split history is
// linearizable partition by partition; the whole one is not (a count of 2
// needs b's failure, which came after a's new one, which the purge would
// then have removed): the documented non-atomicity across partitions.
func TestLinRedisPurgeIsOneStepPerPartition(t *testing.T) {
	_, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	ns := r.Namespace()
	got, whole, split := linPurgeRace(t, c, ns, 2)
	if got.Failed || got.Count != 2 {
		t.Errorf("PurgeExpired(20) over 2 partitions, with a and b recorded between them = count %d (failed %v), want 2", got.Count, got.Failed)
	}
	linRequire(t, linStoreParts(ns, 2), split, "a purge split by partition")
	linRequireIllegal(t, linThrModelWhole(), whole, "a purge over 2 partitions as one step")
}

// TestLinRedisPurgeOfOnePartitionIsOneStep is linPurgeRace over one
// partition: its purge is one script, so the other node's failures all
// come after it: count 1 (a), and the whole history is linearizable.
func TestLinRedisPurgeOfOnePartitionIsOneStep(t *testing.T) {
	_, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	got, whole, _ := linPurgeRace(t, c, r.Namespace(), 1)
	if got.Failed || got.Count != 1 {
		t.Errorf("PurgeExpired(20) over 1 partition = count %d (failed %v), want 1 (a)", got.Count, got.Failed)
	}
	linRequire(t, linThrModelWhole(), whole, "a purge of one partition")
}

// TestRedisPurgeCountsEveryKeyOfLargePartitions checks that a purge of
// partitions larger than a purge batch (several scripts each, their
// cursor carried from one to the next) purges and counts every key with
// nothing in force, once, and keeps the others: 600 keys with a failure at
// 0, 120 of them banned until 100, over 1 partition (past the default
// hash-max-listpack-entries, 512: a hash table, which HSCAN walks in
// batches) and 3 (listpacks, one batch each); purge(50) then counts 480 and
// purge(100) the 120 banned, and the partitions are gone.
func TestRedisPurgeCountsEveryKeyOfLargePartitions(t *testing.T) {
	srv, r := sharedRedis(t)
	c, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	for _, parts := range []int{1, 3} {
		if diff := redisPurgeLarge(srv.Command, c, r.Namespace(), parts); diff != "" {
			t.Errorf("%d partitions: %s", parts, diff)
		}
	}
}

// redisPurgeLarge runs TestRedisPurgeCountsEveryKeyOfLargePartitions's
// check over parts partitions of namespace ns, and says what went wrong,
// or returns "".
func redisPurgeLarge(command func(...string) (string, error), c rueidis.Client, ns string, parts int) string {
	s, err := redisstore.New(redisstore.Config{Client: c, Namespace: ns, Partitions: parts, StampsPerKey: 2, TTL: subject.RedisTTL})
	if err != nil {
		return err.Error()
	}
	errs := make([]error, 600)
	var wg sync.WaitGroup
	for w := range 16 { // concurrent calls share the client's pipeline: a quicker setup
		wg.Go(func() {
			for i := w; i < len(errs); i += 16 {
				key := fmt.Sprintf("k%d", i)
				_, errs[i] = s.AddFailure(key, 0, 10)
				if i%5 == 0 && errs[i] == nil {
					_, errs[i] = s.Ban(key, 100)
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err.Error()
	}
	for p := range parts {
		if n, err := command("EXISTS", fmt.Sprintf("thr:{%s:%d}", ns, p)); err != nil || n != ":1" {
			return fmt.Sprintf("EXISTS partition %d after 600 failures = %q, %v; want :1", p, n, err)
		}
	}
	for _, step := range []struct{ now, want uint64 }{{50, 480}, {100, 120}, {100, 0}} {
		if n, err := s.Purge(step.now, 10); err != nil || n != step.want {
			return fmt.Sprintf("Purge(%d, 10) = %d, %v; want %d", step.now, n, err, step.want)
		}
	}
	for p := range parts {
		if n, err := command("EXISTS", fmt.Sprintf("thr:{%s:%d}", ns, p)); err != nil || n != ":0" {
			return fmt.Sprintf("EXISTS partition %d after every key was purged = %q, %v; want :0", p, n, err)
		}
	}
	return ""
}
