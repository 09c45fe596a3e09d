package throttle

import "math"

// InWindow reports whether a failure stamped t counts at now: t + window >
// now, exact (spec THR-4). A stamp after now (the clock stepped back) counts.
// All values are seconds. Pure; safe for concurrent use.
func InWindow(t, window, now uint64) bool {
	return now < window || t > now-window
}

// IsBanned reports whether the ban-until until bans at now: now < until
// (spec THR-5); 0 is no ban. Seconds. Pure; safe for concurrent use.
func IsBanned(until, now uint64) bool { return now < until }

// BanUntil returns now + banSecs saturated at MaxUint64 (spec THR-3). Seconds.
// Pure; safe for concurrent use.
func BanUntil(now, banSecs uint64) uint64 {
	if now > math.MaxUint64-banSecs {
		return math.MaxUint64
	}
	return now + banSecs
}
