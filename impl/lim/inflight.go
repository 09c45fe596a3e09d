package lim

// AcquireResult is the seed's LimIf. Its fields are the seed's getters lif_ok
// and lif_n.
type AcquireResult struct {
	OK int64 // 1 acquired, 0 shed
	N  int64 // the in-flight count after the call
}

// Acquire is the seed's lim_acq(n, maxif) (spec LIM-14): {1, n+1} iff
// 0 <= n < maxif, else {0, n}.
func Acquire(n, maxif int64) AcquireResult {
	if n >= 0 && n < maxif {
		return AcquireResult{OK: 1, N: n + 1}
	}
	return AcquireResult{OK: 0, N: n}
}

// Release is the seed's lim_rel(n) (spec LIM-15): n - 1, floored at 0.
func Release(n int64) int64 {
	if n >= 1 {
		return n - 1
	}
	return 0
}
