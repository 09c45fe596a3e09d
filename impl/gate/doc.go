// Package gate is the optimized composition layer of seed 000 (spec.md, area
// GATE): a preallocated, fixed-capacity table of bucket slots indexed by
// lim_ip_key, a global in-flight counter, the decision order (in-flight gate
// first, then the bucket) and the 503 with Retry-After. It returns the same
// decisions as model/gate for every sequential history, and its concurrent
// histories are linearizable with respect to that model.
//
// Layout. A slot is 16 bytes: a state word and the bucket's last tick. The
// state word holds ^tks for a touched slot (always negative, since tks >= 0),
// 0 for an untouched slot and 1 while an Admit holds the slot: the slot's lock
// costs no memory. Admit never allocates and never calls into a map.
//
// In-flight count. The maxif places are leased to a few shard words (one per
// two Ps), so concurrent requests do not all write one cache line. Each P
// keeps to its own shard word (a sync.Pool token: the runtime's only public
// per-P storage), and a Pass remembers its shard for Release; each
// acquire and release is one CAS on one shard word, and the fast paths carry
// their own proof (a free place exists; a used place exists). When a shard's
// lease runs out, a slow path freezes every shard word under a mutex, decides
// on the exact count and deals the places back out. When every place is
// taken, every shard word says so, and a shed reads only its own shard word.
// The count is exact at every decision: sharding changes the cost, never the
// answer.
//
// Linearizability. Admit holds its slot, computes the take (pure), then runs
// the in-flight test: a pass takes effect at the CAS that takes a place, a
// limited request at the read that proves a place was free, a shed at the
// read that proves none was. The slot is written only by its holder, and a
// shed gives it back unchanged.
//
// API:
//
//   - [Config], [New]: a gate of N slots over an impl/lim config.
//   - [Gate.Admit] (injected tick), [Gate.AdmitNow] (the gate's monotonic clock),
//     [Gate.AdmitBytes] (a key in a byte buffer).
//   - [Gate.Release]: give back a passed request's in-flight place.
//   - [Gate.InFlight], [Gate.Bucket], [Gate.SlotOf], [Gate.Now], [Gate.Config]: reads.
//   - [Decision], [Verdict], [RetryAfterSeconds], [Decision.AppendResponse].
//
// Imports: the standard library and impl/lim.
package gate
