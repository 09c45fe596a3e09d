package gate

import "github.com/limcheck/limcheck/impl/lim"

// This file is API beyond spec.md for impl/httplimit: an admission that
// also returns the bucket it decided on (for rate-limit headers), and an
// admission by the in-flight count alone (for requests that skip the
// buckets, and for policies run under one Gate). Neither changes what
// Admit decides.

// AdmitBucketBytes is [Gate.AdmitBytes] that also returns the key's bucket
// after the take, the one the decision read, so that a caller can describe
// it (remaining tokens, when it is full again) with no second lookup,
// which a concurrent request could have moved. The decision, and what it
// writes, are AdmitBytes's (a test compares the two over random
// histories). The bucket is: on a Pass, the key's after its token was
// spent; on a Limited whose key holds a way, the key's refilled to now; on
// a Limited whose eviction the set's budget refused (Way [NoWay]), an
// empty bucket at now (the key has none: it comes back born full once the
// budget pays, after the decision's Retry); on a Shed, the zero bucket (a
// shed reads no way, spec GATE-4).
func (g *Gate) AdmitBucketBytes(ip []byte, now int64) (Decision, lim.Bucket) {
	key := lim.IPKeyBytes(ip)
	set := g.setOf(key)
	base := set * g.t.n
	ws := g.t.set(base)
	g.t.lock(base)
	k1 := uint64(key) + 1
	i, r, drop := g.place(ws, base, find(ws, k1), k1, now)
	si := g.inflight.localShard()
	sh := &g.inflight.shards[si]
	var d Decision
	switch {
	case drop == evict:
		d = g.evict(set, base, i, k1, now, r.Tks, si)
		switch d.Verdict {
		case Pass:
			return d, lim.Bucket{Tks: g.cap - 1, Last: now}
		case Limited:
			return d, lim.Bucket{Last: now}
		}
		return d, lim.Bucket{}
	case r.OK == 1 && g.inflight.tryAcquire(sh):
		d = Decision{Verdict: Pass, shard: uint8(si), Slot: base + int64(i), Set: set, Way: int64(i)}
	case r.OK == 0 && g.inflight.hasFree(sh):
		d = Decision{Verdict: Limited, Slot: base + int64(i), Set: set, Way: int64(i),
			Retry: r.Retry, RetryAfter: RetryAfterSeconds(r.Retry, g.tickNanos)}
	default:
		g.t.unlock(base)
		return shed(set), lim.Bucket{}
	}
	g.t.putUnlock(ws, base, i, drop, k1, r.Bucket())
	return d, r.Bucket()
}

// AdmitInFlight takes one in-flight place, reading and writing no bucket
// (lim_acq alone, spec LIM-14): a Pass, to be given back with one
// Release(d) as any other, or a Shed (Retry-After 1) when maxif places are
// in flight. Set, Way and Slot are [NoWay]: no key is read.
func (g *Gate) AdmitInFlight() Decision {
	si := g.inflight.localShard()
	if g.inflight.tryAcquire(&g.inflight.shards[si]) {
		return Decision{Verdict: Pass, shard: uint8(si), Slot: NoWay, Set: NoWay, Way: NoWay}
	}
	return Decision{Verdict: Shed, Slot: NoWay, Set: NoWay, Way: NoWay, RetryAfter: 1}
}

// Limits returns the gate's bucket limits (cap, refil and ivl of its lim
// config), for [Limits.FullIn] and [Limits.MoreIn] over its buckets.
func (g *Gate) Limits() Limits {
	return Limits{Cap: g.cap, Refil: g.lim.Refil(), Ivl: g.lim.Ivl()}
}
