package bench

// Redis's own cost of each script (issue 25): the server CPU per call that
// INFO commandstats reports (usec_per_call of eval, evalsha and
// evalsha_ro, every redis.call inside included), and the memory a tracked
// address or throttle key costs in used_memory. Each benchmark resets the
// server's statistics (CONFIG RESETSTAT) before its timed loop, so that
// limcheck's scripts and redis_rate's, run as sub-benchmarks of one
// benchmark on one redis-server, are measured alike.

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
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
	"github.com/limcheck/limcheck/internal/redistest"
	goredis "github.com/redis/go-redis/v9"
)

// srvStats is what INFO tells of the server's work since the last CONFIG
// RESETSTAT: the calls and µs of EVAL, EVALSHA and EVALSHA_RO
// (commandstats), and the CPU seconds of its main thread (user and
// system), the thread that runs every command and does its I/O.
type srvStats struct {
	calls, usec int64
	cpu         float64
}

// serverStats reads srvStats from c's server (one INFO).
func serverStats(b *testing.B, c *goredis.Client) srvStats {
	s, err := c.Info(context.Background(), "commandstats", "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	var st srvStats
	for _, line := range strings.Split(s, "\r\n") {
		name, stats, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch name {
		case "used_cpu_sys_main_thread", "used_cpu_user_main_thread":
			f, _ := strconv.ParseFloat(stats, 64)
			st.cpu += f
			continue
		case "cmdstat_eval", "cmdstat_evalsha", "cmdstat_evalsha_ro":
		default:
			continue
		}
		for _, kv := range strings.Split(stats, ",") {
			k, v, _ := strings.Cut(kv, "=")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "calls":
				st.calls += n
			case "usec":
				st.usec += n
			}
		}
	}
	return st
}

// serverCost runs op as parallel does and reports srvµs/call, the server
// µs per script call (commandstats: the script's run, its redis.calls
// included), cpuµs/call, the CPU of the server's main thread per script
// call (the run, reading the call and writing its reply, the append-only
// file's writes: every command of the run counted), ops/s, the decisions
// per second of wall time, and calls/op. It returns srvµs/call and
// cpuµs/call.
func serverCost(b *testing.B, info *goredis.Client, op func(rng *rand.Rand) error) (float64, float64) {
	if err := info.ConfigResetStat(context.Background()).Err(); err != nil {
		b.Fatal(err)
	}
	before := serverStats(b, info)
	parallel(b, info, op)
	st := serverStats(b, info)
	if st.calls == 0 {
		b.Fatal("no script ran")
	}
	perCall := float64(st.usec) / float64(st.calls)
	b.ReportMetric(perCall, "srvµs/call")
	cpu := (st.cpu - before.cpu) * 1e6 / float64(st.calls)
	b.ReportMetric(cpu, "cpuµs/call")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(float64(st.calls)/float64(b.N), "calls/op")
	return perCall, cpu
}

// costOf runs op as serverCost does and reports its ratios to redis_rate's
// in the latest run of each redis_rate workload of this process (in a
// -count 1 run: on the same server, in the same run): x-redis_rate, of its
// srvµs/call to Allow's; x-redis_rate-rueidis, of its srvµs/call to
// AllowRueidis's; cpux-redis_rate-rueidis, of its cpuµs/call to
// AllowRueidis's (the main thread's CPU, which a busy machine's preemption
// does not inflate as it does a command's wall time). It returns its
// srvµs/call and cpuµs/call.
func costOf(b *testing.B, info *goredis.Client, op func(rng *rand.Rand) error) (float64, float64) {
	perCall, cpu := serverCost(b, info, op)
	if rrCost > 0 {
		b.ReportMetric(perCall/rrCost, "x-redis_rate")
	}
	if rrRueidisCost > 0 {
		b.ReportMetric(perCall/rrRueidisCost, "x-redis_rate-rueidis")
		b.ReportMetric(cpu/rrRueidisCPU, "cpux-redis_rate-rueidis")
	}
	return perCall, cpu
}

// rrCost is the srvµs/call of the latest run of redis_rate's Allow;
// rrRueidisCost and rrRueidisCPU the srvµs/call and cpuµs/call of
// AllowRueidis's.
var rrCost, rrRueidisCost, rrRueidisCPU float64

