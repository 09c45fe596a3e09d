package throttle

import "slices"

// index is one shard's open-addressing table from a key's tag (the high 32
// bits of its 64-bit hash) to its record id. Each slot is one uint64, tag<<32 |
// id+1, 0 when empty. The home slot of a tag is tag*len>>32 (a multiply, no
// power-of-two size), probing is linear with Robin Hood ordering, so that a
// miss stops early and deletion shifts back without tombstones. The table
// grows by half when more than 7/8 full. Not safe for concurrent use: the
// shard's lock guards it.
type index struct {
	slots []uint64
	used  int
}

// home returns the home slot of tag in a table of n slots.
func home(tag uint64, n int) int { return int((tag * uint64(n)) >> 32) }

// dist returns how far slot i is from the home slot of its entry e.
func dist(e uint64, i, n int) int {
	h := home(e>>32, n)
	if i >= h {
		return i - h
	}
	return i + n - h
}

// entry returns the slot value of tag and id.
func entry(tag uint64, id uint32) uint64 { return tag<<32 | uint64(id+1) }

// insert adds the entry of tag and id, which must not be present.
func (x *index) insert(tag uint64, id uint32) {
	if (x.used+1)*8 > len(x.slots)*7 {
		x.grow()
	}
	x.place(entry(tag, id))
	x.used++
}

// place puts e into the table by Robin Hood insertion; there is room.
func (x *index) place(e uint64) {
	n := len(x.slots)
	i, d := home(e>>32, n), 0
	for {
		cur := x.slots[i]
		if cur == 0 {
			x.slots[i] = e
			return
		}
		if cd := dist(cur, i, n); cd < d {
			x.slots[i], e, d = e, cur, cd
		}
		if i++; i == n {
			i = 0
		}
		d++
	}
}

// grow rebuilds the table with half as many slots again (8 at least).
func (x *index) grow() {
	old := x.slots
	x.slots = slices.Grow([]uint64(nil), max(8, len(old)+len(old)/2))
	x.slots = x.slots[:cap(x.slots)] // use the allocator's rounding
	for _, e := range old {
		if e != 0 {
			x.place(e)
		}
	}
}

// remove deletes the entry of tag and id, which must be present, and shifts
// the entries after it back.
func (x *index) remove(tag uint64, id uint32) {
	n, want := len(x.slots), entry(tag, id)
	i := home(tag, n)
	for x.slots[i] != want {
		if i++; i == n {
			i = 0
		}
	}
	for {
		j := i + 1
		if j == n {
			j = 0
		}
		e := x.slots[j]
		if e == 0 || dist(e, j, n) == 0 {
			x.slots[i] = 0
			x.used--
			return
		}
		x.slots[i], i = e, j
	}
}
