// Package redisgate is the gate on Redis (>= 7.0), through rueidis: spec
// 3's set-associative table of per-key buckets, with an eviction budget per
// set, and an in-flight count, in one of two layouts (spec DIST-9,
// [Config.Mode]):
//
//   - [Exact] (the zero value): one in-flight count shared by every node
//     that talks to one Redis primary, the in-flight places held as leases
//     (spec DIST-3, DIST-4), the whole gate under one hash tag: one Redis
//     Cluster slot, one primary, one core. Use it where one global exact
//     count matters more than scale.
//   - [Spread] (the cluster layout): in-flight counted per node, in its
//     memory, exact there (a fleet's cap is nodes x maxif); the sets spread
//     over [Config.Slabs] hashes, each its own hash tag, so a gate uses
//     every slot and primary of a cluster.
//
// In both, per-key buckets and decisions are exactly the model's: a key's
// decisions are serialized by its set's primary. With Sets 2^63 - 1 and
// Ways 1 two live keys share a set only when their SipHashes agree modulo
// Sets, and each admit reads one bucket: the layout for production (spec
// DIST-2).
//
// The node computes the set of a key, SipHash-2-4 under Config.Seed (spec
// GATE-13, GATE-18): the seed never reaches Redis. Every node of a table
// must hold the same seed, so New requires one (see [Config]).
//
// # Exact
//
// One Admit is one EVALSHA (the EVAL fallback on NOSCRIPT is rueidis's) of
// lua/admit.lua: the in-flight test, the set's ways and budget, the refill,
// the takes and the lease, atomically (spec DIST-8). Release is one ZREM of
// the decision's lease: releasing twice, or a decision that did not pass,
// is a no-op. Layout, for gate name NAME (one hash tag):
//
//	{lim:NAME}:if     sorted set: lease id -> expiry, ms of the lease clock
//	{lim:NAME}:s:SET  hash: the set SET (8 big-endian bytes), way (decimal)
//	                  -> key (8 bytes), bucket (32 bytes: tq, tr, lq, lr,
//	                  big-endian int64) and the set's expiry as the way's
//	                  last admit left it (a big-endian double, ms of the
//	                  Redis clock), and "b" -> the set's eviction budget
//	                  (32 bytes, the bucket's encoding; absent until its
//	                  first eviction)
//
// # Spread
//
// A node (spec DIST-10) reserves its in-flight place in memory before any Redis trip (a
// CAS on its count against maxif: GATE-4 with the node's own count) and
// sheds with no Redis trip at maxif. Then one EVALSHA of lua/spread.lua on
// the set's slab: its field's ways, the refill, the take or the eviction
// with its budget (GATE-14..GATE-19 as admit.lua), atomically. A pass keeps
// its place until its Release, in memory (no round trip) and idempotent
// per decision (DIST-4); a limited result or an error gives it back at
// once. A limited request holds its node's place for one round trip, so a
// concurrent admit on that node may be shed where the atomic model would
// pass it: Spread errs towards shedding. A node that dies gives its places
// back with its memory. No lease, no TIME: the script uses the node's
// clock where it needs a wall time. Layout, for gate name NAME, the slab
// SLAB = set mod Slabs in decimal (the whole name in the hash tag: the
// slabs of two gates land on different slots):
//
//	{lim:NAME:SLAB}  hash: SET (8 big-endian bytes) -> the set's ways: with
//	                 Ways 1, key (8 bytes) and bucket (32 bytes, as Exact's);
//	                 else one record per used way, way (4 big-endian
//	                 bytes), key, bucket; SET+"b" -> the set's eviction
//	                 budget (32 bytes; absent until its first eviction);
//	                 "m" -> the slab's meta, the expiry its last PEXPIRE
//	                 gave (a big-endian double, ms of the node clocks) and
//	                 its sweep mark (a double)
//
// With Ways 1 a set's value is 40 bytes, under Redis's default
// hash-max-listpack-value (64), so a slab of fewer fields than
// hash-max-listpack-entries (512 by default in Redis 7.0) stays a listpack,
// about 60 bytes a set. A slab also holds the full sets its next sweep will
// drop, up to twice its live ones: size Slabs to about a hundredth of the
// addresses tracked at once (a fiftieth where hash-max-listpack-entries is
// 128), and well above the number of primaries, so that they share the load
// evenly (a primary's share of S slabs over P primaries varies by about
// 1/sqrt(S/P)): the default 1024 suits up to about 100,000 addresses on a
// few primaries.
//
// # Scripts
//
// lua/admit.lua (Exact) and lua/spread.lua (Spread) call one copy of the
// arithmetic, lua/arith.lua: the refill, the eviction's charge from the
// budget, the take and the TTL a write needs. Each EVALSHA must name one
// self-contained script, so the package loads each as [JoinArith] joins
// lua/arith.lua into it, after its first line; a test that plants a bug in
// any of the three files joins them the same way to find the script the
// server runs.
//
// # Exactness
//
// The only products and quotients in LIM-8..LIM-12 are by the config
// constants ivl and refil, so Go divides now by ivl and cap by refil and
// the scripts see (quotient, remainder) pairs: tks = tq*refil + tr, last =
// lq*ivl + lr. Lua then only adds and compares integers held as 32-bit
// halves, exact in doubles. Every int64 crosses the boundary as 8
// big-endian bytes, which a script's struct.unpack reads as a signed high
// and an unsigned low half in one C call ('>i4I4') and struct.pack writes
// back, after a range check of the high half: no hex digits to parse or
// format, no table per value. Exact's way record (48 bytes) stays under
// hash-max-listpack-value as well. The retry of a limited take (cost 1)
// depends only on the config and is impl/lim's; a refused eviction's retry
// depends on the budget's deficit (cost - tks'), which a script returns as
// a (q, r) pair and Go turns into ticks with impl/lim; Retry-After is
// impl/gate's RetryAfterSeconds.
//
// # TTLs
//
// Spec DIST-6: a bucket carries no information once it is full (GATE-14),
// nor does a full budget (an absent one is born full, GATE-19), so a set's
// (in Spread, a slab's) TTL runs to the real time each bucket it last wrote
// (its way's, its budget's) would be full again, rounded up, plus
// Config.TTLMargin (which must cover clock skew between nodes and Redis and
// any step back of now), and only grows: an expiry drops only full ways
// and a full budget. Exact's lease set's TTL runs past its last lease. In
// Spread, a set whose ways and budget are all full carries no information
// either: when a new field brings a slab's HLEN to its mark (64 at first),
// the script drops every set and budget full since now less the margin
// (only what an expiry would drop) and sets the mark to twice the fields
// left, 64 at least. A slab so holds at most about twice its live sets and
// 64, and the sweeps cost O(1) per admit, amortized.
//
// Who supplies now: the caller, in ticks (spec DIST-1): [Gate.Now] is this
// node's wall clock since Config.Epoch. Exact's leases expire on the Redis
// clock: its admit script and its in-flight count read TIME (the admit only
// when it passes or finds maxif leases, expired ones included), and no
// other script of this package or of impl/throttle/redisstore does. Where
// a managed Redis refuses TIME in scripts, Config.NodeClock sends the
// node's own Unix ms instead (the nodes' clocks must then agree well within
// the lease TTL). Spread never reads TIME.
//
// Server cost, Exact: an admit's first attempt does not look for a
// replayed lease (its lease id is new); it counts leases with ZCARD and
// counts the live ones (ZCOUNT) only when ZCARD reaches maxif; it drops the
// expired leases then, and on every 64th admit of a node (or quarter lease
// TTL), when it also gives the lease set its TTL again; it grows a TTL with
// one PEXPIRE ... GT, not a PTTL and a PEXPIRE; and in the one-way layout a
// pass skips the set's PEXPIRE while the expiry its way recorded (the last
// PEXPIRE's, a margin past what that admit needed) covers what this one
// needs. Spread: one HMGET (the set, its budget, the meta), one HSET, and
// the slab's PEXPIRE ... GT only when the meta's expiry falls short.
//
// Eviction: New refuses a server whose maxmemory-policy may evict keys
// (any but noeviction: every key here has a TTL, so volatile-* policies
// can evict any of them), unless Config.OnEvictingPolicy accepts it. An
// evicted set is a bucket born full again, its spent tokens back, with
// nothing to show for it: a silent reset is worse than a refusal at
// startup, and the hook leaves the choice, and the warning, to the
// operator.
//
// # Faults
//
// A definite failure (a Redis error reply, a failed connect) had no
// effect; an ambiguous one (sent, no reply) may have. On a Redis Cluster,
// a reply that says the script did not run yet (TRYAGAIN while a slot
// moves between nodes, CLUSTERDOWN, LOADING) is retried until
// Config.Timeout; MOVED and ASK are followed by rueidis. Exact's Admit
// retries both kinds with the same lease id and the same now until
// Config.Timeout: a replayed pass is found by its lease and not taken
// again, and a limited or shed attempt leaves nothing a second attempt
// would not leave. When every attempt failed, Admit returns an error
// wrapping [ErrIndeterminate] if any attempt was ambiguous (whatever the
// later ones' errors), else [ErrUnavailable]; an indeterminate pass holds a
// lease that expires by itself (a release, DIST-2). Spread's Admit retries
// definite failures only: an ambiguous attempt has no lease to find its
// replay by, so Admit returns ErrIndeterminate at once and gives the
// node's place back.
//
// Imports: the standard library, impl/lim, impl/gate, impl/internal/siphash,
// impl/internal/redisfault and rueidis.
package redisgate