// The server-cost workloads, each on the server that redisAddr names: one
// decision per op for a random client of 10,000. redis_rate runs twice:
// on go-redis through its connection pool (Allow, as its README shows;
// the anchor of x-redis_rate), and on rueidis, limcheck's client, with
// its auto-pipelining (AllowRueidis, through rueidisScripter): what the
// server spends per call reading calls and writing replies depends on the
// client's batching, so only AllowRueidis's cpuµs/call compares with
// limcheck's.
var (
	costRedisRate = func(b *testing.B) {
		c := newGoRedis(b)
		l := redis_rate.NewLimiter(c)
		limit := redis_rate.Limit{Rate: 1000, Burst: 1000, Period: time.Second}
		ns := fmt.Sprint("rr", benchNS.Add(1), ":")
		rrCost, rrRueidisCost, rrRueidisCPU = 0, 0, 0
		rrCost, _ = serverCost(b, c, func(rng *rand.Rand) error {
			_, err := l.Allow(context.Background(), ns+benchIPs[rng.IntN(benchKeys)], limit)
			return err
		})
	}
	costRedisRateRueidis = func(b *testing.B) {
		l := redis_rate.NewLimiter(rueidisScripter{newRueidis(b)})
		limit := redis_rate.Limit{Rate: 1000, Burst: 1000, Period: time.Second}
		ns := fmt.Sprint("rr", benchNS.Add(1), ":")
		rrRueidisCost, rrRueidisCPU = 0, 0 // no ratio to itself
		rrRueidisCost, rrRueidisCPU = costOf(b, newGoRedis(b), func(rng *rand.Rand) error {
			_, err := l.Allow(context.Background(), ns+benchIPs[rng.IntN(benchKeys)], limit)
			return err
		})
	}
	costAdmit = func(layout gateLayout) func(b *testing.B) {
		return func(b *testing.B) {
			g := newRedisGateWith(b, layout, benchLim, time.Millisecond)
			costOf(b, newGoRedis(b), func(rng *rand.Rand) error {
				_, err := g.Admit(benchIPs[rng.IntN(benchKeys)], g.Now())
				return err
			})
		}
	}
	costRecordFailure = func(b *testing.B) {
		t := newRedisThrottle(b)
		costOf(b, newGoRedis(b), func(rng *rand.Rand) error {
			_, err := t.RecordFailure(benchIPs[rng.IntN(benchKeys)], uint64(time.Now().Unix()))
			return err
		})
	}
	costCheck = func(b *testing.B) {
		t := newRedisThrottle(b)
		costOf(b, newGoRedis(b), func(rng *rand.Rand) error {
			if d := t.Check(benchIPs[rng.IntN(benchKeys)], uint64(time.Now().Unix())); d.Verdict == throttle.Unavailable {
				return fmt.Errorf("unavailable")
			}
			return nil
		})
	}
)

// costSlabs is the Spread gate's Slabs in the server-cost benchmarks: a
// hundredth of their benchKeys clients, as redisgate's doc recommends, so
// that a slab holds as many sets as in production (the package default,
// 1024, gives 10 a slab: a shorter listpack to read and write).
const costSlabs = benchKeys / 100

// BenchmarkRedisServerCost is Redis's CPU per decision (issue 25's goals:
// an admit at most 1.3x redis_rate's Allow, a throttle record_failure at
// most 1.5x), on the workloads of BenchmarkRedisAdmit and
// BenchmarkRedisThrottle: 10,000 clients, most admits passing, the
// throttle's keys filling up to their ban. redis_rate runs first, so that
// every other row reports its x-redis_rate in the same run. The gate runs
// in both modes, each in the production layout (Sets 2^32-5, Ways 1; in
// Spread mode costSlabs slabs, and the default); the throttle on
// benchPartitions partitions.
func BenchmarkRedisServerCost(b *testing.B) {
	b.Run("redis_rate=Allow", costRedisRate)
	b.Run("redis_rate=AllowRueidis", costRedisRateRueidis)
	b.Run("limcheck=AdmitExact", costAdmit(exactLayout))
	b.Run("limcheck=AdmitSpread/slabs=100", costAdmit(gateLayout{mode: redisgate.Spread, slabs: costSlabs}))
	b.Run("limcheck=AdmitSpread/slabs=1024", costAdmit(gateLayout{mode: redisgate.Spread}))
	b.Run("limcheck=RecordFailure", costRecordFailure)
	b.Run("limcheck=Check", costCheck)
}

