// Package lim is the optimized form of seed 000's pure functions (spec.md, area
// LIM): the same results as model/lim bit for bit, over the whole int64 domain,
// without math/big, hardware division on the hot path, or allocation.
//
//   - [Config] (lim_cfg, [NewConfig]) is opaque: it precomputes the validity
//     check and fixed-point reciprocals of ivl and refil, so [Config.Take]
//     divides by multiplying.
//   - [Bucket] (lim_bkt, lim_bkt_new), [TakeResult] (LimTake).
//   - [Acquire], [Release]: the in-flight semaphore (lim_acq, lim_rel).
//   - [IPKey] (lim_ip_key), [IPKeyBytes] (the same over bytes): polynomial
//     evaluation with a table of powers and the special form of the prime
//     2^32 - 5, one reduction per 16 bytes.
//   - [Response503], [AppendResponse503] (lim_resp_503).
//
// All functions are safe for concurrent use; none allocates except
// Response503, which returns a new string.
//
// Imports: the standard library only. impl never imports the model it is
// checked against (internal/archcheck).
package lim
