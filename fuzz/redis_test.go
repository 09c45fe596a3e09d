//go:build !fuzzsmoke

package fuzz

import (
	"flag"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/limcheck/limcheck/internal/subject"
	"github.com/limcheck/limcheck/oracle"
	"pgregory.net/rapid"
)

// The package's shared redis-server: started by the first test that needs
// it, killed by TestMain. Tests that kill or fault a server start their own;
// this one is never restarted, so it runs without fsync (redistest.NoFsync).
var (
	redisOnce    sync.Once
	redisServer  *redistest.Server
	redisDir     string
	redisErr     error
	redisSubject *subject.Redis
	redisSpread  *subject.Redis // over redisServer too, its gates in the Spread layout
)

// sharedRedis returns the package's redis-server and the subject over it;
// it fails t (never skips) when the server cannot start.
func sharedRedis(t testing.TB) (*redistest.Server, *subject.Redis) {
	t.Helper()
	redisOnce.Do(func() {
		if redisDir, redisErr = os.MkdirTemp("", "limcheck-redis-"); redisErr != nil {
			return
		}
		if redisServer, redisErr = redistest.StartDir(redisDir, redistest.NoFsync()...); redisErr == nil {
			redisSubject = subject.NewRedis(redisServer.Addr())
			redisSpread = subject.NewRedis(redisServer.Addr()).WithLayout(subject.LayoutSpread)
		}
	})
	if redisErr != nil {
		t.Fatalf("redis-server: %v", redisErr)
	}
	return redisServer, redisSubject
}

// sharedRedisSpread is sharedRedis's server and a subject over it whose
// gates are in the Spread layout.
func sharedRedisSpread(t testing.TB) (*redistest.Server, *subject.Redis) {
	t.Helper()
	srv, _ := sharedRedis(t)
	return srv, redisSpread
}

func stopRedis() {
	if redisSubject != nil {
		redisSubject.Close()
	}
	if redisSpread != nil {
		redisSpread.Close()
	}
	if redisServer != nil {
		redisServer.Kill()
	}
	if redisDir != "" {
		_ = os.RemoveAll(redisDir)
	}
}

// In make test every Redis op is a round trip to a real server under the
// race detector, so the Redis checks run fewer cases than impl's: these,
// unless the command line sets -rapid.checks or -lin.rounds (make test-long
// does).
const (
	redisChecks = 5 // rapid checks per Redis state machine
	redisRounds = 6 // concurrent histories per Redis linearizability check
)

// flagSet reports whether the command line set the flag name.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// rapidChecksSet reports whether the command line set -rapid.checks: asked
// once, before checkRedis sets the flag itself (flag.Visit then counts it
// as set).
var rapidChecksSet = sync.OnceValue(func() bool { return flagSet("rapid.checks") })

// checkRedis is rapid.Check(t, prop) with redisChecks checks unless the
// command line chose. The package's tests never run in parallel, so the
// flag is set and restored around the check alone.
func checkRedis(t *testing.T, prop func(*rapid.T)) {
	t.Helper()
	if !rapidChecksSet() {
		old := flag.Lookup("rapid.checks").Value.String()
		_ = flag.Set("rapid.checks", strconv.Itoa(redisChecks))
		defer func() { _ = flag.Set("rapid.checks", old) }()
	}
	rapid.Check(t, prop)
}

// redisLinRounds is the number of concurrent histories of a Redis
// linearizability check: -lin.rounds when the command line sets it, else
// redisRounds.
func redisLinRounds() int {
	if flagSet("lin.rounds") {
		return *linRounds
	}
	return redisRounds
}

// redisGateReady says the Redis gate is in the subject (the vectors of
// component gate run against it).
const redisGateReady = true

// pastRedisLimits reports whether cfg is past the Redis subject's limits:
// impl's.
func pastRedisLimits(cfg oracle.Config) bool {
	if th := cfg.Throttle; th != nil {
		n, ok := th.Threshold.Uint64()
		return ok && n > throttle.MaxStampsPerKey
	}
	return false
}

// TestPropRedisThrottleEqualsModel checks the property that the throttle
// over the Redis store (its fused paths: one script per check and per
// failure) gives the model's results for every sequential history, and
// check of every pool key agrees after each op.
func TestPropRedisThrottleEqualsModel(t *testing.T) {
	_, r := sharedRedis(t)
	checkRedis(t, machineOn(r, oracle.Throttle))
}

// TestPropRedisThrottleFaultsEqualsModel checks the property that the
// throttle over FaultStore(Redis store) (the seven-op path, one command or
// script per store op) gives the model's results for every sequential
// history with fault rules set and cleared over every store op.
func TestPropRedisThrottleFaultsEqualsModel(t *testing.T) {
	_, r := sharedRedis(t)
	checkRedis(t, machineOn(r, oracle.ThrottleFaults))
}

