package httplimit

import (
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/limcheck/limcheck/impl/throttle"
)

// pending is one entry of a throttle key in a [LoginGuard]'s table: an
// attempt in flight (a reservation: its password is being verified) or a
// failure the store refused, kept by the guard. Either counts as a failure
// stamped t until the window ends (spec THR-4: t + window > now).
type pending struct {
	id   uint64 // the attempt's reservation; 0 for a kept failure
	t    uint64 // the stamp it stands for: Begin's now, or the failure's
	kept bool   // a failure the store refused, not an attempt in flight
}

// pendShards is the number of locks of a pending table.
const pendShards = 64

// pendTable holds the pending entries of every throttle key, at most max
// in all. A key's entries are read and written only under its shard's lock,
// which is held across the throttle calls that decide on them, so that a
// key's count and entries change together.
type pendTable struct {
	seed   maphash.Seed
	shards [pendShards]pendShard
	n      atomic.Int64 // entries held
	max    int64
}

// pendShard is one lock's share of the keys.
type pendShard struct {
	mu   sync.Mutex
	keys map[string][]pending // guarded by mu; no key maps to an empty list
}

// newPendTable returns an empty table of at most max entries.
func newPendTable(max int64) *pendTable {
	p := &pendTable{seed: maphash.MakeSeed(), max: max}
	for i := range p.shards {
		p.shards[i].keys = make(map[string][]pending)
	}
	return p
}

// lock locks and returns key's shard.
func (p *pendTable) lock(key string) *pendShard {
	sh := &p.shards[maphash.String(p.seed, key)%pendShards]
	sh.mu.Lock()
	return sh
}

// take counts one more entry, or reports the table full.
func (p *pendTable) take() bool {
	for {
		n := p.n.Load()
		if n >= p.max {
			return false
		}
		if p.n.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// live returns key's entries that still count at now, dropping the others
// (an attempt never settled expires as its failure would, at the window's
// end). sh is locked.
func (p *pendTable) live(sh *pendShard, key string, now, window uint64) []pending {
	es := sh.keys[key]
	kept := slices.DeleteFunc(es, func(e pending) bool { return !throttle.InWindow(e.t, window, now) })
	if gone := len(es) - len(kept); gone > 0 {
		p.n.Add(-int64(gone))
		p.put(sh, key, kept)
	}
	return kept
}

// put stores key's entries, forgetting the key when there are none. sh is
// locked.
func (p *pendTable) put(sh *pendShard, key string, es []pending) {
	if len(es) == 0 {
		delete(sh.keys, key)
		return
	}
	sh.keys[key] = es
}

// remove drops the entry of reservation id from es, if there, and returns
// the rest and whether it was there. sh is locked; the caller puts the rest.
func (p *pendTable) remove(es []pending, id uint64) ([]pending, bool) {
	i := indexOf(es, id)
	if i < 0 {
		return es, false
	}
	p.n.Add(-1)
	return slices.Delete(es, i, i+1), true
}
