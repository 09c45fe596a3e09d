// Package gen holds the rapid generators of the oracle's vocabulary:
// configs, ops and whole traces of every component, biased to the edges of
// spec.md (time at step, window and ban boundaries, clock steps back, the
// ends of the int64 and uint64 domains, colliding keys, store faults) and
// to the structural extremes where real implementations cap or wrap: table
// sizes and thresholds at each power of two +-1 and at the 16/31/32/53/63/64
// bit edges, check_any lists of up to 100 keys, keys of 901 bytes sharing
// a 900-byte prefix, more failures on one key than a ring of 128 holds,
// and, in gate traces that open with a bulk run (bulk.go), more keys live
// in one set than 16 or 64 ways hold, more keys live in the table than
// an arena of 1024 holds, keys of one set that differ only in
// their high or only in their low bits, and more passes in flight without
// a release than 2^8 and (rarely: 65,537 ops) 2^16 count; in throttle
// traces that open with a failure run, more failures of one key in one
// window than 8 bits count; and in gate traces that open with a drain or
// a rebirth run, a bucket read and an eviction of a key that refilled but
// is not full, and an eviction when a set's budget is full again off its
// whole steps (GATE-19).
// Those go past impl/'s limits (gate slots over internal/subject's 2^20, a
// threshold over 16384) at a small rate, where the bundled port skips the
// trace (PROTO: a request it cannot serve is skipped, not failed). They are
// reused by limcheck fuzz against third-party ports. Each distribution is
// written once, over a source of draws (src.go): rapid's, or a seeded PRNG.
//
//   - [Config], [GateConfig], [ThrottleConfig]: configs, invalid ones at a
//     small rate (every subject must refuse those with oracle.ErrConfig).
//   - [Trace]: a whole trace, its ops drawn by an [Ops] that follows the
//     model's results; [TraceSeeded]: the same draws from a seeded PRNG
//     instead of rapid, with the model's outcome (limcheck fuzz's traces).
//   - [Ops], [NewOps]: the ops of one trace, one at a time (state machines
//     draw from it and feed it the model's results with [Ops.Observe]).
//   - [Int64], [Positive], [Uint64], [IP], [ThrottleKey], [Faults]: the
//     scalar edges; [EdgeIPs], [ThrottleKeys] and [GateSeeds]: the values
//     they favour, for decoders of fuzz inputs that pick among them.
//
// Imports: the standard library, model/..., oracle and pgregory.net/rapid;
// its tests also github.com/google/go-cmp. Never conformance/...: the
// conformance wing builds on it, not it on the wire.
package gen
