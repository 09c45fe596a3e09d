package gate

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/limcheck/limcheck/impl/lim"
)

// TestWayMemory checks the way layout (16 bytes: the key, the tokens and
// last) and the budget's (16 bytes a set, spec GATE-19), and measures the
// heap a gate of 2^20 ways (2^17 sets of 8, the sizing the docs advise)
// takes per way, which must stay within 16 bytes, the key included, plus
// 16 bytes a set (2 a way) and the gate's fixed part.
func TestWayMemory(t *testing.T) {
	if n := unsafe.Sizeof(way{}); n != 16 {
		t.Fatalf("unsafe.Sizeof(way{}) = %d, want 16", n)
	}
	if n := unsafe.Sizeof(budget{}); n != 16 {
		t.Fatalf("unsafe.Sizeof(budget{}) = %d, want 16", n)
	}
	const n, ways = 1 << 20, 8
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g, err := New(Config{Lim: lim.NewConfig(10, 1, 1, 10), Sets: n / ways, Ways: ways, TickNanos: 1})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	perWay := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("gate of %d ways: %.3f heap bytes per way", n, perWay)
	if perWay > 16+16.0/ways+0.01 {
		t.Errorf("gate of %d ways takes %.3f bytes per way, want at most %.0f (+ a fixed part)", n, perWay, 16+16.0/ways)
	}
	runtime.KeepAlive(g)
}
