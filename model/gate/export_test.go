package gate

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
