package build

import "fmt"

// limConfig: lim_cfg returns its parameters with ok/err (LIM-2, LIM-3).
func limConfig() []Draft {
	ds := []Draft{
		limCase("cfg", "lim_cfg(1, 1, 1, 1): the least valid config has ok 1 and err lim_err_ok() = 0", on("LIM-3", "LIM-2", "LIM-4"), cfgOp(1, 1, 1, 1)),
		limCase("cfg", "lim_cfg(10, 1, 10, 5) returns its parameters unchanged with ok 1", on("LIM-3"), cfgOp(10, 1, 10, 5)),
		limCase("cfg", "lim_cfg with every parameter MaxInt64 is valid", on("LIM-3", "LIM-1", "VEC-6"), cfgOp(maxI, maxI, maxI, maxI)),
		limCase("cfg", "lim_cfg with every parameter MinInt64 has ok 0 and err 1: one code for any bad parameter", on("LIM-3", "LIM-2", "VEC-6"), cfgOp(minI, minI, minI, minI)),
		limCase("cfg", "lim_cfg with cap MinInt64 + 1 and the rest 1 has ok 0 and err 1", on("LIM-3"), cfgOp(minI+1, 1, 1, 1)),
	}
	names := []string{"cap", "refil", "ivl", "maxif"}
	for p, name := range names {
		for _, v := range []int64{0, -1} {
			args := []int64{1, 1, 1, 1}
			args[p] = v
			desc := fmt.Sprintf("lim_cfg with %s %d has ok 0 and err lim_err_param() = 1, the parameters unchanged", name, v)
			ds = append(ds, limCase("cfg", desc, on("LIM-3", "LIM-2"), cfgOp(args[0], args[1], args[2], args[3])))
		}
	}
	return ds
}

// limBucketNew: lim_bkt_new is born full at now; buckets hold exact values
// (LIM-5, LIM-6).
func limBucketNew() []Draft {
	return []Draft{
		limCase("bkt", "lim_bkt_new(10, 0) is full: tks 10, last 0", on("LIM-6"), bktNew(10, 0)),
		limCase("bkt", "lim_bkt_new(1, MinInt64) keeps the tick MinInt64", on("LIM-6", "LIM-5"), bktNew(1, minI)),
		limCase("bkt", "lim_bkt_new(MaxInt64, MaxInt64) holds both exactly", on("LIM-6", "LIM-5", "LIM-1"), bktNew(maxI, maxI)),
		limCase("bkt", "lim_bkt_new(0, -1) returns cap 0 unchanged: the function checks nothing", on("LIM-6"), bktNew(0, -1)),
		limCase("bkt", "a bucket {MaxInt64 - 1, MinInt64 + 1} is taken from exactly as given at now = last", on("LIM-5", "LIM-11"),
			take(bk(maxI-1, minI+1), lc(maxI, 1, maxI, 1), minI+1, 1)),
	}
}

// limContract: an out-of-contract take changes nothing and says so with
// ok 0, retry 0 (LIM-7; DEC-4, DEC-6, DEC-7).
func limContract() []Draft {
	c := lc(5, 1, 10, 1)
	return []Draft{
		limCase("take", "take with cost 0 is out of contract: ok 0, retry 0, bucket unchanged (DEC-4 inside)", on("LIM-7", "DEC-4", "PROP-4", "VEC-5"), take(bk(3, 0), c, 20, 0)).strict(),
		limCase("take", "take with cost 1 is in contract and passes after refill (DEC-4 outside)", on("LIM-11", "DEC-4", "VEC-5"), take(bk(3, 0), c, 20, 1)),
		limCase("take", "take with cost -1 is out of contract: bucket unchanged (DEC-4 inside)", on("LIM-7", "DEC-4"), take(bk(3, 0), c, 20, -1)).strict(),
		limCase("take", "take with cost MinInt64 is out of contract: bucket unchanged (DEC-4 inside)", on("LIM-7", "DEC-4", "LIM-1"), take(bk(3, 0), c, 20, minI)).strict(),
		limCase("take", "take with ivl 0 is out of contract: no refill, bucket unchanged (DEC-6 inside)", on("LIM-7", "LIM-4", "DEC-6"), take(bk(0, 0), lc(5, 1, 0, 1), 20, 1)).strict(),
		limCase("take", "take with cap 0 is out of contract (DEC-6 inside)", on("LIM-7", "LIM-4", "DEC-6"), take(bk(3, 0), lc(0, 1, 10, 1), 20, 1)).strict(),
		limCase("take", "take with refil 0 is out of contract (DEC-6 inside)", on("LIM-7", "LIM-4", "DEC-6"), take(bk(3, 0), lc(5, 0, 10, 1), 20, 1)).strict(),
		limCase("take", "take with maxif 0 is out of contract though take does not use maxif (DEC-6 inside)", on("LIM-7", "LIM-4", "DEC-6"), take(bk(3, 0), lc(5, 1, 10, 0), 20, 1)).strict(),
		limCase("take", "take with refil -1 and ivl MinInt64 is out of contract (DEC-6 inside)", on("LIM-7", "LIM-4", "DEC-6"), take(bk(3, 0), lc(5, -1, minI, 1), 20, 1)).strict(),
		limCase("take", "take with every config parameter 1 is in contract (DEC-6 outside)", on("LIM-4", "LIM-11", "DEC-6"), take(bk(0, 0), lc(1, 1, 1, 1), 1, 1)),
		limCase("take", "take from a bucket with tks -1 is out of contract: no refill (DEC-7 inside)", on("LIM-7", "DEC-7"), take(bk(-1, 0), c, 50, 1)).strict(),
		limCase("take", "take from a bucket with tks MinInt64 is out of contract however far the clock moved (DEC-7 inside)", on("LIM-7", "DEC-7", "LIM-1"), take(bk(minI, minI), c, maxI, 1)).strict(),
		limCase("take", "take from a bucket with tks 0 is in contract: a reject with retry >= 1 (DEC-7 outside)", on("LIM-12", "DEC-7", "PROP-4"), take(bk(0, 0), c, 0, 1)),
	}
}

