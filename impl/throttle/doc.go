// Package throttle is the optimized, concurrent form of seed 003's throttle
// (spec.md, areas THR and STORE): a sliding-window failure counter with bans
// over a pluggable store. For every sequential sequence of operations it gives
// the results of model/throttle bit for bit; it adds a sharded, bounded,
// allocation-free store and fused hot paths.
//
// API:
//
//   - [Config], [DefaultConfig], [Config.Validate]: threshold, window and ban
//     length (seconds).
//   - [New], [Throttle.Config]: the seed's new and config.
//   - [Throttle.Check], [Throttle.CheckAny]: check and check_any, returning a
//     [Decision] ([Allow], [Banned] or [Unavailable]).
//   - [Throttle.RecordFailure], [Throttle.RecordSuccess], [Throttle.Reset],
//     [Throttle.PurgeExpired]: record_failure, record_success, reset and
//     purge_expired.
//   - [InWindow], [IsBanned], [BanUntil]: the exact time arithmetic.
//   - [Store], the seven operations ([Op]); [FusedStore], the optional
//     one-lock Check and RecordFailure paths; [StoreError].
//   - [ReserveStore] ([Reserved], [OpReserve], [OpCancelReserved]): the
//     optional reservations, an extension of this package and not a
//     spec.md operation; [Throttle.Reserves], [Throttle.Reserve]
//     ([Reservation]), [Throttle.FailReserved], [Throttle.CancelReserved].
//     A reservation is an attempt in flight that counts as a failure until
//     it is settled, held in the store and made in the atomic step that
//     checks the key, so that it bounds the attempts of every process that
//     shares the store (impl/httplimit's LoginGuard uses it). MemStore
//     holds them (and [MemStore.Reservations] counts them), as does
//     impl/throttle/redisstore; a [FaultStore] does not.
//   - [MemStore] ([NewMemStore], [MemConfig]): the in-memory store. Per key it
//     keeps only the k largest stamps in a fixed sorted array and the
//     ban-until, in one record (64 bytes, one cache line, at k = 5); keys are
//     spread over mutex shards by a seeded hash, each shard with its own Robin
//     Hood index into a record arena the shards share, so operations on
//     tracked keys do not allocate.
//   - [FaultStore], [Fault]: fault injection by (op, keys) rules, STORE-10.
//   - [ErrConfig], [ErrFault], [ErrFull]: sentinels of type [Error].
//
// Capacity policy: a MemStore tracks at most MaxKeys keys (default 1<<20,
// exact under concurrency). When it is full, an operation that would start
// tracking a new key first reclaims the keys that purge_expired(now) would
// drop (AddFailure and FailAndBan, which know now and the window; at most one
// sweep per second of now, see [MemStore]): those change no decision at now
// or later (spec PROP-14), so a store full of expired records never refuses
// a new key. Only when it is full of live records (failures in the window or
// bans in force at now) does the operation fail with a [*StoreError]
// wrapping [ErrFull] and no effect; RecordFailure returns that error (the
// caller alerts and must not fail open: impl/httplimit's LoginGuard keeps
// such a failure itself), never a false ban. Reads, checks of untracked keys
// and operations on tracked keys keep working; purge_expired, reset and
// record_success free room. [MemStore.Reclaimed] counts reclaimed keys.
//
// Reservations of a MemStore are kept beside its records, at most MaxKeys
// in all (a reservation does not track its key); a full set of them
// reclaims as a full store does, then fails with ErrFull. Those never
// settled stop counting at the end of their window and are dropped by the
// key's next reservation or any purge or sweep.
//
// Concurrency: everything is safe for concurrent use ([FaultStore] when its
// inner store is). Over a MemStore, Check and RecordFailure are each one
// atomic operation, which also closes the seed's window in which a reset
// between add_failure and ban is lost; over other stores they are the model's
// two operations. Reserve and FailReserved are one atomic operation each
// over any [ReserveStore].
//
// Time is uint64 seconds, injected as now; arithmetic is exact (no
// wrap-around): t + window > now and now + ban_secs saturated at MaxUint64.
// Keys are opaque byte strings; "" and invalid UTF-8 are keys like any other.
//
// Imports: the standard library only. impl never imports the model it is
// checked against (internal/archcheck).
package throttle
