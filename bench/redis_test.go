package bench

// The Redis benchmarks: the Redis-backed gate (impl/redisgate) against
// go-redis/redis_rate v10 on go-redis v9 (GCRA in one script, the common
// choice), and the throttle over impl/throttle/redisstore against a naive
// MULTI/EXEC sliding log on go-redis; side by side in one run against one
// redis-server that the benchmarks start themselves (internal/redistest:
// loopback, appendonly with appendfsync always). Every benchmark runs from
// 64 goroutines (SetParallelism), so the clients pipeline: rueidis by its
// auto-pipelining, go-redis through its connection pool. Besides ns/op each
// reports trips/op, the client's round trips per operation (a command or a
// pipeline is one; auto-pipelining may carry several in one write), and
// srvcmds/op, the commands the server ran per operation (INFO's
// total_commands_processed: a script's own calls included).

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisgate"
	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/limcheck/limcheck/internal/redistest"
	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

var (
	benchRedisOnce sync.Once
	benchRedis     *redistest.Server
	benchRedisDir  string
	benchRedisErr  error
	benchNS        atomic.Int64
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchRedis != nil {
		benchRedis.Kill()
		_ = os.RemoveAll(benchRedisDir)
	}
	os.Exit(code)
}

// redisAddrOverride, when set, is the server redisAddr names instead of the
// package's (the memory benchmarks' fresh servers).
var redisAddrOverride string

// redisAddr starts the package's redis-server on first use.
func redisAddr(b *testing.B) string {
	if redisAddrOverride != "" {
		return redisAddrOverride
	}
	benchRedisOnce.Do(func() {
		if benchRedisDir, benchRedisErr = os.MkdirTemp("", "limcheck-bench-redis-"); benchRedisErr == nil {
			benchRedis, benchRedisErr = redistest.StartDir(benchRedisDir)
		}
	})
	if benchRedisErr != nil {
		b.Fatalf("redis-server: %v", benchRedisErr)
	}
	return benchRedis.Addr()
}

// trips counts the round trips the clients make: a command, or a
// pipeline (MULTI/EXEC included), is one.
var trips atomic.Int64

// countingRueidis is a rueidis client that counts its calls (Lua.Exec's
// EVALSHA is one Do; a NOSCRIPT fallback to EVAL a second).
type countingRueidis struct{ rueidis.Client }

func (c countingRueidis) Do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	trips.Add(1)
	return c.Client.Do(ctx, cmd)
}

func (c countingRueidis) DoMulti(ctx context.Context, cmds ...rueidis.Completed) []rueidis.RedisResult {
	trips.Add(1)
	return c.Client.DoMulti(ctx, cmds...)
}

func newRueidis(b *testing.B) rueidis.Client {
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{redisAddr(b)}, DisableCache: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return countingRueidis{c}
}

// tripHook counts go-redis's commands and pipelines.
type tripHook struct{}

func (tripHook) DialHook(next goredis.DialHook) goredis.DialHook { return next }
func (tripHook) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		trips.Add(1)
		return next(ctx, cmd)
	}
}
func (tripHook) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		trips.Add(1)
		return next(ctx, cmds)
	}
}

func newGoRedis(b *testing.B) *goredis.Client {
	c := goredis.NewClient(&goredis.Options{Addr: redisAddr(b), MaxRetries: -1}) // no blind retries of writes
	c.AddHook(tripHook{})
	b.Cleanup(func() { _ = c.Close() })
	return c
}

