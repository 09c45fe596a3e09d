package throttle

import (
	"math"
	"math/big"
)

// InWindow reports whether a failure stamped t counts at now: t + window > now,
// computed exactly. There is no upper bound: a stamp after now (the clock
// stepped back) counts.
func InWindow(t, window, now uint64) bool {
	// spec THR-4: "A failure stamped t counts at now iff t + window > now (exact); a stamp later than now counts."
	sum := new(big.Int).Add(u(t), u(window))
	return sum.Cmp(u(now)) > 0
}

// IsBanned reports whether a stored ban-until bans at now: now < until. An
// until of 0 is no ban.
func IsBanned(until, now uint64) bool {
	// spec THR-5: "A key is banned at now iff now < until, its stored ban-until (0: never banned)."
	return now < until
}

// BanUntil returns now + banSecs, saturated at MaxUint64.
func BanUntil(now, banSecs uint64) uint64 {
	// spec THR-3: "now + ban_secs is computed exactly and saturates at MaxUint64."
	sum := new(big.Int).Add(u(now), u(banSecs))
	if !sum.IsUint64() {
		return math.MaxUint64
	}
	return sum.Uint64()
}

func u(x uint64) *big.Int { return new(big.Int).SetUint64(x) }
