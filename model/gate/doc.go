// Package gate is the executable form of the composition layer that seed 000
// leaves to its caller (clause area GATE of spec.md): a bounded
// set-associative table of per-key buckets (sets of ways; a way holds one
// lim_ip_key and its bucket; a bucket full at now behaves as an empty way; a
// full set evicts the way whose refilled bucket holds the most tokens), one
// in-flight counter, the decision order (in-flight gate first, then the
// bucket) and the 503 with Retry-After.
//
// API:
//
//   - [Config], [New]: a gate of Sets sets of Ways ways, a lim config and a
//     tick length; ways are allocated as keys fill them, so Sets*Ways need
//     not fit in memory (Sets 1, Ways MaxInt64 never evicts).
//   - [Gate.Admit]: decide one request ([Decision]: [Pass], [Shed] or
//     [Limited], with the set and way; [NoWay] on a shed).
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