// BenchmarkRedisFsync is the server-cost workloads (but Check) on fresh
// servers, one with appendfsync everysec (Redis's default for the
// append-only file: an fsync a second, off the main thread) and one with
// appendfsync always (an fsync on the main thread before each round of
// replies, spec DIST-7's exactness across a restart), the latter from 64
// and from 512 callers (callers=N: the calls in flight, which one fsync
// can share), and the everysec one again with a replica attached
// (replica=1: the primary then also propagates every write): ops/s is the
// decisions a second one server gave the benchmark's callers, cpuµs/call
// its main thread's CPU per call. The package's other benchmarks run on
// appendfsync always; srvµs/call does not count the fsync, which runs
// between commands.
func BenchmarkRedisFsync(b *testing.B) {
	for _, run := range []struct {
		name, fsync string
		perCPU      int
		replica     bool
	}{
		{"fsync=everysec/callers=64", "everysec", 32, false},
		{"fsync=everysec/callers=64/replica=1", "everysec", 32, true},
		{"fsync=always/callers=64", "always", 32, false},
		{"fsync=always/callers=512", "always", 256, false},
	} {
		b.Run(run.name, func(b *testing.B) {
			srv := redistest.StartWith(b, "--appendfsync", run.fsync)
			if run.replica {
				redistest.StartReplica(b, srv.Addr())
			}
			redisAddrOverride, callersPerCPU = srv.Addr(), run.perCPU
			defer func() { redisAddrOverride, callersPerCPU = "", 32 }()
			b.Run("redis_rate=Allow", costRedisRate)
			b.Run("redis_rate=AllowRueidis", costRedisRateRueidis)
			b.Run("limcheck=AdmitExact", costAdmit(exactLayout))
			b.Run("limcheck=AdmitSpread", costAdmit(gateLayout{mode: redisgate.Spread, slabs: costSlabs}))
			b.Run("limcheck=RecordFailure", costRecordFailure)
		})
	}
}

// memAddrs is how many addresses or keys the memory benchmarks track.
const memAddrs = 100_000

// usedMemory is the server's used_memory after a MEMORY PURGE.
func usedMemory(b *testing.B, c *goredis.Client) int64 {
	ctx := context.Background()
	if err := c.Do(ctx, "MEMORY", "PURGE").Err(); err != nil {
		b.Fatal(err)
	}
	s, err := c.Info(ctx, "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(s, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	b.Fatal("INFO memory has no used_memory")
	return 0
}

// memoryPer runs fill on a fresh redis-server at its default settings (but
// those of internal/redistest: no RDB, the append-only file, noeviction;
// and serverArgs) and reports the growth of used_memory per address as B/addr (over
// memAddrs), and the keys the fill left: keys/addr, the share of the hashes
// that Redis holds as a hash table rather than a listpack
// (hashtable-keys), and the most fields in one hash (max-fields). It runs
// once whatever b.N is (the figure is a count, not a rate).
func memoryPer(b *testing.B, fill func(c *goredis.Client, addr string), serverArgs ...string) {
	srv := redistest.StartWith(b, serverArgs...)
	c := goredis.NewClient(&goredis.Options{Addr: srv.Addr(), MaxRetries: -1})
	defer c.Close()
	before := usedMemory(b, c)
	b.ResetTimer()
	fill(c, srv.Addr())
	b.StopTimer()
	b.ReportMetric(float64(usedMemory(b, c)-before)/memAddrs, "B/addr")
	e := encodings(b, c)
	b.ReportMetric(float64(e.keys)/memAddrs, "keys/addr")
	if e.hashes > 0 {
		b.ReportMetric(float64(e.tables)/float64(e.hashes), "hashtable-keys")
		b.ReportMetric(float64(e.maxFields), "max-fields")
	}
}

// keyCensus is what encodings finds on a server: its keys, its hashes,
// those encoded as a hash table, and the most fields in one hash.
type keyCensus struct{ keys, hashes, tables, maxFields int }

// encodings takes c's server's keyCensus with SCAN, TYPE, OBJECT ENCODING
// and HLEN.
func encodings(b *testing.B, c *goredis.Client) keyCensus {
	ctx := context.Background()
	var e keyCensus
	var cursor uint64
	for {
		batch, next, err := c.Scan(ctx, cursor, "*", 1000).Result()
		if err != nil {
			b.Fatal(err)
		}
		p := c.Pipeline()
		types := make([]*goredis.StatusCmd, len(batch))
		encs := make([]*goredis.StringCmd, len(batch))
		for i, k := range batch {
			types[i] = p.Type(ctx, k)
			encs[i] = p.ObjectEncoding(ctx, k)
		}
		if _, err := p.Exec(ctx); err != nil {
			b.Fatal(err)
		}
		lens := map[int]*goredis.IntCmd{}
		for i, k := range batch {
			e.keys++
			if types[i].Val() == "hash" {
				e.hashes++
				if encs[i].Val() == "hashtable" {
					e.tables++
				}
				lens[i] = p.HLen(ctx, k)
			}
		}
		if len(lens) > 0 {
			if _, err := p.Exec(ctx); err != nil {
				b.Fatal(err)
			}
			for _, n := range lens {
				e.maxFields = max(e.maxFields, int(n.Val()))
			}
		}
		if cursor = next; cursor == 0 {
			return e
		}
	}
}

// memIP is the i'th of memAddrs distinct addresses.
func memIP(i int) string { return fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255) }

