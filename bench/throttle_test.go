package bench

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/limcheck/limcheck/impl/throttle"
)

// The throttle comparison: 10,000 distinct keys "ip:10.0.x.y", the default
// config (threshold 5, window and ban 900 s), pre-warmed so that every key is
// known. RecordFailure walks the keys round robin while the clock advances
// one second every 64 calls, so each key holds about six failures in its
// window and is banned again and again; Check reads keys holding 0..6
// failures (two in seven banned) at a fixed now.
const (
	thrKeys     = 10_000
	thrBase     = 1_000_000 // first second of the benchmarks
	thrTickEach = 64        // calls per clock second in RecordFailure
)

var (
	thrKeyList = func() []string {
		keys := make([]string, thrKeys)
		for i := range keys {
			keys[i] = fmt.Sprintf("ip:10.0.%d.%d", i/256, i%256)
		}
		return keys
	}()
	sinkDecision throttle.Decision
)

// failer and checker are the two calls compared: impl's throttle and the
// naive anchor.
type failer interface {
	RecordFailure(key string, now uint64) (throttle.Decision, error)
	Check(key string, now uint64) throttle.Decision
}

// newImpl returns impl's throttle over a fresh MemStore, default config, and
// the store's heap bytes per tracked key after warm.
func newImpl(b *testing.B, warm func(failer)) (*throttle.Throttle, float64) {
	b.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: throttle.DefaultThreshold})
	if err != nil {
		b.Fatal(err)
	}
	th, err := throttle.New(mem, throttle.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	warm(th)
	runtime.GC()
	runtime.ReadMemStats(&after)
	return th, float64(after.HeapAlloc-before.HeapAlloc) / float64(mem.Tracked())
}

// warmOnce records one failure per key at thrBase.
func warmOnce(f failer) {
	for _, k := range thrKeyList {
		_, _ = f.RecordFailure(k, thrBase)
	}
}

// warmMixed gives key i i%7 failures at thrBase..thrBase+6: keys with 5 or 6
// are banned.
func warmMixed(f failer) {
	for i, k := range thrKeyList {
		for j := range i % 7 {
			_, _ = f.RecordFailure(k, thrBase+uint64(j))
		}
	}
}

// benchRecord runs RecordFailure over the keys, round robin, the clock
// moving one second every thrTickEach calls.
func benchRecord(b *testing.B, f failer) {
	var d throttle.Decision
	for i, j := 0, 0; b.Loop(); i++ {
		d, _ = f.RecordFailure(thrKeyList[j], thrBase+uint64(i/thrTickEach))
		if j++; j == thrKeys {
			j = 0
		}
	}
	sinkDecision = d
}

// benchCheck runs Check over the keys, round robin, at a fixed now.
func benchCheck(b *testing.B, f failer) {
	var d throttle.Decision
	for j := 0; b.Loop(); {
		d = f.Check(thrKeyList[j], thrBase+10)
		if j++; j == thrKeys {
			j = 0
		}
	}
	sinkDecision = d
}

// benchRecordParallel is benchRecord from GOMAXPROCS goroutines, each walking
// the keys from its own offset.
func benchRecordParallel(b *testing.B, f failer) {
	var seq atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		i := int(seq.Add(1)) * 7919
		for j := i % thrKeys; pb.Next(); i++ {
			_, _ = f.RecordFailure(thrKeyList[j], thrBase+uint64(i/thrTickEach))
			if j++; j == thrKeys {
				j = 0
			}
		}
	})
}

// benchCheckParallel is benchCheck from GOMAXPROCS goroutines.
func benchCheckParallel(b *testing.B, f failer) {
	var seq atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for j := int(seq.Add(1)) * 7919 % thrKeys; pb.Next(); {
			f.Check(thrKeyList[j], thrBase+10)
			if j++; j == thrKeys {
				j = 0
			}
		}
	})
}

// BenchmarkThrottleRecordFailure measures impl's RecordFailure on known keys
// and reports the store's heap bytes per tracked key.
func BenchmarkThrottleRecordFailure(b *testing.B) {
	th, perKey := newImpl(b, warmOnce)
	benchRecord(b, th)
	b.ReportMetric(perKey, "B/key") // after the loop: b.Loop's reset drops metrics
}

// BenchmarkThrottleCheck measures impl's Check on known keys.
func BenchmarkThrottleCheck(b *testing.B) {
	th, _ := newImpl(b, warmMixed)
	benchCheck(b, th)
}

// BenchmarkThrottleRecordFailureParallel is RecordFailure from GOMAXPROCS goroutines.
func BenchmarkThrottleRecordFailureParallel(b *testing.B) {
	th, _ := newImpl(b, warmOnce)
	benchRecordParallel(b, th)
}

// BenchmarkThrottleCheckParallel is Check from GOMAXPROCS goroutines.
func BenchmarkThrottleCheckParallel(b *testing.B) {
	th, _ := newImpl(b, warmMixed)
	benchCheckParallel(b, th)
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

// BenchmarkAnchorNaiveRecordFailure measures the naive sliding log's
// RecordFailure, same keys and clock as BenchmarkThrottleRecordFailure.
func BenchmarkAnchorNaiveRecordFailure(b *testing.B) {
	l := newNaive()
	warmOnce(l)
	benchRecord(b, l)
}

// BenchmarkAnchorNaiveCheck measures the naive sliding log's Check, same
// keys and state as BenchmarkThrottleCheck.
func BenchmarkAnchorNaiveCheck(b *testing.B) {
	l := newNaive()
	warmMixed(l)
	benchCheck(b, l)
}

// BenchmarkAnchorNaiveRecordFailureParallel is the naive RecordFailure from
// GOMAXPROCS goroutines.
func BenchmarkAnchorNaiveRecordFailureParallel(b *testing.B) {
	l := newNaive()
	warmOnce(l)
	benchRecordParallel(b, l)
}

// BenchmarkAnchorNaiveCheckParallel is the naive Check from GOMAXPROCS
// goroutines.
func BenchmarkAnchorNaiveCheckParallel(b *testing.B) {
	l := newNaive()
	warmMixed(l)
	benchCheckParallel(b, l)
}
