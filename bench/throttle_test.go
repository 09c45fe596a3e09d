package bench

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/limcheck/limcheck/impl/throttle"
)

// The throttle comparison, one sweep over key counts (thrSizes): n distinct
// keys "ip:10.a.b.c" (11 to 15 bytes), the default config (threshold 5,
// window and ban 900 s), pre-warmed so that every key is known.
// RecordFailure walks the keys round robin while the clock advances one
// second every n*64/10,000 calls, so that at every n each key holds about six
// failures in its window and is banned again and again; Check reads keys
// holding 0..6 failures (two in seven banned) at a fixed now.
//
// Each benchmark reports, besides ns/op, the garbage collector's CPU time
// per operation (gc-ns/op, from runtime/metrics' /cpu/classes/gc/total,
// background workers included: at -cpu 2 they run on the second core and
// are not in ns/op, at -cpu 1 they are) and the heap bytes per tracked key
// after warming (B/key). GOGC is the default 100 throughout.
const thrBase = 1_000_000 // first second of the benchmarks

// thrSizes are the key counts of the sweep.
var thrSizes = []int{1_000, 10_000, 100_000, 1_000_000}

var sinkDecision throttle.Decision

// thrKeys returns n keys, built afresh (the last list is cached), so that the
// live heap of a small sweep holds no larger sweep's keys: the anchor's
// collection cost grows with the live heap.
func thrKeys(n int) []string {
	thrKeyCache.Lock()
	defer thrKeyCache.Unlock()
	if len(thrKeyCache.keys) != n {
		thrKeyCache.keys = nil
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("ip:10.%d.%d.%d", i>>16, i>>8&255, i&255)
		}
		thrKeyCache.keys = keys
	}
	return thrKeyCache.keys
}

var thrKeyCache struct {
	sync.Mutex
	keys []string
}

// failer and checker are the two calls compared: impl's throttle and the
// naive anchor.
type failer interface {
	RecordFailure(key string, now uint64) (throttle.Decision, error)
	Check(key string, now uint64) throttle.Decision
}

// subject is one side of the comparison: its name and a constructor.
type subject struct {
	name string
	make func() failer
}

// subjects are impl's throttle over a fresh MemStore (default config) and
// the naive anchor.
var subjects = []subject{
	{"limcheck", func() failer {
		mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: throttle.DefaultThreshold})
		if err != nil {
			panic(err)
		}
		th, err := throttle.New(mem, throttle.DefaultConfig())
		if err != nil {
			panic(err)
		}
		return th
	}},
	{"naive", func() failer { return newNaive() }},
}

// warmed returns a fresh subject warmed over keys and the heap bytes it
// grew by, per key.
func warmed(sub subject, keys []string, warm func(failer, []string)) (failer, float64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f := sub.make()
	warm(f, keys)
	runtime.GC()
	runtime.ReadMemStats(&after)
	return f, float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(len(keys))
}

// warmOnce records one failure per key at thrBase.
func warmOnce(f failer, keys []string) {
	for _, k := range keys {
		_, _ = f.RecordFailure(k, thrBase)
	}
}

// warmMixed gives key i i%7 failures at thrBase..thrBase+6: keys with 5 or 6
// are banned.
func warmMixed(f failer, keys []string) {
	for i, k := range keys {
		for j := range i % 7 {
			_, _ = f.RecordFailure(k, thrBase+uint64(j))
		}
	}
}

// gcSeconds returns the garbage collector's CPU time so far (updated at
// the end of each cycle) and the number of cycles.
func gcSeconds() (float64, uint64) {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Float64(), s[1].Value.Uint64()
}

// cpuSeconds returns the CPU time of the whole process so far, every thread
// (the collector's workers included), user and system.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// measure runs loop as the benchmark and reports, per operation, the
// process's CPU time (cpu-ns/op), the collector's CPU time (gc-ns/op) and
// cycles (gc/Mop, per million operations), and B/key.
func measure(b *testing.B, perKey float64, loop func(b *testing.B)) {
	gc, cycles := gcSeconds()
	cpu := cpuSeconds()
	loop(b)
	gc2, cycles2 := gcSeconds()
	n := float64(b.N)
	b.ReportMetric((cpuSeconds()-cpu)*1e9/n, "cpu-ns/op") // after the loop: b.Loop's reset drops metrics
	b.ReportMetric((gc2-gc)*1e9/n, "gc-ns/op")
	b.ReportMetric(float64(cycles2-cycles)*1e6/n, "gc/Mop")
	b.ReportMetric(perKey, "B/key")
}

// recordLoop runs RecordFailure over keys, round robin, the clock moving one
// second every len(keys)*64/10,000 calls.
func recordLoop(f failer, keys []string) func(*testing.B) {
	tick := max(1, len(keys)*64/10_000)
	return func(b *testing.B) {
		var d throttle.Decision
		for i, j := 0, 0; b.Loop(); i++ {
			d, _ = f.RecordFailure(keys[j], thrBase+uint64(i/tick))
			if j++; j == len(keys) {
				j = 0
			}
		}
		sinkDecision = d
	}
}

