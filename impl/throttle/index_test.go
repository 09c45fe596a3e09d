package throttle

import (
	"testing"
)

// TestIndexGrowth checks the table's load bound and growth by half.
func TestIndexGrowth(t *testing.T) {
	var x index
	for i := range 10_000 {
		x.insert(uint64(i)*2654435761%(1<<32), uint32(i))
		if x.used*8 > len(x.slots)*7 {
			t.Fatalf("after %d inserts: %d of %d slots used, over 7/8", i+1, x.used, len(x.slots))
		}
	}
	if n := len(x.slots); n > 10_000*8/7*3/2+8 {
		t.Fatalf("%d slots for 10000 entries", n)
	}
}
