package gen

import (
	"math"

	"github.com/limcheck/limcheck/oracle"
)

// limState is what a lim Ops remembers: the current config, the bucket
// the last take returned, the in-flight count lim_acq and lim_rel returned,
// and the last time.
type limState struct {
	cfgSet                 bool
	cap, refil, ivl, maxif int64
	bktSet                 bool
	tks, last              int64
	n                      int64
	nowSet                 bool
	now                    int64
}

// observe chains a take's bucket and an acquire's or release's count.
func (s *limState) observe(op oracle.Op, r oracle.Result) {
	switch op.Kind {
	case oracle.LimTake:
		s.now, _ = op.Now.Int64()
		s.nowSet = true
		if i64Of(r.OK) == 0 && i64Of(r.Retry) == 0 {
			return // out of contract (PROP-4): keep chaining the last real bucket
		}
		s.tks, _ = r.Tks.Int64()
		s.last, _ = r.Last.Int64()
		s.bktSet = true
	case oracle.LimAcq, oracle.LimRel:
		s.n, _ = r.N.Int64()
	}
}

// drawLim draws a lim op of kind k.
func (g *Ops) drawLim(t src, k oracle.Kind) oracle.Op {
	switch k {
	case oracle.LimCfg:
		return oracle.Op{Kind: k, Cap: oracle.I(limParam(t, "cap")), Refil: oracle.I(limParam(t, "refil")), Ivl: oracle.I(limParam(t, "ivl")), Maxif: oracle.I(limParam(t, "maxif"))}
	case oracle.LimBktNew:
		return oracle.Op{Kind: k, Cap: oracle.I(genInt64(t)), Now: oracle.I(g.limNow(t))}
	case oracle.LimTake:
		return g.limTake(t)
	case oracle.LimAcq:
		return oracle.Op{Kind: k, N: oracle.I(g.limN(t)), Maxif: oracle.I(g.limMaxif(t))}
	case oracle.LimRel:
		return oracle.Op{Kind: k, N: oracle.I(g.limN(t))}
	case oracle.LimIPKey:
		return oracle.Op{Kind: k, IP: bytesOf(genIP(t))}
	}
	return oracle.Op{Kind: oracle.LimResp503, Retry: oracle.I(genInt64(t))}
}

// limTake draws a take: the current config (sometimes a new one, rarely an
// invalid one), the chained bucket (sometimes another), a time at or near a
// step boundary, and a cost.
func (g *Ops) limTake(t src) oracle.Op {
	cap, refil, ivl, maxif := g.limConfig(t)
	tks, last := g.limBucket(t)
	now := g.limNowFrom(t, last)
	return oracle.Op{Kind: oracle.LimTake, Tks: oracle.I(tks), Last: oracle.I(last), Cap: oracle.I(cap), Refil: oracle.I(refil), Ivl: oracle.I(ivl), Maxif: oracle.I(maxif),
		Now: oracle.I(now), Cost: oracle.I(g.limCost(t))}
}

// limConfig returns the config of a take: the current one, 7 times in 8,
// else a new valid one that stays current (a lowered cap: FIND-11); 1 take
// in 32 instead gets an out-of-contract config (LIM-7: some parameter < 1),
// for that take only.
func (g *Ops) limConfig(t src) (cap, refil, ivl, maxif int64) {
	s := &g.lim
	if !s.cfgSet || rare(t, "new config", 3) {
		s.cap, s.refil, s.ivl, s.maxif = genPositive(t), genPositive(t), genPositive(t), genPositive(t)
		s.cfgSet = true
	}
	p := []int64{s.cap, s.refil, s.ivl, s.maxif}
	if rare(t, "out-of-contract config", 5) {
		p[t.intRange(0, 3, "out-of-contract parameter")] = pick(t, "out-of-contract value", int64(0), -1, math.MinInt64)
	}
	return p[0], p[1], p[2], p[3]
}