// commands is the server's total_commands_processed.
func commands(b *testing.B, c *goredis.Client) int64 {
	s, err := c.Info(context.Background(), "stats").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(s, "\r\n") {
		if v, ok := strings.CutPrefix(line, "total_commands_processed:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	b.Fatal("INFO stats has no total_commands_processed")
	return 0
}

// callersPerCPU is the goroutines per GOMAXPROCS that parallel runs op
// from: 32, so 64 on 2 CPUs, but where a benchmark sets more.
var callersPerCPU = 32

// parallel runs op from callersPerCPU goroutines per CPU (64 on 2 CPUs),
// each with its own random source, and reports cmds/op (the INFO call
// itself excluded).
func parallel(b *testing.B, info *goredis.Client, op func(rng *rand.Rand) error) {
	var fails atomic.Int64
	var first atomic.Pointer[error]
	var seed atomic.Uint64
	b.SetParallelism(callersPerCPU)
	before := commands(b, info)
	t0 := trips.Load()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		rng := rand.New(rand.NewPCG(seed.Add(1), 7))
		for pb.Next() {
			if err := op(rng); err != nil {
				fails.Add(1)
				first.CompareAndSwap(nil, &err)
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(trips.Load()-t0)/float64(b.N), "trips/op")
	b.ReportMetric(float64(commands(b, info)-before-1)/float64(b.N), "srvcmds/op")
	if n := fails.Load(); n > 0 {
		b.Fatalf("%d of %d operations failed, the first with %v", n, b.N, *first.Load())
	}
}

// benchKeys is how many distinct clients the benchmarks spread over.
const benchKeys = 10_000

var benchIPs = func() []string {
	ips := make([]string, benchKeys)
	for i := range ips {
		ips[i] = fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
	}
	return ips
}()

// BenchmarkRedisAdmit is one rate-limit decision per op for a random client
// of 10,000, at a rate that lets most pass: limcheck's Redis gate (Admit;
// AdmitRelease adds the in-flight place's Release, as the middleware does;
// AdmitReleaseSpread is both in Spread mode, the release in memory)
// against redis_rate's Allow (a GCRA decision, no in-flight limit).
func BenchmarkRedisAdmit(b *testing.B) {
	b.Run("limcheck=Admit", func(b *testing.B) {
		g := newRedisGate(b)
		parallel(b, newGoRedis(b), func(rng *rand.Rand) error {
			_, err := g.Admit(benchIPs[rng.IntN(benchKeys)], g.Now())
			return err
		})
	})
	b.Run("limcheck=AdmitRelease", func(b *testing.B) {
		g := newRedisGate(b)
		parallel(b, newGoRedis(b), func(rng *rand.Rand) error {
			d, err := g.Admit(benchIPs[rng.IntN(benchKeys)], g.Now())
			if err != nil {
				return err
			}
			return g.Release(d)
		})
	})
	b.Run("limcheck=AdmitReleaseSpread", func(b *testing.B) {
		g := newRedisGateWith(b, gateLayout{mode: redisgate.Spread}, benchLim, time.Millisecond)
		parallel(b, newGoRedis(b), func(rng *rand.Rand) error {
			d, err := g.Admit(benchIPs[rng.IntN(benchKeys)], g.Now())
			if err != nil {
				return err
			}
			return g.Release(d) // in memory: no round trip
		})
	})
	b.Run("redis_rate=Allow", func(b *testing.B) {
		c := newGoRedis(b)
		l := redis_rate.NewLimiter(c)
		limit := redis_rate.Limit{Rate: 1000, Burst: 1000, Period: time.Second}
		ns := fmt.Sprint("rr", benchNS.Add(1), ":")
		parallel(b, c, func(rng *rand.Rand) error {
			_, err := l.Allow(context.Background(), ns+benchIPs[rng.IntN(benchKeys)], limit)
			return err
		})
	})
}

// newRedisGate is a gate of burst 1000 refilling 1000 per second (1 ms
// ticks), maxif far above the benchmark's concurrency, in Exact mode.
func newRedisGate(b *testing.B) *redisgate.Gate {
	return newRedisGateWith(b, exactLayout, benchLim, time.Millisecond)
}

// benchLim is the benchmarks' limit: burst 1000, refilling 1 per tick.
var benchLim = lim.NewConfig(1000, 1, 1, 1<<40)

// gateLayout is how a benchmark's gate lays out its table in Redis: the
// mode, and in Spread mode its Slabs (0: the package's default).
type gateLayout struct {
	mode  redisgate.Mode
	slabs int64
}

// exactLayout is the gate's one-slot layout (Mode Exact).
var exactLayout = gateLayout{mode: redisgate.Exact}

// newRedisGateWith is a gate of the production layout (Sets 2^32-5, Ways
// 1) in layout, limit l, ticks of tick.
func newRedisGateWith(b *testing.B, layout gateLayout, l lim.Config, tick time.Duration) *redisgate.Gate {
	g, err := redisgate.New(redisgate.Config{Client: newRueidis(b), Name: fmt.Sprint("g", benchNS.Add(1)),
		Lim: l, Sets: lim.KeyPrime, Ways: 1, TickNanos: int64(tick), LeaseTTL: time.Minute,
		Mode: layout.mode, Slabs: layout.slabs,
		Seed: new([16]byte)}) // any seed will do for a benchmark; New requires one
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// The throttle's config in the benchmarks: 5 failures in 15 minutes ban
// for 15 minutes.
var benchThrottle = throttle.Config{Threshold: 5, WindowSecs: 900, BanSecs: 900}

// BenchmarkRedisThrottle is the throttle's two hot operations for a random
// key of 10,000, now in Unix seconds: limcheck's throttle over
// redisstore (one script each, exact over uint64) against a naive store on
// go-redis (a MULTI/EXEC of a sliding log in a sorted set with float
// scores, then a SET for the ban: two round trips when it bans).
func BenchmarkRedisThrottle(b *testing.B) {
	b.Run("limcheck=RecordFailure", func(b *testing.B) {
		t := newRedisThrottle(b)
		parallel(b, newGoRedis(b), func(rng *rand.Rand) error {
			_, err := t.RecordFailure(benchIPs[rng.IntN(benchKeys)], uint64(time.Now().Unix()))
			return err
		})
	})
	b.Run("naive=RecordFailure", func(b *testing.B) {
		n := newNaiveRedis(b)
		parallel(b, n.c, func(rng *rand.Rand) error {
			return n.recordFailure(benchIPs[rng.IntN(benchKeys)], time.Now().Unix())
		})
	})
	b.Run("limcheck=Check", func(b *testing.B) {
		t := newRedisThrottle(b)
		parallel(b, newGoRedis(b), func(rng *rand.Rand) error {
			if d := t.Check(benchIPs[rng.IntN(benchKeys)], uint64(time.Now().Unix())); d.Verdict == throttle.Unavailable {
				return fmt.Errorf("unavailable")
			}
			return nil
		})
	})
	b.Run("naive=Check", func(b *testing.B) {
		n := newNaiveRedis(b)
		parallel(b, n.c, func(rng *rand.Rand) error {
			return n.check(benchIPs[rng.IntN(benchKeys)], time.Now().Unix())
		})
	})
}

// benchPartitions is the throttle store's Partitions in the benchmarks:
// limcheck serve's with -redis-layout spread.
const benchPartitions = 64

// newRedisThrottle is the throttle over a store of benchPartitions
// partitions.
func newRedisThrottle(b *testing.B) *throttle.Throttle {
	return newRedisThrottleWith(b, benchPartitions)
}

// newRedisThrottleWith is the throttle over a store of partitions
// partitions.
func newRedisThrottleWith(b *testing.B, partitions int) *throttle.Throttle {
	s, err := redisstore.New(redisstore.Config{Client: newRueidis(b), Namespace: fmt.Sprint("t", benchNS.Add(1)),
		StampsPerKey: benchThrottle.Threshold, TTL: time.Hour, Partitions: partitions})
	if err != nil {
		b.Fatal(err)
	}
	t, err := throttle.New(s, benchThrottle)
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// naiveRedis is the sliding-log throttle most Redis tutorials write: scores are
// float64 seconds, the count and the ban are two operations.
type naiveRedis struct {
	c   *goredis.Client
	ns  string
	seq atomic.Int64
}

func newNaiveRedis(b *testing.B) *naiveRedis {
	return &naiveRedis{c: newGoRedis(b), ns: fmt.Sprint("n", benchNS.Add(1), ":")}
}

func (n *naiveRedis) recordFailure(key string, now int64) error {
	ctx := context.Background()
	z := n.ns + "z:" + key
	var card *goredis.IntCmd
	_, err := n.c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		p.ZAdd(ctx, z, goredis.Z{Score: float64(now), Member: strconv.FormatInt(n.seq.Add(1), 36)})
		p.ZRemRangeByScore(ctx, z, "-inf", strconv.FormatInt(now-int64(benchThrottle.WindowSecs), 10))
		card = p.ZCard(ctx, z)
		p.Expire(ctx, z, time.Hour)
		return nil
	})
	if err != nil {
		return err
	}
	if card.Val() >= int64(benchThrottle.Threshold) {
		return n.c.Set(ctx, n.ns+"b:"+key, now+int64(benchThrottle.BanSecs), time.Hour).Err()
	}
	return nil
}

func (n *naiveRedis) check(key string, now int64) error {
	ctx := context.Background()
	_, err := n.c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		p.Get(ctx, n.ns+"b:"+key)
		p.ZCount(ctx, n.ns+"z:"+key, strconv.FormatInt(now-int64(benchThrottle.WindowSecs)+1, 10), "+inf")
		return nil
	})
	if err == goredis.Nil {
		return nil
	}
	return err
}
