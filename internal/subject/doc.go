// Package subject puts impl/ behind the oracle's vocabulary, in memory and
// on Redis: [Impl] and [Redis] are [oracle.Subject]s, so the trace runner,
// the rapid state machines, the vectors, the fuzz targets and limcheck
// (serve, and serve --redis) drive impl/ exactly as they drive the model
// and third-party ports. It lives under internal/ because oracle/ must not
// import impl/ (the layering rule), while fuzz/ and cmd/limcheck may import
// both.
//
//   - [Impl]: impl/lim, impl/gate and impl/throttle over its MemStore
//     (component throttle_faults over a FaultStore wrapping one).
//     Implementation limits the model does not have (more than
//     [MaxGateSlots] slots, this adapter's bound under impl's
//     gate.MaxSlots; a throttle threshold above throttle.MaxStampsPerKey)
//     make Open fail with an error wrapping oracle.ErrUnsupported: such
//     traces are skipped, not failed.
//   - [Redis], built by [NewRedis] (one redis-server) or [NewRedisFor] (a
//     redisclient.Target: a server, a cluster, a primary under Sentinel):
//     the throttle over impl/throttle/redisstore and the gate as
//     impl/redisgate, on its case's seed (the store's partitions:
//     [Redis.Partitions]); lim has no state and is
//     [Impl]'s. Every Open takes a fresh namespace ([Redis.Namespace]), so
//     instances never share keys; every key has a TTL ([RedisTTL], 10
//     minutes), so nothing outlives a run for long. [NewClient] is the
//     client it uses, for tests that reach the server themselves.
//     [Redis.WithLayout] puts its gates in impl/redisgate's Spread mode
//     ([LayoutSpread]; [ParseLayout] reads limcheck serve's
//     -redis-layout); it starts in [LayoutExact].
//
// Imports: the standard library, oracle, impl/... and
// github.com/redis/rueidis.
package subject
