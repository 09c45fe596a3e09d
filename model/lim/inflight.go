package lim

// AcquireResult is the seed's LimIf: the outcome of [Acquire]. Its fields are
// the seed's getters lif_ok and lif_n.
type AcquireResult struct {
	OK int64 `json:"ok"` // 1 acquired, 0 shed
	N  int64 `json:"n"`  // the in-flight count after the call
}

// Acquire is the seed's lim_acq(n, maxif): take one in-flight place when
// n + 1 <= maxif, else shed with n unchanged. A negative n is out of contract
// and sheds.
func Acquire(n, maxif int64) AcquireResult {
	// spec LIM-14: "lim_acq(n, maxif) = {ok 1, n + 1} iff n >= 0 and n + 1 <= maxif (exact), else {ok 0, n}."
	if n >= 0 && n < maxif { // n < maxif is n + 1 <= maxif without computing n + 1
		return AcquireResult{OK: 1, N: n + 1}
	}
	return AcquireResult{OK: 0, N: n}
}

// Release is the seed's lim_rel(n): give one in-flight place back, flooring at 0
// so a repeated release never goes negative.
func Release(n int64) int64 {
	// spec LIM-15: "lim_rel(n) = n - 1 if n >= 1, else 0."
	if n >= 1 {
		return n - 1
	}
	return 0
}
