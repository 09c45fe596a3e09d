package bench

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sethvargo/go-limiter"
	"github.com/sethvargo/go-limiter/memorystore"
	"github.com/throttled/throttled/v2"
	"github.com/throttled/throttled/v2/store/memstore"
)

// The keyed peers of issue 24's speed goal, each behind the same atomic
// in-flight counter as the mutex map recipe, each configured so that
// requests pass: sethvargo/go-limiter's memorystore (its own clock: it has
// no injected one) and throttled's GCRA over its memstore (unbounded map;
// the benchmark's tick is its clock, as the mutex map's).

// goLimiter is go-limiter's memorystore.
type goLimiter struct {
	s        limiter.Store
	inflight atomic.Int64
	maxif    int64
}

func newGoLimiter() *goLimiter {
	s, err := memorystore.New(&memorystore.Config{Tokens: 1 << 40, Interval: time.Second})
	if err != nil {
		panic(err)
	}
	return &goLimiter{s: s, maxif: 1 << 30}
}

func (a *goLimiter) admitRelease(ip string, _ int64) bool {
	if a.inflight.Add(1) > a.maxif {
		a.inflight.Add(-1)
		return false
	}
	defer a.inflight.Add(-1)
	_, _, _, ok, _ := a.s.Take(context.Background(), ip)
	return ok
}

// throttledGCRA is throttled's GCRA rate limiter over its memstore.
type throttledGCRA struct {
	rl       *throttled.GCRARateLimiterCtx
	now      time.Time // the store's clock, set before each call
	inflight atomic.Int64
	maxif    int64
}

func newThrottledGCRA() *throttledGCRA {
	st, err := memstore.New(0)
	if err != nil {
		panic(err)
	}
	a := &throttledGCRA{maxif: 1 << 30}
	st.SetTimeNow(func() time.Time { return a.now })
	rl, err := throttled.NewGCRARateLimiterCtx(throttled.WrapStoreWithContext(st),
		throttled.RateQuota{MaxRate: throttled.PerSec(1_000_000_000), MaxBurst: 1000})
	if err != nil {
		panic(err)
	}
	a.rl = rl
	return a
}

func (a *throttledGCRA) admitRelease(ip string, now int64) bool {
	if a.inflight.Add(1) > a.maxif {
		a.inflight.Add(-1)
		return false
	}
	defer a.inflight.Add(-1)
	a.now = time.Unix(0, now)
	limited, _, _ := a.rl.RateLimitCtx(context.Background(), ip, 1)
	return !limited
}

func BenchmarkAnchorGoLimiterAdmitRelease(b *testing.B)     { benchAdmit(b, newGoLimiter()) }
func BenchmarkAnchorThrottledGCRAAdmitRelease(b *testing.B) { benchAdmit(b, newThrottledGCRA()) }
func BenchmarkAnchorGoLimiterShuffledAdmitRelease(b *testing.B) {
	benchAdmitShuffled(b, newGoLimiter())
}
func BenchmarkAnchorThrottledGCRAShuffledAdmitRelease(b *testing.B) {
	benchAdmitShuffled(b, newThrottledGCRA())
}