// TestPropRedisPartitionedThrottleEqualsModel is
// TestPropRedisThrottleEqualsModel and TestPropRedisThrottleFaultsEqualsModel
// over a store of 3 partitions: the property holds whatever partitions a
// history's keys land in.
func TestPropRedisPartitionedThrottleEqualsModel(t *testing.T) {
	srv, _ := sharedRedis(t)
	r := subject.NewRedis(srv.Addr())
	defer r.Close()
	r.Partitions = 3
	t.Run("fused", func(t *testing.T) { checkRedis(t, machineOn(r, oracle.Throttle)) })
	t.Run("seven-op", func(t *testing.T) { checkRedis(t, machineOn(r, oracle.ThrottleFaults)) })
}

// TestVectorsPassRedis runs every throttle, throttle_faults and lim
// conformance vector against the Redis subject: each must pass but for
// those past impl's documented limits (threshold above
// throttle.MaxStampsPerKey), which it must skip.
func TestVectorsPassRedis(t *testing.T) {
	_, r := sharedRedis(t)
	vectorsPassRedis(t, r, nil)
}

// TestVectorsPassRedisSpread runs every gate conformance vector against
// the Redis subject in the Spread layout (in-flight counted in this
// process, the sets spread over slabs): one process is the model's single
// gate in either layout (spec DIST-9), so each must pass.
func TestVectorsPassRedisSpread(t *testing.T) {
	_, r := sharedRedisSpread(t)
	vectorsPassRedis(t, r, func(c oracle.Component) bool { return c == oracle.Gate })
}

// TestVectorsPassRedisPartitioned runs every throttle and throttle_faults
// conformance vector against the Redis subject with its store over 5
// partitions (a key's partition is its FNV-1a hash mod 5, so a vector's
// keys spread over several): each must pass but for those past impl's
// limits, as over one partition.
func TestVectorsPassRedisPartitioned(t *testing.T) {
	srv, _ := sharedRedis(t)
	r := subject.NewRedis(srv.Addr())
	defer r.Close()
	r.Partitions = 5
	vectorsPassRedis(t, r, func(c oracle.Component) bool { return c == oracle.Throttle || c == oracle.ThrottleFaults })
}

// vectorsPassRedis runs the conformance vectors of the components keep
// picks (nil: all) against r, as TestVectorsPassRedis says.
func vectorsPassRedis(t *testing.T, r *subject.Redis, keep func(oracle.Component) bool) {
	t.Helper()
	cases, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatalf("conformance.Load(Vectors) error: %v", err)
	}
	passed, skipped := 0, 0
	for _, c := range cases {
		if c.Trace().Component == oracle.Gate && !redisGateReady || keep != nil && !keep(c.Trace().Component) {
			continue
		}
		res := judge.Check(r, c)
		switch {
		case res.Verdict == judge.Skip && pastRedisLimits(c.Trace().Config):
			skipped++
		case res.Divergence != nil:
			t.Errorf("%s (%s): Check(redis) = %s, %s:\n%s", c.ID, c.Description, res.Verdict, res.Why, conformance.Differ(c.Trace(), res.Divergence).Text("expected", "redis"))
		case res.Verdict != judge.Pass:
			t.Errorf("%s (%s): Check(redis) = %s, %s; want %s", c.ID, c.Description, res.Verdict, res.Why, judge.Pass)
		default:
			passed++
		}
	}
	t.Logf("redis (%d partitions) passes %d of %d conformance vectors and skips %d past its limits", max(r.Partitions, 1), passed, len(cases), skipped)
}

// TestPropRedisGateEqualsModel checks the property that the Redis gate (one
// script per admit over the set's ways, leases for in-flight places) gives
// spec 2.0's model gate its decisions (set and way included), responses,
// in-flight counts and per-key buckets for every sequential history of
// admits, releases and reads, over every config the generators draw, and
// refuses the same configs (DIST-2, DIST-8).
func TestPropRedisGateEqualsModel(t *testing.T) {
	_, r := sharedRedis(t)
	checkRedis(t, machineOn(r, oracle.Gate))
}

// TestPropRedisGateSpreadEqualsModel is TestPropRedisGateEqualsModel in
// the Spread layout: in-flight counted by the process, the sets spread
// over slabs, and still the model's results for every sequential history.
func TestPropRedisGateSpreadEqualsModel(t *testing.T) {
	_, r := sharedRedisSpread(t)
	checkRedis(t, machineOn(r, oracle.Gate))
}
