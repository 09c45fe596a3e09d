// Package throttle is the executable form of seed 003 (Throttle<S: ThrottleStore>):
// a sliding-window failure counter with bans over a pluggable store. Clause areas
// THR (the throttle) and STORE (store operations and faults) of spec.md.
//
// API:
//
//   - [Config], [DefaultConfig], [Config.Validate]: threshold, window and ban length.
//   - [New], [Throttle.Config]: the seed's new and config.
//   - [Throttle.Check], [Throttle.CheckAny]: the seed's check and check_any,
//     returning a [Decision] ([Allow], [Banned] or [Unavailable]).
//   - [Throttle.RecordFailure], [Throttle.RecordSuccess], [Throttle.Reset],
//     [Throttle.PurgeExpired]: the seed's record_failure, record_success, reset
//     and purge_expired.
//   - [Store]: the seven store operations ([Op]); [MemStore], the exact store
//     that keeps every failure stamp; [FaultStore], a wrapper that fails the
//     operations its [Fault] rules match; [StoreError].
//
// Time is uint64 seconds, injected as now. Keys are opaque strings of bytes.
// Nothing here is safe for concurrent use (impl/ has the concurrent store).
//
// Imports: the standard library only.
package throttle
