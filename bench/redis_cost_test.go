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
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/limcheck/limcheck/internal/redistest"
	goredis "github.com/redis/go-redis/v9"
)

// scriptCalls is the server's calls and µs of EVAL, EVALSHA and EVALSHA_RO
// since the last CONFIG RESETSTAT.
func scriptCalls(b *testing.B, c *goredis.Client) (calls, usec int64) {
	s, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(s, "\r\n") {
		name, stats, ok := strings.Cut(line, ":")
		if !ok || (name != "cmdstat_eval" && name != "cmdstat_evalsha" && name != "cmdstat_evalsha_ro") {
			continue
		}
		for _, kv := range strings.Split(stats, ",") {
			k, v, _ := strings.Cut(kv, "=")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "calls":
				calls += n
			case "usec":
				usec += n
			}
		}
	}
	return calls, usec
}

// serverCost runs op as parallel does and reports srvµs/call, the server
// µs per script call (commandstats), and calls/op.
func serverCost(b *testing.B, info *goredis.Client, op func(rng *rand.Rand) error) {
	if err := info.ConfigResetStat(context.Background()).Err(); err != nil {
		b.Fatal(err)
	}
	parallel(b, info, op)
	calls, usec := scriptCalls(b, info)
	if calls == 0 {
		b.Fatal("no script ran")
	}
	b.ReportMetric(float64(usec)/float64(calls), "srvµs/call")
	b.ReportMetric(float64(calls)/float64(b.N), "calls/op")
}

// BenchmarkRedisServerCost is Redis's CPU per decision (issue 25's goals:
// an admit at most 1.3x redis_rate's Allow, a throttle record_failure at
// most 1.5x), on the workloads of BenchmarkRedisAdmit and
// BenchmarkRedisThrottle: 10,000 clients, most admits passing, the
// throttle's keys filling up to their ban.
func BenchmarkRedisServerCost(b *testing.B) {
	b.Run("redis_rate=Allow", func(b *testing.B) {
		c := newGoRedis(b)
		l := redis_rate.NewLimiter(c)
		limit := redis_rate.Limit{Rate: 1000, Burst: 1000, Period: time.Second}
		ns := fmt.Sprint("rr", benchNS.Add(1), ":")
		serverCost(b, c, func(rng *rand.Rand) error {
			_, err := l.Allow(context.Background(), ns+benchIPs[rng.IntN(benchKeys)], limit)
			return err
		})
	})
	b.Run("limcheck=Admit", func(b *testing.B) {
		g := newRedisGate(b)
		serverCost(b, newGoRedis(b), func(rng *rand.Rand) error {
			_, err := g.Admit(benchIPs[rng.IntN(benchKeys)], g.Now())
			return err
		})
	})
	b.Run("limcheck=RecordFailure", func(b *testing.B) {
		t := newRedisThrottle(b)
		serverCost(b, newGoRedis(b), func(rng *rand.Rand) error {
			_, err := t.RecordFailure(benchIPs[rng.IntN(benchKeys)], uint64(time.Now().Unix()))
			return err
		})
	})
	b.Run("limcheck=Check", func(b *testing.B) {
		t := newRedisThrottle(b)
		serverCost(b, newGoRedis(b), func(rng *rand.Rand) error {
			t.Check(benchIPs[rng.IntN(benchKeys)], uint64(time.Now().Unix()))
			return nil
		})
	})
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
// those of internal/redistest: no RDB, the append-only file, noeviction)
// and reports the growth of used_memory per address as B/addr. It runs
// once whatever b.N is (the figure is a count, not a rate).
func memoryPer(b *testing.B, fill func(c *goredis.Client, addr string)) {
	srv := redistest.Start(b)
	c := goredis.NewClient(&goredis.Options{Addr: srv.Addr(), MaxRetries: -1})
	defer c.Close()
	before := usedMemory(b, c)
	b.ResetTimer()
	fill(c, srv.Addr())
	b.StopTimer()
	b.ReportMetric(float64(usedMemory(b, c)-before)/memAddrs, "B/addr")
}

// memIP is the i'th of memAddrs distinct addresses.
func memIP(i int) string { return fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255) }

// fillParallel runs f(i) for every i < memAddrs from 64 goroutines.
func fillParallel(b *testing.B, f func(i int) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < memAddrs; i = int(next.Add(1) - 1) {
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

// BenchmarkRedisMemory is used_memory per tracked address (issue 25's
// goals: at most 128 B for the gate's production layout, 160 B per
// throttle key at threshold 5), over 100,000 addresses, against
// redis_rate's key per address.
func BenchmarkRedisMemory(b *testing.B) {
	b.Run("redis_rate=Allow", func(b *testing.B) {
		memoryPer(b, func(c *goredis.Client, _ string) {
			l := redis_rate.NewLimiter(c)
			limit := redis_rate.Limit{Rate: 1, Burst: 1000, Period: time.Hour} // its key lives an hour
			fillParallel(b, func(i int) error {
				_, err := l.Allow(context.Background(), memIP(i), limit)
				return err
			})
		})
	})
	b.Run("limcheck=Admit", func(b *testing.B) {
		memoryPer(b, func(_ *goredis.Client, addr string) {
			redisAddrOverride = addr
			defer func() { redisAddrOverride = "" }()
			g := newRedisGate(b)
			now := g.Now()
			fillParallel(b, func(i int) error {
				d, err := g.Admit(memIP(i), now)
				if err == nil {
					err = g.Release(d) // only the buckets: a live lease is not a tracked address
				}
				return err
			})
		})
	})
	b.Run("limcheck=RecordFailure", func(b *testing.B) {
		memoryPer(b, func(_ *goredis.Client, addr string) {
			redisAddrOverride = addr
			defer func() { redisAddrOverride = "" }()
			t := newRedisThrottle(b)
			now := uint64(time.Now().Unix())
			fillParallel(b, func(i int) error {
				for range benchThrottle.Threshold { // at the threshold: 5 stamps and a ban
					if _, err := t.RecordFailure(memIP(i), now); err != nil {
						return err
					}
				}
				return nil
			})
		})
	})
}
