package gate

import "github.com/limcheck/limcheck/model/lim"

// ForgetFull empties every way whose bucket is full at now: the eager
// forgetting PROP-25 compares with the table's lazy rule (GATE-14). Tests
// only.
func ForgetFull(g *Gate, now int64) {
	for _, ways := range g.sets {
		for w, e := range ways {
			if g.full(e.bkt, now) {
				delete(ways, w)
			}
		}
	}
}

// Budget returns the stored eviction budget of set (GATE-19) and true, or a
// zero bucket and false while the set has none. The bucket is the stored
// one, not refilled: one full at a later now is replaced when next used.
// Tests only.
func Budget(g *Gate, set int64) (lim.Bucket, bool) {
	b, ok := g.budgets[set]
	return b, ok
}
