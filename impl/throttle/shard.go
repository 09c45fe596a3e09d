package throttle

import (
	"sync"
	"unsafe"
)

// head is the start of every record; the key's k stamp slots follow it, so
// that a record is 24 + 8k bytes in one piece: with the default k = 5, one
// 64-byte cache line (aligned: see [arena]). The first n slots hold the key's
// largest stamps in descending order.
//
// A free record has count freeMark, key nil and ban linking the next free
// record (id+1, 0: none).
type head struct {
	key  unsafe.Pointer // unsafe.StringData of the caller's key, kept alive by this field
	meta uint64         // len(key)<<16 | the stamp count n
	ban  uint64         // the ban-until (0: none)
}

// headBytes is the size of a head, where the stamp slots start.
const headBytes = unsafe.Sizeof(head{})

// n returns the record's stamp count.
func (h *head) n() int { return int(uint16(h.meta)) }

// setN sets the record's stamp count.
func (h *head) setN(n int) { h.meta = h.meta&^0xffff | uint64(n) }

// stamps returns the record's k stamp slots.
func (h *head) stamps(k int) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Add(unsafe.Pointer(h), headBytes)), k)
}

// is reports whether the record's key is key. The same string as the one
// stored (the same bytes at the same address) needs no read of the bytes.
// A key must be shorter than 2^48 bytes, which every string a 64-bit
// address space can hold is.
func (h *head) is(key string) bool {
	if h.meta>>16 != uint64(len(key)) {
		return false
	}
	p := unsafe.Pointer(unsafe.StringData(key))
	return h.key == p || unsafe.String((*byte)(h.key), len(key)) == key
}

// setKey stores key (its pointer and length) and stamp count 0.
func (h *head) setKey(key string) {
	h.key, h.meta = unsafe.Pointer(unsafe.StringData(key)), uint64(len(key))<<16
}

// shard is one lock's share of the keys: an index into the store's arena,
// and the reservations of its keys ([ReserveStore]). Every field is guarded
// by mu. Records are live exactly while their key is tracked: a record with
// no stamp and ban-until 0 is freed at once. A shard is 64 bytes, one cache
// line.
type shard struct {
	mu   sync.Mutex
	idx  index
	held map[string][]hold // reservations by key; nil until the first; no empty list
	_    [16]byte
}

// find returns key's record and its id; tag is the high half of key's hash.
func (sh *shard) find(key string, tag uint64, a *arena) (*head, uint32, bool) {
	s := sh.idx.slots
	n := len(s)
	if n == 0 {
		return nil, 0, false
	}
	i := home(tag, n)
	for d := 0; ; d++ {
		e := s[i]
		if e>>32 == tag && e != 0 {
			if h := a.rec(uint32(e) - 1); h.is(key) {
				return h, uint32(e) - 1, true
			}
		}
		if e == 0 || dist(e, i, n) < d {
			return nil, 0, false
		}
		if i++; i == n {
			i = 0
		}
	}
}

// add creates an empty record for key (not present) in a and returns it and
// its id.
func (sh *shard) add(key string, tag uint64, a *arena) (*head, uint32) {
	h, id := a.alloc()
	sh.idx.insert(tag, id)
	h.setKey(key)
	h.ban = 0
	return h, id
}

// drop forgets record id of a key whose hash has the high half tag and gives
// the record back to a.
func (sh *shard) drop(id uint32, tag uint64, a *arena) {
	sh.idx.remove(tag, id)
	a.release(id)
}
