package gate

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/limcheck/limcheck/impl/lim"
)

// TestSlotMemory checks the slot layout (16 bytes: the state word and last)
// and measures the heap a gate of 2^20 slots takes per slot, which must stay
// within 16 bytes plus the gate's fixed part.
func TestSlotMemory(t *testing.T) {
	if n := unsafe.Sizeof(slot{}); n != 16 {
		t.Fatalf("unsafe.Sizeof(slot{}) = %d, want 16", n)
	}
	const n = 1 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g, err := New(Config{Lim: lim.NewConfig(10, 1, 1, 10), Slots: n, TickNanos: 1})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	perSlot := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("gate of %d slots: %.3f heap bytes per slot", n, perSlot)
	if perSlot > 16.01 {
		t.Errorf("gate of %d slots takes %.3f bytes per slot, want at most 16 (+ a fixed part)", n, perSlot)
	}
	runtime.KeepAlive(g)
}
