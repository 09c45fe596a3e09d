package throttle

import (
	"math"
	"math/bits"
)

// InWindow reports whether a failure stamped t counts at now: t + window > now,
// computed exactly. There is no upper bound: a stamp after now (the clock
// stepped back) counts.
func InWindow(t, window, now uint64) bool {
	// spec THR-4: "A failure stamped t counts at now iff t + window > now (exact); a stamp later than now counts."
	// The sum in 65 bits: carry is its top bit, so a carry is above any now.
	sum, carry := bits.Add64(t, window, 0)
	return carry == 1 || sum > now
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
	sum, carry := bits.Add64(now, banSecs, 0)
	if carry == 1 { // the exact sum is past MaxUint64
		return math.MaxUint64
	}
	return sum
}