// limStepBack: now < last refills nothing and keeps last (LIM-8; DEC-2).
func limStepBack() []Draft {
	c := lc(5, 1, 10, 1)
	return []Draft{
		limCase("take", "take at now = last - 1: the clock stepped back, no refill, last unchanged (DEC-2 inside)", on("LIM-8", "DEC-2", "PROP-2"), take(bk(0, 100), c, 99, 1)),
		limCase("take", "take at now = last: zero steps, last unchanged (DEC-2 outside)", on("LIM-9", "DEC-2"), take(bk(0, 100), c, 100, 1)),
		limCase("take", "a step back with tokens left passes and keeps last (DEC-2 inside)", on("LIM-8", "LIM-11", "DEC-2"), take(bk(2, 100), c, 0, 1)),
		limCase("take", "take at MinInt64 from last MaxInt64, the largest step back, mints nothing (DEC-2 inside)", on("LIM-8", "LIM-1", "DEC-2", "PROP-2"), take(bk(1, maxI), c, minI, 1)),
	}
}

// limSteps: refill happens in whole steps and keeps the remainder (LIM-9;
// DEC-3).
func limSteps() []Draft {
	return []Draft{
		limCase("take", "take at now - last = ivl - 1: no whole step, the remainder kept (DEC-3 inside)", on("LIM-9", "DEC-3"), take(bk(0, 0), lc(5, 1, 10, 1), 9, 1)),
		limCase("take", "take at now - last = ivl: one whole step refills refil (DEC-3 outside)", on("LIM-9", "DEC-3"), take(bk(0, 0), lc(5, 1, 10, 1), 10, 1)),
		limCase("take", "take at now - last = 2 * ivl + 3: last moves by two steps, not to now (DEC-3 inside)", on("LIM-9", "DEC-3", "PROP-3"), take(bk(0, 0), lc(5, 2, 10, 1), 23, 1)),
		limCase("take", "take at now - last = 3 * ivl: last moves to now (DEC-3 outside)", on("LIM-9", "DEC-3"), take(bk(0, 0), lc(5, 2, 10, 1), 30, 1)),
		limCase("take", "take with ivl 1 refills every tick from a negative last", on("LIM-9"), take(bk(0, -3), lc(5, 1, 1, 1), 0, 2)),
		limCase("take", "passing takes at two ticks leave the bucket of one take of both costs at the second (PROP-7)", on("LIM-9", "PROP-7"),
			take(bk(5, 0), lc(10, 1, 10, 1), 13, 2), take(bk(4, 10), lc(10, 1, 10, 1), 27, 3), take(bk(5, 0), lc(10, 1, 10, 1), 27, 5)),
	}
}

// limClamp: tokens never exceed cap, even with no step (LIM-10; DEC-8).
func limClamp() []Draft {
	c := lc(10, 5, 10, 1)
	return []Draft{
		limCase("take", "a bucket above cap with no step is clamped to cap before spending (DEC-8 inside)", on("LIM-10", "DEC-8"), take(bk(11, 0), c, 0, 1)),
		limCase("take", "a bucket at cap with no step spends from cap (DEC-8 outside)", on("LIM-10", "DEC-8"), take(bk(10, 0), c, 0, 1)),
		limCase("take", "a bucket holding MaxInt64 with cap 1 is clamped to 1 (DEC-8 inside)", on("LIM-10", "DEC-8", "LIM-1"), take(bk(maxI, 0), lc(1, 1, 10, 1), 5, 1)),
		limCase("take", "a refill past cap stops at cap", on("LIM-10", "PROP-1"), take(bk(8, 0), c, 10, 1)),
		limCase("take", "a refill that reaches cap exactly is kept whole", on("LIM-10"), take(bk(5, 0), c, 10, 1)),
		limCase("take", "a bucket above cap is clamped on a reject too: the clamped tokens are returned", on("LIM-10", "LIM-12"), take(bk(11, 0), c, 0, 12)),
	}
}

