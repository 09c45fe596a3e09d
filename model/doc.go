// Package model is the executable form of spec.md: the reference every other
// implementation in this module, and every third-party port, is checked against.
//
// It holds no code of its own; the three components live in sub-packages:
//
//   - [github.com/limcheck/limcheck/model/lim]: seed 000's pure functions
//     (lim_cfg, lim_take, lim_acq, lim_rel, lim_ip_key, lim_resp_503, ...).
//   - [github.com/limcheck/limcheck/model/gate]: the composition layer over lim:
//     a bounded set-associative table of per-key buckets, the in-flight gate
//     and the 503 decision.
//   - [github.com/limcheck/limcheck/model/throttle]: seed 003's sliding-window
//     failure counter with bans, its Store interface, an exact store and a
//     fault-injecting store.
//
// The model is plain rather than fast. It computes exactly (math/big where a
// product or a sum may leave the 64-bit domain), it is total (every input in the
// int64/uint64 domain gives the result spec.md defines, never a panic), and it is
// pure: no package-level mutable variables, goroutines, locks, wall clock or
// randomness. internal/purity enforces the last rule; internal/speccheck checks
// that every clause of spec.md is cited here (as "spec ID") and tested.
//
// Imports: the standard library only.
package model
