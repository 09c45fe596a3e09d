package throttle

import (
	"math"
	"math/bits"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// freeMark is the stamp count of a free record.
const freeMark = math.MaxUint16

// arena holds the records of a store, shared by its shards. A record id
// is its chunk's index << shift | its slot in the chunk; chunks hold 1 <<
// shift records and are never freed: freed records go to a free list and are
// reused, so the arena never holds more records than the store's MaxKeys.
//
// Chunks are allocated as Go values of a type made for the record (the key
// pointer, then 2 + k words: see [head]), so that the garbage collector sees
// every key pointer. Each chunk is over 32 KiB (or one record when a record
// is larger): the allocator gives such a block its own pages, with no header
// in front (smaller blocks with pointers get an 8-byte one), so that records
// of 64 bytes stay aligned to cache lines.
//
// mu guards allocation and the free list; the chunk table is read without
// it: a record's chunk is stored before its id is handed out, and ids travel
// to readers through the shard locks.
type arena struct {
	k     int          // stamps per record
	size  uintptr      // bytes per record: 24 + 8k
	shift uint32       // log2 of the records per chunk, < 32
	mask  uint32       // 1<<shift - 1
	typ   reflect.Type // the chunk's element type
	table atomic.Pointer[[]unsafe.Pointer]

	mu   sync.Mutex
	used uint32 // records handed out from chunks, free ones included
	free uint32 // the first free id + 1; 0: none
}

// chunkMin is the least size of a chunk of several records: blocks of at
// most 32 KiB that hold pointers carry a malloc header.
const chunkMin = 32<<10 + 1

// newArena returns an empty arena of records of k stamps: chunks of the
// largest power of two of records that fits in 64 KiB (at least 1).
func newArena(k int) *arena {
	a := new(arena)
	a.init(k)
	return a
}

// init makes a an empty arena of records of k stamps (see newArena).
func (a *arena) init(k int) {
	typ := reflect.StructOf([]reflect.StructField{
		{Name: "Key", Type: reflect.TypeFor[unsafe.Pointer]()},
		{Name: "Words", Type: reflect.ArrayOf(2+k, reflect.TypeFor[uint64]())},
	})
	a.k, a.size, a.typ = k, typ.Size(), typ
	if a.size < chunkMin {
		a.shift = uint32(bits.Len64(uint64(2*chunkMin-2)/uint64(a.size)) - 1)
	}
	a.mask = 1<<a.shift - 1
	a.table.Store(new([]unsafe.Pointer))
}

// rec returns record id, which alloc handed out.
func (a *arena) rec(id uint32) *head {
	t := *a.table.Load()
	return (*head)(unsafe.Add(t[id>>(a.shift&31)], uintptr(id&a.mask)*a.size))
}

// alloc returns a record for a new key and its id: a freed one first, else
// a fresh one, allocating a chunk when the last is used up.
func (a *arena) alloc() (*head, uint32) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.free != 0 {
		id := a.free - 1
		h := a.rec(id)
		a.free = uint32(h.ban)
		return h, id
	}
	id := a.used
	if int(id>>a.shift) == len(*a.table.Load()) {
		a.grow()
	}
	a.used++
	return a.rec(id), id
}

// grow adds a chunk to the table, publishing a new table (readers may hold
// the old one, whose chunks stay valid). mu is held.
func (a *arena) grow() {
	old := *a.table.Load()
	t := make([]unsafe.Pointer, len(old), len(old)+1)
	copy(t, old)
	n := 1 << a.shift
	t = append(t, reflect.MakeSlice(reflect.SliceOf(a.typ), n, n).UnsafePointer())
	a.table.Store(&t)
}

// release puts record id on the free list, dropping its key pointer.
func (a *arena) release(id uint32) {
	a.mu.Lock()
	h := a.rec(id)
	h.key, h.meta, h.ban = nil, freeMark, uint64(a.free)
	a.free = id + 1
	a.mu.Unlock()
}