// limPass: a pass spends cost from the refilled tokens (LIM-11).
func limPass() []Draft {
	return []Draft{
		limCase("take", "take of cost 1 from 5 tokens passes leaving 4", on("LIM-11"), take(bk(5, 0), lc(10, 1, 10, 1), 3, 1)),
		limCase("take", "take of cost equal to the refilled tokens passes leaving 0", on("LIM-11"), take(bk(1, 0), lc(10, 2, 10, 1), 10, 3)),
		limCase("take", "take of cost MaxInt64 from a full bucket of cap MaxInt64 passes leaving 0", on("LIM-11", "LIM-1", "VEC-6"), take(bk(maxI, 0), lc(maxI, 1, 1, 1), 0, maxI)),
	}
}

// limReject: a reject reports the exact ceiling retry and keeps the refill
// (LIM-12; DEC-5, DEC-9).
func limReject() []Draft {
	return []Draft{
		limCase("take", "a reject one token short has retry ceil(1 * 10 / 3) = 4 (DEC-9 outside: not a multiple)", on("LIM-12", "DEC-9"), take(bk(0, 0), lc(5, 3, 10, 1), 0, 1)),
		limCase("take", "the retry of an exact multiple is not rounded up: ceil(1 * 10 / 5) = 2, not trunc + 1 = 3 (DEC-9 inside)", on("LIM-12", "DEC-9"), take(bk(0, 0), lc(5, 5, 10, 1), 0, 1)),
		limCase("take", "a reject keeps the refill: tks and last after two steps, retry from the refilled tokens", on("LIM-12", "LIM-9"), take(bk(0, 0), lc(5, 1, 10, 1), 25, 5)),
		limCase("take", "cost = cap + 1 rejects from a full bucket with a finite retry (DEC-5 inside)", on("LIM-12", "DEC-5", "FIND-4"), take(bk(2, 0), lc(2, 1, 10, 1), 0, 3)),
		limCase("take", "cost = cap passes from a full bucket (DEC-5 outside)", on("LIM-11", "DEC-5"), take(bk(2, 0), lc(2, 1, 10, 1), 0, 2)),
		limCase("take", "cost MaxInt64 from an empty bucket of cap 1 rejects with an exact retry", on("LIM-12", "LIM-1", "DEC-5"), take(bk(0, 0), lc(1, 1, 1, 1), 0, maxI)).withSide("DEC-5 inside"),
	}
}

// limOverflow: every intermediate is exact; the retry saturates
// (LIM-1, LIM-13; DEC-1).
func limOverflow() []Draft {
	return []Draft{
		limCase("take", "a retry of exactly MaxInt64 is reported as is (DEC-1 outside)", on("LIM-13", "LIM-12", "DEC-1"), take(bk(0, 0), lc(maxI, 1, 1, 1), 0, maxI)),
		limCase("take", "a retry above MaxInt64 saturates at MaxInt64 (DEC-1 inside)", on("LIM-13", "LIM-1", "DEC-1"), take(bk(0, 0), lc(maxI, 1, 2, 1), 0, maxI)),
		limCase("take", "(cost - tks') * ivl overflows int64 but the retry fits: ceil(3 * MaxInt64 / 4) (DEC-1 inside)", on("LIM-1", "LIM-12", "DEC-1"), take(bk(0, 0), lc(maxI, 4, 3, 1), 0, maxI)),
		limCase("take", "now - last overflows int64: from last MinInt64 to now MaxInt64 is two steps of MaxInt64 (DEC-1 inside)", on("LIM-1", "LIM-9", "DEC-1", "DEC-28"), take(bk(0, minI), lc(5, 1, maxI, 1), maxI, 1)).withSide("DEC-28 inside"),
		limCase("take", "steps * refil overflows int64 and still clamps to cap (DEC-1 inside)", on("LIM-1", "LIM-10", "DEC-1"), take(bk(0, minI), lc(10, maxI, 1, 1), maxI, 1)),
		limCase("take", "steps * ivl reaches MaxInt64 exactly: last moves to MaxInt64 (DEC-1 outside)", on("LIM-1", "LIM-9", "DEC-1"), take(bk(0, 0), lc(1, 1, 1, 1), maxI, 1)),
		limCase("take", "a take at tick 0 from last 0 uses neither domain end (DEC-28 outside)", on("LIM-9", "DEC-28"), take(bk(1, 0), lc(1, 1, 1, 1), 0, 1)),
		limCase("take", "a retry past 2^53 is exact: ceil((2^53 + 1) / 4) = 2^51 + 1, which float64 arithmetic rounds to 2^51 (DEC-9 inside)", on("LIM-1", "LIM-12", "DEC-9"), take(bk(0, 0), lc(1, 4, 1<<53+1, 1), 0, 1)),
	}
}

// withSide appends a decision side to d's description.
func (d Draft) withSide(side string) Draft {
	d.Description += " (" + side + ")"
	return d
}
