// Package redisstore is a [throttle.Store], [throttle.FusedStore] and
// [throttle.ReserveStore] on Redis (>= 7.0), through rueidis: the
// throttle's state shared by every node that talks to one Redis primary
// (or cluster), the reservations of attempts in flight included (Reserve
// is one script that checks and reserves; FailReserved is FailAndBan's
// script, which then also ends the reservation).
//
// Each operation is one command or one Lua script (EVALSHA; the EVAL
// fallback on NOSCRIPT, after a restart or a SCRIPT FLUSH, is rueidis's),
// so each is atomic and one round trip, but for Purge (one script per
// partition, more for a large one): BanUntil and Count are an HGET, Clear
// an HDEL, CheckState a read-only script, AddFailure and FailAndBan one
// script (HGET, HSET, and PEXPIRE ... GT), Ban and ClearFailures one
// script each. The scripts that compare stamps share lua/lib.lua's lt (two
// 8-byte big-endian uint64s, by their 32-bit halves), which [JoinLib]
// joins after each one's first line when it is loaded: the server runs
// each script whole, and the comparison is written once.
//
// # Layout
//
// The keys are grouped into partitions (spec DIST-11).
//
// For namespace NS, Config.Partitions = N (1 unless set), and throttle key
// K (any bytes):
//
//	thr:{NS:P}      hash: partition P = FNV-1a 64 of K's bytes mod N
//	                ([Store.Partition]), P in decimal; one field per
//	                tracked key K (spec STORE-8): the fields are the
//	                tracked-key set
//	thr:{NS:P}:r:K  sorted set: K's reservations ([throttle.ReserveStore],
//	                not spec state), in its partition's slot; members
//	                hex16(t) ":" opid ":" seq, every score 0, so that a
//	                lex range selects the window's; no purge reads it, its
//	                own TTL ends it
//
// Field K's value packs K's record: its ban-until, then its stamps, largest
// first, each 8 bytes big-endian (8 + 8n bytes for n <= k stamps: 48 at
// k = 5). A key with no stamp and ban-until 0 has no field. With the
// default hash-max-listpack-value (64) a record of up to 7 stamps keeps a
// small partition (up to hash-max-listpack-entries fields, 512 by default)
// a listpack.
//
// Each partition has a hash tag of its own, {NS:P}: on a Redis Cluster
// the partitions spread over slots, and primaries, by N (a partition, and
// so a key's ops, lives on one primary), and namespaces spread by name,
// so that many namespaces of one partition each (the default) do not
// share one slot. N = 1 is the exact mode's layout: a namespace in one
// slot. Every store of a namespace must use the same N (keys of another N
// land in other partitions, unseen). A client that aims its keys at one
// partition (the hash is not secret) only makes that hash bigger.
//
// Redis hashes the text between a key's first '{' and the first '}' after
// it. Config.Namespace may contain neither (New refuses it, wrapping
// ErrConfig), so the tag is exactly NS:P: a key K's braces come after it
// and change nothing, two namespaces or two partitions never share a tag
// (P, in decimal, is the text after its last ':'), and only CRC16 puts
// two tags in one slot, as it may any two names.
//
// # Purge
//
// Purge visits the partitions in turn; in each, one script per batch of
// at most 100 keys (HGETALL when the partition has at most 100, else HSCAN
// inside the script, its cursor carried from batch to batch) drops the
// stamps out of the window and the bans over, and deletes the fields left
// empty. Each batch is atomic, so a partition of at most 100 keys is
// purged in one atomic step: with one partition and that few keys, Purge
// is one step over every tracked key, as the model's. Across batches and
// partitions it is not one step: operations of other nodes may land
// between two partitions' scripts (spec PROP-14 holds per key). Its count
// is exact: every key it counts it removed, and that key had no stamp in
// the window and no ban in force when it did; a key tracked throughout is
// seen, and counted at most once.
//
// # Exactness
//
// No uint64 is ever a Lua number: times cross the boundary as 8 bytes
// big-endian, the window's lower bound (t + window > now iff t >= now -
// window + 1) is computed in Go, and the scripts compare two uint64s by
// their 32-bit halves (struct.unpack '>I4I4': numbers below 2^32, exact),
// never as doubles nor with Lua's locale-dependent string order.
//
// # TTLs
//
// Every write that may create a partition (AddFailure, FailAndBan,
// FailReserved, Ban) gives it the store's TTL (Config.TTL of Redis time)
// with PEXPIRE ... GT, and NX for a partition that has none yet: a
// partition's TTL only grows, so a store with a shorter TTL sharing the
// namespace never cuts another's short (spec DIST-6). A partition expires
// only when no key of it was written for TTL: with now in Unix seconds and
// a TTL at least window + ban, its keys then have no stamp in the window
// and no ban in force, so an expiry drops only what Purge would drop; but
// the dropped keys leave the tracked set with them, uncounted by a later
// Purge (the model would count them). Decisions and counts equal the
// model's for histories in which no partition expires (spec DIST-7). A
// key's reservations get the TTL on each reservation.
//
// # Faults
//
// Spec DIST-5: an operation that fails *definitely* had no effect
// (STORE-1): a Redis error reply (scripts validate before they write and
// start with #!lua, so an OOM refusal comes before any write), a failed
// connect, any failed read. A write that was sent and got no reply (a
// reset, a timeout) failed *ambiguously*: it may have taken effect. Its
// *throttle.StoreError wraps [ErrIndeterminate]; it is never retried. On a
// Redis Cluster, a reply that says the command did not run yet (TRYAGAIN
// while a partition's slot moves between nodes, CLUSTERDOWN, LOADING) is
// retried until Config.Timeout; MOVED and ASK are followed by rueidis.
// A Purge that fails after some of its scripts ran has purged what they
// purged (nothing a later decision sees, spec PROP-14).
//
// # Clock
//
// No script of this package reads TIME (Redis's clock): now is the
// caller's, and every TTL is relative (PEXPIRE), so the store runs on
// managed Redis offerings that refuse TIME in scripts.
//
// # Eviction
//
// New refuses a server whose maxmemory-policy may evict keys (any but
// noeviction: every key here has a TTL, so volatile-* policies can evict
// any of them), unless Config.OnEvictingPolicy accepts it: an evicted
// partition is its keys' bans lifted and failures forgotten, silently, and
// a refusal at startup is better than that; the hook leaves the choice,
// and the warning, to the operator.
//
// Imports: the standard library, impl/throttle, impl/internal/redisfault
// and rueidis.
package redisstore
