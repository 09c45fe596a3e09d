// Package redisstore is a [throttle.Store], [throttle.FusedStore] and
// [throttle.ReserveStore] on Redis (>= 7.0), through rueidis: the
// throttle's state shared by every node that talks to one Redis primary,
// the reservations of attempts in flight included (Reserve is one script
// that checks and reserves; FailReserved is FailAndBan's script, which then
// also ends the reservation).
//
// Each operation is one command or one Lua script (EVALSHA; the EVAL
// fallback on NOSCRIPT, after a restart or a SCRIPT FLUSH, is rueidis's), so
// each is atomic, and the fused paths make Check and RecordFailure one round
// trip each.
//
// Layout, for namespace NS and throttle key K (any bytes):
//
//	{NS}:z:K  sorted set: K's failure stamps, every score 0, member
//	          hex16(t) ":" opid, so ZRANGEBYLEX orders stamps by t exactly
//	          over all of uint64 and equal stamps stay distinct members
//	{NS}:b:K  string: K's ban-until as 16 hex digits (absent: 0)
//	{NS}:t    set: the tracked keys (spec STORE-8), for an exact purge count
//	{NS}:r:K  sorted set: K's reservations ([throttle.ReserveStore], not
//	          spec state), members shaped as stamps, so the window selects
//	          them alike; no purge reads it, its TTL ends it
//
// One hash tag per namespace: every key of a store lives in one Redis
// Cluster slot, so a purge batch is one atomic script.
//
// Exactness: no uint64 is ever a Lua number. Times cross the boundary as 16
// hex digits; the window arithmetic (t + window > now) is done in Go as a
// lexicographic bound, and Lua compares 16-hex-digit strings by their two
// 32-bit halves (never with Lua's locale-dependent string order).
//
// TTLs: every write gives the key's records and the tracked set the store's
// TTL again (Config.TTL of Redis time), so an idle key disappears and nothing
// leaks. An expiry is a purge: with now in Unix seconds and a TTL at least
// window + ban, a key expires only once its stamps are out of the window and
// its ban is over, and the tracked set still lists it, so purge's count stays
// exact. Decisions equal the model's for histories in which no key expires
// early (spec DIST-6, spec DIST-7).
//
// Faults (spec DIST-5): an operation that fails *definitely* had no effect
// (STORE-1): a Redis error reply (scripts validate before they write and
// start with #!lua, so an OOM refusal comes before any write), a failed
// connect, any failed read. A write that was sent and got no reply (a
// reset, a timeout) failed *ambiguously*: it may have taken effect. Its
// *throttle.StoreError wraps [ErrIndeterminate]; it is never retried. On a
// Redis Cluster, a reply that says the command did not run yet (TRYAGAIN
// while the namespace's slot moves between nodes, CLUSTERDOWN, LOADING) is
// retried until Config.Timeout; MOVED and ASK are followed by rueidis.
//
// Clock: no script of this package reads TIME (Redis's clock): now is the
// caller's, and every TTL is relative (PEXPIRE, SET PX), so the store runs
// on managed Redis offerings that refuse TIME in scripts. Only
// impl/redisgate's admit and in-flight count read TIME (a lease's expiry); a
// gate without it comes with the next version of the spec.
//
// Eviction: New refuses a server whose maxmemory-policy may evict keys
// (any but noeviction: every key here has a TTL, so volatile-* policies
// can evict any of them), unless Config.OnEvictingPolicy accepts it: an
// evicted key is a ban lifted or failures forgotten, silently, and a
// refusal at startup is better than that; the hook leaves the choice, and
// the warning, to the operator.
//
// Imports: the standard library, impl/throttle, impl/internal/redisfault
// and rueidis.
package redisstore
