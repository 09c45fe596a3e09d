package lim

import (
	"math"
	"math/bits"
)

// TakeResult is the seed's LimTake. Its fields are the seed's getters lt_ok,
// lt_retry, lt_tks and lt_last.
type TakeResult struct {
	OK    int64 // 1 pass, 0 reject
	Retry int64 // ticks to wait on a reject (>= 1); 0 on a pass or out of contract
	Tks   int64 // the bucket's tokens after the take
	Last  int64 // the bucket's last refill step after the take
}

// Bucket returns the bucket the result carries.
func (r TakeResult) Bucket() Bucket { return Bucket{Tks: r.Tks, Last: r.Last} }

// Take is the seed's lim_take(b, c, now, cost); see [Config.Take].
func Take(b Bucket, c *Config, now, cost int64) TakeResult { return c.Take(b, now, cost) }

// Take is the seed's lim_take(b, c, now, cost): refill b by whole steps up to
// now, then spend cost tokens if there are enough (spec LIM-7..LIM-13).
func (c *Config) Take(b Bucket, now, cost int64) TakeResult {
	if !c.ok || cost < 1 || b.Tks < 0 {
		return TakeResult{Tks: b.Tks, Last: b.Last}
	}
	tks, last := c.refill(b, now)
	if tks >= cost {
		return TakeResult{OK: 1, Tks: tks - cost, Last: last}
	}
	return TakeResult{Retry: c.retry(uint64(cost - tks)), Tks: tks, Last: last}
}

// refill returns tks' and last' (spec LIM-8..LIM-10) in 64-bit arithmetic:
// now - last is taken as uint64 (exact when now >= last), and steps*refil is
// compared with the room left below cap as a 128-bit product.
func (c *Config) refill(b Bucket, now int64) (tks, last int64) {
	tks, last = min(b.Tks, c.cap), b.Last
	if now < last {
		return tks, last
	}
	d := uint64(now) - uint64(last)
	if d < uint64(c.ivl) {
		return tks, last
	}
	steps := c.ivlDiv.div(d)
	last = int64(uint64(last) + steps*uint64(c.ivl)) // last' is in [last, now]
	hi, lo := bits.Mul64(steps, uint64(c.refil))
	if room := uint64(c.cap - tks); hi != 0 || lo >= room {
		return c.cap, last
	}
	return tks + int64(lo), last
}

// retry returns ceil(deficit * ivl / refil) saturated at MaxInt64 (spec
// LIM-12, LIM-13); deficit >= 1.
func (c *Config) retry(deficit uint64) int64 {
	hi, lo := bits.Mul64(deficit, uint64(c.ivl))
	if c.refil == 1 {
		return sat(hi, lo)
	}
	if hi == 0 {
		q := c.refilDiv.div(lo)
		if q*uint64(c.refil) != lo {
			q++
		}
		return sat(0, q)
	}
	if hi >= uint64(c.refil) {
		return math.MaxInt64 // the quotient needs more than 64 bits
	}
	q, r := bits.Div64(hi, lo, uint64(c.refil))
	if r != 0 {
		q, carry := bits.Add64(q, 1, 0)
		return sat(carry, q)
	}
	return sat(0, q)
}

// sat returns the 128-bit value hi:lo, or MaxInt64 when it exceeds MaxInt64.
func sat(hi, lo uint64) int64 {
	if hi != 0 || lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(lo)
}