// checkLoop runs Check over keys, round robin, at a fixed now.
func checkLoop(f failer, keys []string) func(*testing.B) {
	return func(b *testing.B) {
		var d throttle.Decision
		for j := 0; b.Loop(); {
			d = f.Check(keys[j], thrBase+10)
			if j++; j == len(keys) {
				j = 0
			}
		}
		sinkDecision = d
	}
}

// recordParallel is recordLoop from GOMAXPROCS goroutines, each walking the
// keys from its own offset.
func recordParallel(f failer, keys []string) func(*testing.B) {
	tick := max(1, len(keys)*64/10_000)
	return func(b *testing.B) {
		var seq atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			i := int(seq.Add(1)) * 7919
			for j := i % len(keys); pb.Next(); i++ {
				_, _ = f.RecordFailure(keys[j], thrBase+uint64(i/tick))
				if j++; j == len(keys) {
					j = 0
				}
			}
		})
	}
}

// checkParallel is checkLoop from GOMAXPROCS goroutines.
func checkParallel(f failer, keys []string) func(*testing.B) {
	return func(b *testing.B) {
		var seq atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			for j := int(seq.Add(1)) * 7919 % len(keys); pb.Next(); {
				f.Check(keys[j], thrBase+10)
				if j++; j == len(keys) {
					j = 0
				}
			}
		})
	}
}

// clones returns copies of keys in fresh memory: equal strings, other
// pointers, as a server that builds each request's key would pass.
func clones(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = strings.Clone(k)
	}
	return out
}

// BenchmarkThrottle is the throttle sweep: op (RecordFailure, Check) x keys
// (thrSizes) x impl (limcheck, naive), each on known keys. FreshKeys
// variants at 10,000 keys look the keys up by equal strings in other memory
// than the ones recorded (as a server does); Parallel variants run from
// GOMAXPROCS goroutines. Compare with benchstat -col /impl.
func BenchmarkThrottle(b *testing.B) {
	type op struct {
		name  string
		warm  func(failer, []string)
		loop  func(failer, []string) func(*testing.B)
		fresh bool
		sizes []int
	}
	ops := []op{
		{"RecordFailure", warmOnce, recordLoop, false, thrSizes},
		{"Check", warmMixed, checkLoop, false, thrSizes},
		{"RecordFailureFreshKeys", warmOnce, recordLoop, true, []int{10_000}},
		{"CheckFreshKeys", warmMixed, checkLoop, true, []int{10_000}},
		{"RecordFailureParallel", warmOnce, recordParallel, false, []int{10_000}},
		{"CheckParallel", warmMixed, checkParallel, false, []int{10_000}},
	}
	for _, o := range ops {
		for _, n := range o.sizes {
			for _, sub := range subjects {
				b.Run(fmt.Sprintf("op=%s/keys=%d/impl=%s", o.name, n, sub.name), func(b *testing.B) {
					keys := thrKeys(n)
					f, perKey := warmed(sub, keys, o.warm)
					if o.fresh {
						keys = clones(keys)
					}
					measure(b, perKey, o.loop(f, keys))
				})
			}
		}
	}
}

// naiveLog is the anchor: the sliding log a Go service would write first, a
// map of stamp slices and a map of bans behind one mutex.
type naiveLog struct {
	mu     sync.Mutex
	stamps map[string][]uint64
	bans   map[string]uint64
	cfg    throttle.Config
}

func newNaive() *naiveLog {
	return &naiveLog{stamps: map[string][]uint64{}, bans: map[string]uint64{}, cfg: throttle.DefaultConfig()}
}

// RecordFailure appends the stamp, drops expired stamps from the front,
// counts the rest and bans at the threshold.
func (l *naiveLog) RecordFailure(key string, now uint64) (throttle.Decision, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := append(l.stamps[key], now)
	for len(st) > 0 && st[0]+l.cfg.WindowSecs <= now {
		st = st[1:]
	}
	l.stamps[key] = st
	n := l.count(st, now)
	if n < l.cfg.Threshold {
		return throttle.Decision{Verdict: throttle.Allow, Remaining: l.cfg.Threshold - n}, nil
	}
	until := max(l.bans[key], now+l.cfg.BanSecs)
	l.bans[key] = until
	return throttle.Decision{Verdict: throttle.Banned, Until: until}, nil
}

// Check reads the ban, then counts the stamps in the window by scanning.
func (l *naiveLog) Check(key string, now uint64) throttle.Decision {
	l.mu.Lock()
	defer l.mu.Unlock()
	if until := l.bans[key]; now < until {
		return throttle.Decision{Verdict: throttle.Banned, Until: until}
	}
	n := min(l.count(l.stamps[key], now), l.cfg.Threshold)
	return throttle.Decision{Verdict: throttle.Allow, Remaining: l.cfg.Threshold - n}
}

// count returns how many stamps are in the window at now.
func (l *naiveLog) count(st []uint64, now uint64) uint64 {
	var n uint64
	for _, t := range st {
		if t+l.cfg.WindowSecs > now {
			n++
		}
	}
	return n
}
