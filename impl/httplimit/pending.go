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
// stamped t until the window ends (spec THR-4: t + window > now). An
// attempt whose reservation the store holds (stored) has its entry here
// too, so that MaxPending bounds every attempt in flight, but the store
// counts it: it is left out of what the guard adds to the store's count.
type pending struct {
	id     uint64 // the attempt's reservation; 0 for a kept failure
	t      uint64 // the stamp it stands for: Begin's now, or the failure's
	kept   bool   // a failure the store refused, not an attempt in flight
	stored bool   // an attempt whose reservation the store holds
}

// local counts the entries of es that the store does not count: kept
// failures and attempts reserved here only.
func local(es []pending) uint64 {
	var n uint64
	for _, e := range es {
		if !e.stored {
			n++
		}
	}
	return n
}

// pendShards is the number of locks of a pending table.
const pendShards = 64

// pendTable holds the pending entries of every throttle key, at most max
// in all. A key's entries are read and written only under its shard's lock,
// which is held across the throttle calls that decide on them, so that a
// key's count and entries change together.
//
// An entry that no longer counts (out of the window at now) leaves when its
// key is next touched, or when the table is full: take then sweeps the whole
// table before it reports full (see take for the cost), so that the table
// is full only of entries that count at now, and an outage that filled it
// never locks anyone out once its entries have left the window.
type pendTable struct {
	seed   maphash.Seed
	shards [pendShards]pendShard
	n      atomic.Int64 // entries held
	max    int64
	window uint64 // seconds an entry counts: the throttle's window

	sweepMu  sync.Mutex // held by the one goroutine sweeping a full table
	swept    bool       // a sweep has run; guarded by sweepMu
	sweptNow uint64     // the now of the last sweep; guarded by sweepMu
}

// pendShard is one lock's share of the keys.
type pendShard struct {
	mu   sync.Mutex
	keys map[string][]pending // guarded by mu; no key maps to an empty list
}

// newPendTable returns an empty table of at most max entries, each
// counting for window seconds.
func newPendTable(max int64, window uint64) *pendTable {
	p := &pendTable{seed: maphash.MakeSeed(), max: max, window: window}
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

// take counts one more entry at now, or reports the table full. A full
// table is swept first (sweep: every entry that no longer counts at now
// leaves) and tried again. held is the caller's shard, locked by it, whose
// key's entries the caller has just filtered with live at the same now: the
// sweep changes nothing of them.
//
// Cost: O(1) while there is room. A sweep visits every entry, O(max), under
// each shard's lock in turn; it runs only on a full table, one goroutine at
// a time (another that finds the table full meanwhile reports full at
// once, never waits), and at most once per second of now, unless the clock
// was set back by more than the window: between sweeps a full table reports
// full in O(1). Entries only expire as now grows, so a second sweep at the
// same second would free nothing new.
func (p *pendTable) take(held *pendShard, now uint64) bool {
	return p.count() || (p.sweep(held, now) && p.count())
}

// count counts one more entry, or reports the table full.
func (p *pendTable) count() bool {
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

// sweep drops the entries that no longer count at now from every shard and
// reports whether it ran: false when another goroutine is sweeping or
// shouldSweep says a sweep at now would free nothing new. held is locked by
// the caller; the others are locked one at a time. No goroutine waits for
// sweepMu while holding a shard (TryLock), and only the sweeper holds two
// shards, so this cannot deadlock.
func (p *pendTable) sweep(held *pendShard, now uint64) bool {
	if !p.sweepMu.TryLock() {
		return false
	}
	defer p.sweepMu.Unlock()
	if !p.shouldSweep(now) {
		return false
	}
	for i := range p.shards {
		sh := &p.shards[i]
		if sh != held {
			sh.mu.Lock()
		}
		for key := range sh.keys {
			p.live(sh, key, now)
		}
		if sh != held {
			sh.mu.Unlock()
		}
	}
	return true
}

// shouldSweep reports whether a sweep at now may free anything the last one
// did not, and records now as the last sweep's when it does: true for the
// first sweep, for a now later than the last sweep's, and for a now more
// than the window before it (the clock was set back). sweepMu is held.
func (p *pendTable) shouldSweep(now uint64) bool {
	if p.swept && now <= p.sweptNow && p.sweptNow-now <= p.window {
		return false
	}
	p.swept, p.sweptNow = true, now
	return true
}

// live returns key's entries that still count at now, dropping the others
// (an attempt never settled expires as its failure would, at the window's
// end). sh is locked.
func (p *pendTable) live(sh *pendShard, key string, now uint64) []pending {
	es := sh.keys[key]
	kept := slices.DeleteFunc(es, func(e pending) bool { return !throttle.InWindow(e.t, p.window, now) })
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
