package throttle

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"pgregory.net/rapid"
)

// TestRecordsAreOneLine checks the layout the lookup relies on: with the
// default k = 5 a record is 64 bytes and every record starts a 64-byte
// cache line (chunks over 32 KiB get their own pages and no malloc header),
// and a shard (its lock and index header) is one line too.
func TestRecordsAreOneLine(t *testing.T) {
	if n := unsafe.Sizeof(shard{}); n != 64 {
		t.Errorf("unsafe.Sizeof(shard{}) = %d, want 64", n)
	}
	s, err := NewMemStore(MemConfig{StampsPerKey: DefaultThreshold})
	if err != nil {
		t.Fatal(err)
	}
	if s.a.size != 64 {
		t.Fatalf("record size %d at k=5, want 64", s.a.size)
	}
	for i := range 3000 { // several chunks of 1024
		if _, err := s.AddFailure(fmt.Sprint("ip:", i), 1, 900); err != nil {
			t.Fatal(err)
		}
	}
	table := *s.a.table.Load()
	if len(table) < 3 {
		t.Fatalf("%d chunks for 3000 keys, want 3 or more", len(table))
	}
	for i, base := range table {
		if p := uintptr(base); p%64 != 0 {
			t.Errorf("chunk %d starts at %#x, not on a 64-byte line", i, p)
		}
	}
}

// TestChunksOverMallocHeaderLimit checks, for every k, that a chunk of
// several records is over 32 KiB and one of a single record holds a record
// that is at least that large, and that chunks hold a power of two of
// records.
func TestChunksOverMallocHeaderLimit(t *testing.T) {
	for _, k := range []int{1, 2, 5, 6, 16, 100, 4093, 4094, 8191, MaxStampsPerKey} {
		a := newArena(k)
		recs := uintptr(1) << a.shift
		if a.size != uintptr(24+8*k) {
			t.Errorf("k=%d: record of %d bytes, want %d", k, a.size, 24+8*k)
		}
		if recs*a.size < chunkMin {
			t.Errorf("k=%d: chunk of %d records of %d bytes is under %d bytes", k, recs, a.size, chunkMin)
		}
		if recs > 1 && recs*a.size > 2*chunkMin {
			t.Errorf("k=%d: chunk of %d records of %d bytes, over twice the least", k, recs, a.size)
		}
	}
}

// TestFindByEqualStringInOtherMemory checks that a key is found by any
// string with its bytes, not only by the string it was recorded with.
func TestFindByEqualStringInOtherMemory(t *testing.T) {
	s, _ := NewMemStore(MemConfig{StampsPerKey: 5})
	for _, key := range []string{"", "a", "ip:10.0.0.1", strings.Repeat("k", 17), strings.Repeat("k", 300)} {
		if _, err := s.Ban(key, 77); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.BanUntil(strings.Clone(key)); got != 77 {
			t.Errorf("BanUntil(clone of %q) = %d, want 77", key, got)
		}
		other := key + "x"
		if got, _ := s.BanUntil(other[:len(key)] + "y"); got != 0 {
			t.Errorf("BanUntil(%q) = %d, want 0 (untracked)", other[:len(key)]+"y", got)
		}
	}
}

// TestPropHashIsAFunctionOfTheBytes checks that equal keys in other memory
// hash alike, for every length around the inline hash's cases (0..3, 4..7,
// 8..16, over 16).
func TestPropHashIsAFunctionOfTheBytes(t *testing.T) {
	x := newHasher()
	rapid.Check(t, func(t *rapid.T) {
		key := rapid.StringN(0, 40, -1).Draw(t, "key")
		if a, b := x.hash(key), x.hash(strings.Clone(key)); a != b {
			t.Fatalf("hash(%q) = %#x, of its clone %#x", key, a, b)
		}
	})
}

// TestHashSpreadsShortKeys checks that the inline hash spreads 64,000
// consecutive IPv4 keys (11 to 15 bytes) evenly: over 64 shards (low bits)
// (1,000 a bin, within 25% of the mean: 8 standard deviations) and over 256
// buckets of the tag's high bits (250 a bin, within 40%: 6 deviations), and
// no two keys share a full 64-bit hash.
func TestHashSpreadsShortKeys(t *testing.T) {
	x := newHasher()
	const n = 64_000
	var shards [64]int
	var tags [256]int
	seen := make(map[uint64]string, n)
	for i := range n {
		key := fmt.Sprintf("ip:10.%d.%d.%d", i>>16, i>>8&255, i&255)
		h := x.hash(key)
		if k, ok := seen[h]; ok {
			t.Fatalf("hash(%q) = hash(%q) = %#x", key, k, h)
		}
		seen[h] = key
		shards[h&63]++
		tags[h>>56]++
	}
	for i, c := range shards {
		if mean := n / 64; c < mean*3/4 || c > mean*5/4 {
			t.Errorf("shard %d holds %d keys, mean %d", i, c, mean)
		}
	}
	for i, c := range tags {
		if mean := n / 256; c < mean*6/10 || c > mean*14/10 {
			t.Errorf("tag bucket %d holds %d keys, mean %d", i, c, mean)
		}
	}
}

// TestLocateIsLockThenFind checks that locate, the hot path written out in
// one piece, returns what lock then find return, for tracked and untracked
// keys of every length class of the hash.
func TestLocateIsLockThenFind(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, _ := NewMemStore(MemConfig{StampsPerKey: 2, Shards: rapid.SampledFrom([]int{1, 4}).Draw(t, "shards")})
		keys := rapid.SliceOfN(rapid.StringN(0, 24, -1), 1, 60).Draw(t, "keys")
		for _, k := range keys[:len(keys)/2] {
			if _, err := s.AddFailure(k, 1, 10); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range keys {
			sh, tag := s.lock(k)
			h, id, _ := sh.find(k, tag, &s.a)
			sh.mu.Unlock()
			sh2, tag2, h2, id2 := s.locate(strings.Clone(k))
			sh2.mu.Unlock()
			if sh != sh2 || tag != tag2 || h != h2 || id != id2 {
				t.Fatalf("locate(%q) = %p, %#x, %p, %d; lock+find = %p, %#x, %p, %d", k, sh2, tag2, h2, id2, sh, tag, h, id)
			}
		}
	})
}
