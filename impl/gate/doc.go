// Package gate is the optimized composition layer of seed 000 (spec.md, area
// GATE, 3.0): a preallocated, fixed-capacity set-associative table of
// per-key buckets, a global in-flight counter, the decision order (in-flight
// gate first, then the bucket) and the 503 with Retry-After. It returns the
// same decisions as model/gate for every sequential history, and its
// concurrent histories are linearizable with respect to that model.
//
// Table. Sets*Ways ways of 16 bytes: the key lim_ip_key (32 bits, stored +1
// so that 0 is an empty way) and the tokens (31 bits) in one word, the
// bucket's last tick in the other. A gate whose cap does not fit 31 bits
// keeps the tokens in a side array (24 bytes a way): the fallback
// representation. The set of a key is SipHash-2-4 of lim_ip_key under the
// gate's 16-byte seed, mod Sets (GATE-13, GATE-18): impl/internal/siphash
// with the key expanded once in New, and a remainder computed without a
// division. The seed is drawn from crypto/rand unless the Config gives one
// (tests, vectors); a drawn seed is never logged nor returned. A key is in at most one way; a way whose bucket is full at now
// behaves as empty (it is reused, and a key found there is born again); when
// no way of the set is empty or full, the way whose refilled bucket holds
// the most tokens is evicted, ties to the lowest way, if the set's budget
// pays cap - tks' of the victim (GATE-16, GATE-19); otherwise the request
// is limited with the budget's retry and no way, and nothing but the budget
// is written. So another key's requests never move a key's bucket:
// eviction only drops a key, which returns born full, and what that mints
// is paid from the set's budget. Budgets are one 16-byte array entry a set,
// cap minus the tokens and the last tick, so that the zero entry is a full
// budget, which behaves as an absent one; they are read and written under
// the set's lock, only on an eviction.
//
// Sizing (spec "What the table guarantees", PROP-26, PROP-27, FIND-27,
// DEC-57): keep the live addresses (keys whose bucket is not full, that is,
// active within cap/refil*ivl ticks) at most half of Sets*Ways, with Ways
// >= 8. A set holding more than Ways live keys admits newcomers at one
// bucket's rate, its budget's (FIND-27); with that sizing about 2% of sets
// overflow at half load with 8 ways (0.4% with 16), each gaining a flood at
// most one address's worth, so a flood gains nothing over its addresses'
// own limits. Memory is 16 bytes a way plus 16 a set. The full test needs no take when at least
// ceil(cap/refil) whole steps have passed since a bucket's last (from 0
// tokens that many refill to cap; New precomputes the ticks); a take decides
// every other case, so the shortcut changes the cost, never the answer.
//
// Locking. Each set has a lock, bit 31 of its way 0's key word (no memory of
// its own). An Admit holds its set for the whole decision: it finds or
// places the key, computes the take (pure) and runs the in-flight test, and
// writes only on a pass or a limited request. Admit never allocates and
// never calls into a map.
//
// In-flight count. The maxif places are leased to a few shard words (one per
// two Ps), so concurrent requests do not all write one cache line. A
// goroutine keeps to the shard its stack address hashes to, and a Pass
// remembers its shard for Release; each acquire and release is one CAS on
// one shard word, and the fast paths carry their own proof (a free place
// exists; a used place exists). When a shard's lease runs out, a slow path
// freezes every shard word under a mutex, decides on the exact count and
// deals the places back out. When every place is taken, every shard word says
// so, and a shed reads only its own shard word. The count is exact at every
// decision: sharding changes the cost, never the answer.
//
// Linearizability. A pass takes effect at the CAS that takes a place, a
// limited request at the read that proves a place was free, a shed at the
// read that proves none was; all three inside the set's lock, so the set is
// the same at that instant as when the decision was computed.
//
// API:
//
//   - [Config], [New]: a gate of Sets*Ways ways over an impl/lim config;
//     [MaxWays] is the implementation's limit.
//   - [Gate.Admit] (injected tick), [Gate.AdmitNow] (the gate's monotonic clock),
//     [Gate.AdmitBytes] (a key in a byte buffer).
//   - [Gate.Release]: give back a passed request's in-flight place.
//   - [Gate.InFlight], [Gate.Bucket], [Gate.BucketBytes], [Gate.WayOf],
//     [Gate.SetOf], [Gate.Now], [Gate.Config]: reads.
//   - [Decision] (Set, Way and Slot = Set*Ways + Way; [NoWay] on a shed
//     or a refused eviction),
//     [Verdict], [RetryAfterSeconds], [Decision.AppendResponse].
//
// Beyond spec.md, for impl/httplimit's policies and header fields (nothing
// above changes for them):
//
//   - [Gate.AdmitBucketBytes]: AdmitBytes that also returns the bucket the
//     decision read; [Gate.AdmitInFlight]: an in-flight place alone;
//     [Gate.Limits].
//   - [Buckets] ([NewBuckets], [BucketsConfig], [ErrBuckets]): a table of
//     buckets without an in-flight count, keyed by any bytes under a
//     per-table seed, [Buckets.Take] of any cost ([Take]), limits changed at
//     run time keeping every bucket ([Buckets.SetLimits], [Buckets.Limits]).
//   - [Limits] ([Limits.FullIn], [Limits.MoreIn], [Limits.WaitFor]): when a
//     bucket is full, holds more, holds n tokens.
//
// Imports: the standard library, impl/lim and impl/internal/siphash.
package gate
