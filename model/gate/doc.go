// Package gate is the executable form of the composition layer that seed 000
// leaves to its caller (clause area GATE of spec.md): a fixed number of bucket
// slots indexed by lim_ip_key, one in-flight counter, the decision order
// (in-flight gate first, then the bucket) and the 503 with Retry-After.
//
// API:
//
//   - [Config], [New]: a gate with N slots, a lim config and a tick length.
//   - [Gate.Admit]: decide one request ([Decision]: [Pass], [Shed] or [Limited]).
//   - [Gate.Release]: give back the in-flight place of a passed request.
//   - [Gate.InFlight], [Gate.Bucket], [Gate.SlotOf]: read access to the state.
//   - [RetryAfterSeconds]: the tick-to-second conversion of Retry-After.
//
// A Gate is a plain state machine: not safe for concurrent use (impl/ has the
// concurrent one). Time is an injected int64 count of ticks.
//
// Imports: the standard library and model/lim.
package gate
