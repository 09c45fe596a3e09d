package throttle

import (
	"math"
	"slices"
	"sync"
)

// A record id is its chunk's index << slotBits | its slot in the chunk.
const (
	slotBits = 8
	slotMask = 1<<slotBits - 1
	freeMark = math.MaxUint16 // n of a free record
)

// chunk holds the records of one arena allocation. A record is stride = 1+k
// words of data: the ban-until, then k stamp slots, of which the first n hold
// the key's largest stamps in descending order. A free record has n ==
// freeMark and its ban-until word links the next free record (id+1, 0:
// none). Chunks are never freed: freed records are reused.
type chunk struct {
	data []uint64
	n    []uint16
	keys []string
}

// chunkRecords returns how many records of stride words a chunk holds: 32,
// or fewer (at least 1) when 32 records would pass maxChunkWords, or more
// when the allocator rounds the chunk up (size classes, pages), so that no
// rounded-up byte is wasted; at most 1<<slotBits. Small chunks keep the
// fixed cost (one partly used chunk per shard) low: a store with a large
// threshold no longer zeroes megabytes per shard for its first key. The
// rounding is learnt once per stride (a throwaway allocation) and cached.
func chunkRecords(stride int) int {
	if n, ok := chunkCache.Load(stride); ok {
		return n.(int)
	}
	want := max(1, min(32, maxChunkWords/stride))
	words := cap(slices.Grow([]uint64(nil), want*stride))
	n := min(words/stride, 1<<slotBits)
	chunkCache.Store(stride, n)
	return n
}

// maxChunkWords bounds a chunk's data when a record is large: 64 KiB.
const maxChunkWords = 8192

// chunkCache maps a stride to its chunkRecords.
var chunkCache sync.Map

// newChunk returns a chunk of recs free records of stride words.
func newChunk(recs, stride int) *chunk {
	c := &chunk{data: make([]uint64, recs*stride), n: make([]uint16, recs), keys: make([]string, recs)}
	for i := range c.n {
		c.n[i] = freeMark
	}
	return c
}

// shard is one lock's share of the keys: an index and a record arena. Every
// field is guarded by mu. Records are live exactly while their key is
// tracked: a record with no stamp and ban-until 0 is freed at once.
type shard struct {
	mu     sync.Mutex
	idx    index
	chunks []*chunk
	fill   int    // records handed out from the last chunk
	free   uint32 // the first free id + 1; 0: none
	_      [64]byte
}

// rec returns the data of record id (ban-until, then stamp slots) and its
// stamp count.
func (sh *shard) rec(id uint32, stride int) ([]uint64, *uint16) {
	c, slot := sh.chunks[id>>slotBits], int(id&slotMask)
	return c.data[slot*stride : slot*stride+stride], &c.n[slot]
}

// key returns the key of record id.
func (sh *shard) key(id uint32) string {
	return sh.chunks[id>>slotBits].keys[id&slotMask]
}

// find returns the id of key's record, whose hash has the high half tag.
func (sh *shard) find(key string, tag uint64) (uint32, bool) {
	s := sh.idx.slots
	n := len(s)
	if n == 0 {
		return 0, false
	}
	i := home(tag, n)
	for d := 0; ; d++ {
		e := s[i]
		if e>>32 == tag && e != 0 && sh.key(uint32(e)-1) == key {
			return uint32(e) - 1, true
		}
		if e == 0 || dist(e, i, n) < d {
			return 0, false
		}
		if i++; i == n {
			i = 0
		}
	}
}

// add creates an empty record for key (not present) and returns its id.
func (sh *shard) add(key string, tag uint64, recs, stride int) uint32 {
	id := sh.alloc(recs, stride)
	sh.idx.insert(tag, id)
	r, n := sh.rec(id, stride)
	r[0], *n = 0, 0
	sh.chunks[id>>slotBits].keys[id&slotMask] = key
	return id
}

// alloc returns a free record id, reusing freed ones first; a new chunk
// holds recs records.
func (sh *shard) alloc(recs, stride int) uint32 {
	if sh.free != 0 {
		id := sh.free - 1
		r, _ := sh.rec(id, stride)
		sh.free = uint32(r[0])
		return id
	}
	if len(sh.chunks) == 0 || sh.fill == len(sh.chunks[len(sh.chunks)-1].n) {
		sh.chunks = append(sh.chunks, newChunk(recs, stride))
		sh.fill = 0
	}
	id := uint32(len(sh.chunks)-1)<<slotBits | uint32(sh.fill)
	sh.fill++
	return id
}

// drop forgets record id of a key whose hash has the high half tag.
func (sh *shard) drop(id uint32, tag uint64, stride int) {
	sh.idx.remove(tag, id)
	r, n := sh.rec(id, stride)
	r[0], *n = uint64(sh.free), freeMark
	sh.chunks[id>>slotBits].keys[id&slotMask] = ""
	sh.free = id + 1
}
