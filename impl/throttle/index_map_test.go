// The index's property runs without the race detector (make test's gotest
// runs it in the plain build): one goroutine drives one shard, so the
// detector could find nothing in it, and made it thirty times as slow
// (27 s against 0.9 s on a busy 2-core machine).

//go:build !race

package throttle

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// TestIndexAgainstMap drives one shard's index and arena with forced tag
// collisions (tags from a pool of 4, including 0 and MaxUint32) through
// random adds and drops, and compares every lookup with a Go map.
func TestIndexAgainstMap(t *testing.T) {
	tags := []uint64{0, 1, 1 << 31, 1<<32 - 1}
	rapid.Check(t, func(t *rapid.T) {
		sh := &shard{}
		a := newArena(1)
		a.shift, a.mask = 2, 3      // chunks of 4 records: several chunks
		want := map[string]uint64{} // key -> tag
		ids := map[string]uint32{}
		for range rapid.IntRange(1, 400).Draw(t, "ops") {
			key := fmt.Sprint(rapid.IntRange(0, 150).Draw(t, "key"))
			tag := tags[len(key)%len(tags)]
			if _, ok := want[key]; ok {
				sh.drop(ids[key], tag, a)
				delete(want, key)
				delete(ids, key)
			} else {
				_, ids[key] = sh.add(key, tag, a)
				want[key] = tag
			}
			checkIndex(t, sh, a, want, ids)
		}
	})
}

// checkIndex fails t unless sh finds exactly the keys of want, at ids.
func checkIndex(t *rapid.T, sh *shard, a *arena, want map[string]uint64, ids map[string]uint32) {
	tags := []uint64{0, 1, 1 << 31, 1<<32 - 1}
	if sh.idx.used != len(want) {
		t.Fatalf("index holds %d entries, want %d", sh.idx.used, len(want))
	}
	for i := range 151 {
		key := fmt.Sprint(i)
		_, tracked := want[key]
		_, id, ok := sh.find(key, tags[len(key)%len(tags)], a)
		if ok != tracked || ok && id != ids[key] {
			t.Fatalf("find(%q) = %d, %v; want %d, %v", key, id, ok, ids[key], tracked)
		}
	}
}