// limBucket returns the bucket the last in-contract take returned, 7 times
// in 8, else a fresh one: born full, empty, one below or above cap, huge,
// or (1 time in 4) with tks < 0, out of contract.
func (g *Ops) limBucket(t src) (tks, last int64) {
	s := &g.lim
	if s.bktSet && !rare(t, "fresh bucket", 3) {
		return s.tks, s.last
	}
	last = g.limNow(t)
	if rare(t, "negative tks", 2) {
		return pick(t, "negative tks", int64(-1), math.MinInt64), last
	}
	c := max(s.cap, 0)
	switch t.intRange(0, 6, "tks band") {
	case 1:
		return 0, last
	case 2:
		return 1, last
	case 3:
		return max(addSat(c, -1), 0), last
	case 4:
		return addSat(c, 1), last
	case 5:
		return math.MaxInt64, last
	case 6:
		return t.int64Range(0, c, "tks up to cap"), last
	}
	return c, last // born full (LIM-6)
}

// limNow draws a time: from the last time or the bucket's last, else an
// absolute edge.
func (g *Ops) limNow(t src) int64 {
	if g.lim.bktSet {
		return g.limNowFrom(t, g.lim.last)
	}
	return absInt64Time(t)
}

// limNowFrom draws a time relative to last (the take's bucket) or to the
// previous time: whole steps of ivl +-1 (repeat, +1, ivl-1, ivl, ivl+1, a
// clock step back), or an absolute edge.
func (g *Ops) limNowFrom(t src, last int64) int64 {
	s := &g.lim
	ivl := max(s.ivl, 1)
	switch t.intRange(0, 9, "now from") {
	case 0, 1, 2, 3:
		return addSat(last, stepDelta(t, ivl))
	case 4, 5:
		if s.nowSet {
			return addSat(s.now, stepDelta(t, ivl))
		}
	case 6:
		return addSat(last, -t.int64Range(1, 3, "step back"))
	}
	return absInt64Time(t)
}

// stepDelta draws k whole steps of ivl plus d in -1..1: 0 (repeat), 1,
// ivl-1, ivl, ivl+1, -1 (back), and far ahead; saturated.
func stepDelta(t src, ivl int64) int64 {
	k := pick(t, "whole steps", int64(0), 0, 2, 10, math.MaxInt64, 3, 1, 1)
	return addSat(mulSat(k, ivl), t.int64Range(-1, 1, "off the step boundary"))
}

// absInt64Time draws an int64 time at the domain's edges or anywhere.
func absInt64Time(t src) int64 {
	if t.bool("edge time") {
		return pick(t, "time edge", int64(math.MinInt64), math.MinInt64+1, -1, 0, 1, math.MaxInt64-1, math.MaxInt64)
	}
	return genInt64(t)
}

// limCost draws a cost: 1 half of the time, else cap, cap+1 (FIND-4),
// MaxInt64 or up to cap; 1 time in 32 an out-of-contract cost < 1.
func (g *Ops) limCost(t src) int64 {
	if rare(t, "out-of-contract cost", 5) {
		return pick(t, "out-of-contract cost", int64(0), -1, math.MinInt64)
	}
	if !t.bool("cost other than 1") {
		return 1
	}
	c := g.lim.cap
	switch t.intRange(0, 3, "cost band") {
	case 0:
		return c
	case 1:
		return addSat(c, 1)
	case 2:
		return math.MaxInt64
	}
	return t.int64Range(1, max(c, 1), "cost up to cap")
}

// limN draws lim_acq's or lim_rel's n: the count the last one returned 3
// times in 4, else an edge (negative: out of contract).
func (g *Ops) limN(t src) int64 {
	if !rare(t, "n edge", 2) {
		return g.lim.n
	}
	m := g.lim.maxif
	return pick(t, "n edge", int64(0), 1, -1, math.MinInt64, addSat(m, -1), m, math.MaxInt64)
}

// limMaxif draws lim_acq's maxif: the config's 3 times in 4, else an edge.
func (g *Ops) limMaxif(t src) int64 {
	if g.lim.cfgSet && !rare(t, "maxif edge", 2) {
		return g.lim.maxif
	}
	return pick(t, "maxif edge", int64(1), 2, 0, -1, math.MinInt64, math.MaxInt64)
}

// limParam draws a lim_cfg parameter: valid 3 times in 4, else an edge or
// anything.
func limParam(t src, label string) int64 {
	if !rare(t, label+" any", 2) {
		return genPositive(t)
	}
	return genInt64(t)
}

// bytesOf returns a pointer to s as Bytes.
func bytesOf(s string) *oracle.Bytes { b := oracle.Bytes(s); return &b }

// i64Of returns n as an int64, 0 when absent or out of range.
func i64Of(n oracle.Num) int64 { v, _ := n.Int64(); return v }
