// Package gate is the executable form of the composition layer that seed 000
// leaves to its caller (clause area GATE of spec.md): a bounded
// set-associative table of per-key buckets (sets of ways; a way holds one
// lim_ip_key and its bucket; a bucket full at now behaves as an empty way; a
// full set evicts the way whose refilled bucket holds the most tokens), one
// eviction budget per set, one in-flight counter, the decision order
// (in-flight gate first, then the bucket) and the 503 with Retry-After.
//
// The set of a key is SipHash-2-4 of the key under the gate's 16-byte
// [Seed], mod Sets (GATE-13, GATE-18): without the seed nobody can choose
// addresses that share a set. Vectors and tests use public seeds (the zero
// seed in spec.md's worked example); a production gate draws its seed at
// random (impl/ does; the model takes it from its [Config]).
//
// An eviction costs cap - tks' of its victim (the tokens the victim's key
// gets back when it returns born full), and the set's budget pays: a
// bucket of the gate's own lim config, born full at the set's first
// eviction and again whenever it is full at now (GATE-16, GATE-19). When
// the budget cannot pay, the newcomer is [Limited] with the budget's retry
// and [NoWay], and no way changes (FIND-27). So a flood of addresses that
// take turns in one set gains at most one more address's passes per set
// (PROP-26, PROP-27).
//
// API:
//
//   - [Config], [New]: a gate of Sets sets of Ways ways, a lim config, a
//     tick length and a seed; ways are allocated as keys fill them, so
//     Sets*Ways need not fit in memory (Sets 1, Ways MaxInt64 never evicts).
//   - [Seed]: the 16-byte key of the set index; its text form
//     ([Seed.MarshalText], [Seed.UnmarshalText], [Seed.String]) is 32
//     lowercase hex digits, as vectors carry it. [SipHash] is GATE-18's
//     hash.
//   - [Gate.Admit]: decide one request ([Decision]: [Pass], [Shed] or
//     [Limited], with the set and way; [NoWay] on a shed or when the set's
//     budget refused an eviction).
//   - [Gate.Release]: give back the in-flight place of a passed request.
//   - [Gate.InFlight], [Gate.Bucket], [Gate.SetOf], [Gate.WayOf]: read access
//     to the state; Bucket reads by address at a tick, as the vectors do.
//   - [RetryAfterSeconds]: the tick-to-second conversion of Retry-After.
//
// A Gate is a plain state machine: not safe for concurrent use (impl/ has the
// concurrent one). Time is an injected int64 count of ticks.
//
// Imports: the standard library and model/lim.
package gate
