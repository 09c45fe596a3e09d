package lim

import (
	"math"
	"math/big"
)

// TakeResult is the seed's LimTake: the decision of [Take] and the bucket after
// it. Its fields are the seed's getters lt_ok, lt_retry, lt_tks and lt_last.
type TakeResult struct {
	OK    int64 `json:"ok"`    // 1 pass, 0 reject
	Retry int64 `json:"retry"` // ticks to wait on a reject (>= 1); 0 on a pass or out of contract
	Tks   int64 `json:"tks"`   // the bucket's tokens after the take
	Last  int64 `json:"last"`  // the bucket's last refill step after the take
}

// Bucket returns the bucket the result carries, for the next take.
func (r TakeResult) Bucket() Bucket { return Bucket{Tks: r.Tks, Last: r.Last} }

// Take is the seed's lim_take(b, c, now, cost): refill b by whole steps up to
// now, then spend cost tokens if there are enough. Refill happens on both
// outcomes. Take is total: out-of-contract input gets the defined result
// {ok 0, retry 0, b unchanged}, never a panic.
func Take(b Bucket, c Config, now, cost int64) TakeResult {
	// spec LIM-7: "Out of contract (invalid config, cost < 1 or tks < 0): {ok 0, retry 0, tks, last} unchanged."
	if !c.Valid() || cost < 1 || b.Tks < 0 {
		return TakeResult{OK: 0, Retry: 0, Tks: b.Tks, Last: b.Last}
	}
	tks, last := refill(b, c, now)
	// spec LIM-11: "If tks' >= cost: {ok 1, retry 0, tks' - cost, last'}."
	if tks >= cost {
		return TakeResult{OK: 1, Retry: 0, Tks: tks - cost, Last: last}
	}
	// spec LIM-12: "If tks' < cost: {ok 0, retry, tks', last'}; cost > cap is an ordinary reject."
	return TakeResult{OK: 0, Retry: retry(cost-tks, c), Tks: tks, Last: last}
}

// refill returns tks' and last' of b at now, computed exactly.
func refill(b Bucket, c Config, now int64) (tks, last int64) {
	// spec LIM-8: "If now < last: no step is taken and last' = last."
	steps := big.NewInt(0)
	if now >= b.Last {
		// spec LIM-9: "If now >= last: steps = floor((now - last) / ivl), last' = last + steps*ivl."
		steps.Quo(sub(now, b.Last), big.NewInt(c.Ivl))
	}
	lastBig := add(big.NewInt(b.Last), mul(steps, c.Ivl))
	// spec LIM-10: "tks' = min(cap, tks + steps*refil)."
	tksBig := add(big.NewInt(b.Tks), mul(steps, c.Refil))
	if tksBig.Cmp(big.NewInt(c.Cap)) > 0 {
		tksBig.SetInt64(c.Cap)
	}
	return tksBig.Int64(), lastBig.Int64()
}

// retry is ceil(deficit * ivl / refil), exact, saturated at MaxInt64.
func retry(deficit int64, c Config) int64 {
	num := mul(big.NewInt(deficit), c.Ivl)
	den := big.NewInt(c.Refil)
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	// spec LIM-13: "A retry greater than MaxInt64 is reported as MaxInt64."
	return saturate(q)
}

// saturate returns x, or MaxInt64 when x does not fit in an int64 (x >= 0 here).
func saturate(x *big.Int) int64 {
	if !x.IsInt64() {
		return math.MaxInt64
	}
	return x.Int64()
}

func sub(a, b int64) *big.Int { return new(big.Int).Sub(big.NewInt(a), big.NewInt(b)) }

func add(a, b *big.Int) *big.Int { return new(big.Int).Add(a, b) }

func mul(a *big.Int, b int64) *big.Int { return new(big.Int).Mul(a, big.NewInt(b)) }
