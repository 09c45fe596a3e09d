package bench

import (
	"sync/atomic"
	"testing"
)

// The calibration benchmarks measure the machine, not limcheck: what one
// locked instruction costs, and whether plain arithmetic scales with CPUs.
// BENCHMARKS.md uses them to explain where the floors of the gate and the
// throttle lie.

var calWord atomic.Int64

var sinkCal uint64

// BenchmarkCalibrateLockedCAS is one uncontended compare-and-swap.
func BenchmarkCalibrateLockedCAS(b *testing.B) {
	for i := int64(0); b.Loop(); i++ {
		calWord.CompareAndSwap(i, i+1)
	}
}

// BenchmarkCalibrateAtomicStore is one atomic store (an XCHG on amd64).
func BenchmarkCalibrateAtomicStore(b *testing.B) {
	for i := int64(0); b.Loop(); i++ {
		calWord.Store(i)
	}
}

// BenchmarkCalibrateComputeParallel is 20 dependent multiply-adds per op
// from GOMAXPROCS goroutines sharing nothing: with -cpu 1,2 it shows whether
// the machine's CPUs scale at all.
func BenchmarkCalibrateComputeParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		x := uint64(1)
		for pb.Next() {
			for range 20 {
				x = x*6364136223846793005 + 1442695040888963407
			}
		}
		atomic.AddUint64(&sinkCal, x)
	})
}