// fillParallel runs f(i) for every i < n from 64 goroutines.
func fillParallel(b *testing.B, n int, f func(i int) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := f(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// memLim is the memory benchmarks' limit: burst 1000 refilling one token
// an hour (1 s ticks), so that no bucket is full again, and so dropped,
// while the fill runs: every address stays tracked.
var memLim = lim.NewConfig(1000, 1, 3600, 1<<40)

// memSlabs are the Slabs the memory benchmark tries in Spread mode at
// memAddrs addresses: the package's default, 1024, is about a hundredth of
// them, as its doc recommends; 100 puts a thousand sets in each slab, past
// the default listpack limit; churnSlabs are those it churns addresses
// through.
var memSlabs, churnSlabs = []int64{100, 512, 1024, 2048, 4096}, []int64{1024, 2048, 4096}

// memPartitions are the Partitions the memory benchmark tries for the
// throttle store at memAddrs keys: one, limcheck serve's 64, and about a
// hundredth of the keys as for the gate's slabs.
var memPartitions = []int{1, benchPartitions, 1024}

// listpackConfs are the server settings the layouts of many fields per
// hash are measured under: redis-server's default (hash-max-listpack-entries
// 512 in redis 7.0, with no config file as in the redis.conf it ships) and
// a tighter 128, to show what a hash past its listpack limit costs.
var listpackConfs = []struct {
	name string
	args []string
}{{"default", nil}, {"128", []string{"--hash-max-listpack-entries", "128"}}}

// memSweep runs BenchmarkRedisMemory over every Slabs, Partitions and
// listpack setting it knows (about 12 minutes on 2 cores) rather than the
// production layout's alone.
var memSweep = flag.Bool("redis.memsweep", false, "BenchmarkRedisMemory: every Slabs, Partitions and listpack setting, not only the production layout's")

// BenchmarkRedisMemory is used_memory per tracked address (issue 25's
// goals: at most 128 B for the gate's production layout, 160 B per
// throttle key at threshold 5), over 100,000 addresses, against
// redis_rate's key per address: the gate in Exact mode, in Spread mode
// with every address live (AdmitSpread) and with addresses coming and
// going (AdmitSpreadChurn, see churn), and the throttle store; at the
// production layout (Spread's default 1024 slabs, the throttle on
// benchPartitions partitions, the server's default listpack setting), or
// with -redis.memsweep over every one of memSlabs, churnSlabs,
// memPartitions and listpackConfs.
func BenchmarkRedisMemory(b *testing.B) {
	filled, churned, partitioned, confs := memSlabs, churnSlabs, memPartitions, listpackConfs
	if !*memSweep {
		filled, churned, partitioned, confs = []int64{redisgate.DefaultSlabs}, []int64{redisgate.DefaultSlabs}, []int{benchPartitions}, listpackConfs[:1]
	}
	b.Run("redis_rate=Allow", func(b *testing.B) {
		memoryPer(b, func(c *goredis.Client, _ string) {
			l := redis_rate.NewLimiter(c)
			limit := redis_rate.Limit{Rate: 1, Burst: 1000, Period: time.Hour} // its key lives an hour
			fillParallel(b, memAddrs, func(i int) error {
				_, err := l.Allow(context.Background(), memIP(i), limit)
				return err
			})
		})
	})
	admits := func(layout gateLayout, args []string) func(b *testing.B) {
		return func(b *testing.B) {
			memoryPer(b, func(_ *goredis.Client, addr string) {
				redisAddrOverride = addr
				defer func() { redisAddrOverride = "" }()
				g := newRedisGateWith(b, layout, memLim, time.Second)
				now := g.Now()
				fillParallel(b, memAddrs, func(i int) error {
					d, err := g.Admit(memIP(i), now)
					if err == nil {
						err = g.Release(d) // only the buckets: a live lease is not a tracked address
					}
					return err
				})
			}, args...)
		}
	}
	b.Run("limcheck=AdmitExact", admits(exactLayout, nil))
	for _, conf := range confs {
		for _, slabs := range filled {
			b.Run(fmt.Sprintf("limcheck=AdmitSpread/slabs=%d/listpack=%s", slabs, conf.name), admits(gateLayout{mode: redisgate.Spread, slabs: slabs}, conf.args))
		}
		for _, slabs := range churned {
			b.Run(fmt.Sprintf("limcheck=AdmitSpreadChurn/slabs=%d/listpack=%s", slabs, conf.name), func(b *testing.B) {
				memoryPer(b, func(_ *goredis.Client, addr string) {
					redisAddrOverride = addr
					defer func() { redisAddrOverride = "" }()
					churn(b, slabs)
				}, conf.args...)
			})
		}
		for _, parts := range partitioned {
			b.Run(fmt.Sprintf("limcheck=RecordFailure/partitions=%d/listpack=%s", parts, conf.name), func(b *testing.B) {
				memoryPer(b, func(_ *goredis.Client, addr string) {
					redisAddrOverride = addr
					defer func() { redisAddrOverride = "" }()
					t := newRedisThrottleWith(b, parts)
					now := uint64(time.Now().Unix())
					fillParallel(b, memAddrs, func(i int) error {
						for range benchThrottle.Threshold { // at the threshold: 5 stamps and a ban
							if _, err := t.RecordFailure(memIP(i), now); err != nil {
								return err
							}
						}
						return nil
					})
				}, conf.args...)
			})
		}
	}
}

// churnRounds is how many times over the churn benchmark replaces its
// live addresses.
const churnRounds = 4

// churn is addresses coming and going on a Spread gate of slabs slabs:
// (churnRounds+1) x memAddrs distinct addresses, one admit each, the i'th
// at now = start + i ticks, on a limit (burst 1000, one token back every
// memAddrs ticks) under which each address's bucket is full again, and so
// droppable by a sweep, memAddrs ticks after its admit: about memAddrs
// addresses are tracked at any time, the rest are sets the slabs' sweeps
// may drop. The ticks (1 ms) run ahead of the wall clock, so that no slab
// expires during the fill and only the sweeps drop sets; the margin is one
// tick.
func churn(b *testing.B, slabs int64) {
	g, err := redisgate.New(redisgate.Config{Client: newRueidis(b), Name: fmt.Sprint("g", benchNS.Add(1)),
		Lim: lim.NewConfig(1000, 1, memAddrs, 1<<40), Sets: lim.KeyPrime, Ways: 1, TickNanos: int64(time.Millisecond),
		TTLMargin: time.Millisecond, Mode: redisgate.Spread, Slabs: slabs, Seed: new([16]byte)})
	if err != nil {
		b.Fatal(err)
	}
	start := g.Now()
	fillParallel(b, (churnRounds+1)*memAddrs, func(i int) error {
		_, err := g.Admit(memIP(i), start+int64(i))
		return err
	})
}

// BenchmarkRedisServerCostPaired is BenchmarkRedisServerCost's ratios with
// the load of a shared machine taken out: each row starts two
// redis-servers alike (internal/redistest's settings) and, from the same
// goroutines, sends each op at random to one of them, redis_rate's Allow
// (over rueidis, as AllowRueidis) to the first, limcheck's operation to the
// second, so that both scripts run through the same seconds of the
// machine's load, rather than one after the other. It reports each
// server's srvµs/call (rr-srvµs/call for redis_rate's) and cpuµs/call, and
// their ratios, x-redis_rate-rueidis and cpux-redis_rate-rueidis.
func BenchmarkRedisServerCostPaired(b *testing.B) {
	admit := func(layout gateLayout) func(b *testing.B) func(*rand.Rand) error {
		return func(b *testing.B) func(*rand.Rand) error {
			g := newRedisGateWith(b, layout, benchLim, time.Millisecond)
			return func(rng *rand.Rand) error {
				_, err := g.Admit(benchIPs[rng.IntN(benchKeys)], g.Now())
				return err
			}
		}
	}
	for _, row := range []struct {
		name string
		op   func(b *testing.B) func(*rand.Rand) error
	}{
		{"limcheck=AdmitExact", admit(exactLayout)},
		{"limcheck=AdmitSpread/slabs=100", admit(gateLayout{mode: redisgate.Spread, slabs: costSlabs})},
		{"limcheck=AdmitSpread/slabs=1024", admit(gateLayout{mode: redisgate.Spread})},
		{"limcheck=RecordFailure", func(b *testing.B) func(*rand.Rand) error {
			t := newRedisThrottle(b)
			return func(rng *rand.Rand) error {
				_, err := t.RecordFailure(benchIPs[rng.IntN(benchKeys)], uint64(time.Now().Unix()))
				return err
			}
		}},
		{"limcheck=Check", func(b *testing.B) func(*rand.Rand) error {
			t := newRedisThrottle(b)
			return func(rng *rand.Rand) error {
				if d := t.Check(benchIPs[rng.IntN(benchKeys)], uint64(time.Now().Unix())); d.Verdict == throttle.Unavailable {
					return fmt.Errorf("unavailable")
				}
				return nil
			}
		}},
	} {
		b.Run(row.name, func(b *testing.B) { paired(b, row.op) })
	}
}

// paired runs BenchmarkRedisServerCostPaired's row of op.
func paired(b *testing.B, op func(b *testing.B) func(*rand.Rand) error) {
	defer func() { redisAddrOverride = "" }()
	srvRR, srvLC := redistest.Start(b), redistest.Start(b)
	redisAddrOverride = srvRR.Addr()
	infoRR := newGoRedis(b)
	l := redis_rate.NewLimiter(rueidisScripter{newRueidis(b)})
	limit := redis_rate.Limit{Rate: 1000, Burst: 1000, Period: time.Second}
	redisAddrOverride = srvLC.Addr()
	infoLC := newGoRedis(b)
	lc := op(b)
	ctx := context.Background()
	warm := rand.New(rand.NewPCG(1, 2))
	if _, err := l.Allow(ctx, benchIPs[0], limit); err != nil { // both scripts loaded before the count
		b.Fatal(err)
	}
	if err := lc(warm); err != nil {
		b.Fatal(err)
	}
	for _, c := range []*goredis.Client{infoRR, infoLC} {
		if err := c.ConfigResetStat(ctx).Err(); err != nil {
			b.Fatal(err)
		}
	}
	rr0, lc0 := serverStats(b, infoRR), serverStats(b, infoLC)
	parallel(b, infoLC, func(rng *rand.Rand) error {
		if rng.IntN(2) == 0 {
			_, err := l.Allow(ctx, benchIPs[rng.IntN(benchKeys)], limit)
			return err
		}
		return lc(rng)
	})
	rr, lcs := serverStats(b, infoRR), serverStats(b, infoLC)
	if rr.calls == 0 || lcs.calls == 0 { // b.N 1: one op, one server
		return
	}
	rrUsec, lcUsec := float64(rr.usec)/float64(rr.calls), float64(lcs.usec)/float64(lcs.calls)
	rrCPU, lcCPU := (rr.cpu-rr0.cpu)*1e6/float64(rr.calls), (lcs.cpu-lc0.cpu)*1e6/float64(lcs.calls)
	b.ReportMetric(rrUsec, "rr-srvµs/call")
	b.ReportMetric(lcUsec, "srvµs/call")
	b.ReportMetric(rrCPU, "rr-cpuµs/call")
	b.ReportMetric(lcCPU, "cpuµs/call")
	b.ReportMetric(lcUsec/rrUsec, "x-redis_rate-rueidis")
	b.ReportMetric(lcCPU/rrCPU, "cpux-redis_rate-rueidis")
}
