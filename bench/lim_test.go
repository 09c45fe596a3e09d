package bench

import (
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/lim"
	"golang.org/x/time/rate"
)

// The lim_take comparison: one token per call, time advancing by one tick (one
// nanosecond for rate) per call, a refill of one token every 10 ticks and a
// burst of 100, so that calls mix passes, refills and rejects.
const (
	takeCap = 100
	takeIvl = 10
)

var sinkTake lim.TakeResult

// BenchmarkTake measures impl's lim_take.
func BenchmarkTake(b *testing.B) {
	c := lim.NewConfig(takeCap, 1, takeIvl, 1)
	bk := lim.NewBucket(takeCap, 0)
	var r lim.TakeResult
	for i := 0; b.Loop(); i++ {
		r = c.Take(bk, int64(i), 1)
		bk = r.Bucket()
	}
	sinkTake = r
}

// BenchmarkAnchorRateAllowN measures golang.org/x/time/rate's Limiter.AllowN
// with injected time: the same rate and burst as BenchmarkTake.
func BenchmarkAnchorRateAllowN(b *testing.B) {
	l := rate.NewLimiter(rate.Every(takeIvl*time.Nanosecond), takeCap)
	t0 := time.Unix(1_700_000_000, 0)
	for i := 0; b.Loop(); i++ {
		l.AllowN(t0.Add(time.Duration(i)), 1)
	}
}
