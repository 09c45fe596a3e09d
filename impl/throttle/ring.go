package throttle

// The stamps of a key are the k largest of its failure stamps, a multiset kept
// sorted in descending order in st[:n] of a k-slot array (k = len(st)). Sorting
// by value, not by arrival, keeps the set exact when the clock steps back.

// addStamp adds t to the top-k multiset st[:n] and returns the new n. When
// the set is full, t replaces the smallest stamp if it is larger; a t equal
// to the smallest leaves an identical multiset.
func addStamp(st []uint64, n int, t uint64) int {
	k := len(st)
	if n == k {
		if t <= st[k-1] {
			return n
		}
		n-- // the smallest stamp leaves the top k
	}
	if n == 0 || st[0] < t { // the newest stamp: the clock did not step back
		copy(st[1:n+1], st[:n])
		st[0] = t
		return n + 1
	}
	i := n
	for i > 0 && st[i-1] < t {
		st[i] = st[i-1]
		i--
	}
	st[i] = t
	return n + 1
}

// inWindow returns how many of the descending stamps st[:n] count at now
// (spec THR-4): those t with t + window > now. They form a prefix, found
// from its end: when the window holds every kept stamp (keys failing now
// and then, and every key under attack) that is one comparison.
func inWindow(st []uint64, n int, now, window uint64) int {
	if now < window {
		return n // t + window >= window > now for every t
	}
	cut := now - window
	for n > 0 && st[n-1] <= cut {
		n--
	}
	return n
}
