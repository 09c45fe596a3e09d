// Package lim is the executable form of seed 000 (http.frm.limit): a per-IP token
// bucket with whole-step integer refill, a max-in-flight semaphore, an arithmetic
// IP key hash and the 503 response. Clause area LIM of spec.md.
//
// Every function is pure: values in, values out, no state. Time is an injected
// int64 count of ticks. Every function is total over int64 and computes exactly:
// an intermediate value that would overflow int64 is computed with math/big, and a
// result that does not fit is saturated as spec.md says.
// spec LIM-1: "Every lim function is total over int64 and computes exactly; it never panics and never wraps."
//
// Seed names and their Go names:
//
//	LimCfg        [Config]          lim_cfg       [NewConfig]
//	LimBkt        [Bucket]          lim_bkt       [MakeBucket]
//	LimTake       [TakeResult]      lim_bkt_new   [NewBucket]
//	LimIf         [AcquireResult]   lim_take      [Take]
//	lim_err_ok    [ErrOK]           lim_acq       [Acquire]
//	lim_err_param [ErrParam]        lim_rel       [Release]
//	                                lim_ip_key    [IPKey]
//	                                lim_resp_503  [Response503]
//
// The seed's getters (lcfg_cap, lb_tks, lt_retry, lif_n, ...) are the exported
// struct fields of the same name.
//
// Imports: the standard library only.
package lim
