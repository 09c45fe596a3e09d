package walkthrough

import (
	"fmt"
	"math"

	"github.com/limcheck/limcheck/model/lim"
)

// The findings added when the review of spec 1.2.0 was settled
// (FIND-20..FIND-26).
func reviewFindings() []Example {
	return []Example{find20(), find21(), find22(), find23(), find24(), find25(), find26()}
}

func find20() Example {
	r := newThrottle(1, 900, 900)
	r.fail("ip:x", math.MaxUint64, fmt.Sprintf("{Verdict:banned Remaining:0 Until:%d}", uint64(math.MaxUint64)))
	r.check("ip:x", math.MaxUint64, "{Verdict:allow Remaining:0 Until:0}")
	return Example{ID: "FIND-20", Title: "at the last second the ban record_failure reports is not in force", Steps: r.steps}
}

func find21() Example {
	var r recorder
	c := lim.NewConfig(60, 60, 60, 100)
	b := r.take(lim.MakeBucket(0, 0), c, 0, 1, "{OK:0 Retry:1 Tks:0 Last:0}")
	b = r.take(b.Bucket(), c, 1, 1, "{OK:0 Retry:1 Tks:0 Last:0}")
	b = r.take(b.Bucket(), c, 59, 1, "{OK:0 Retry:1 Tks:0 Last:0}")
	r.take(b.Bucket(), c, 60, 1, "{OK:1 Retry:0 Tks:59 Last:60}")
	return Example{ID: "FIND-21", Title: "at a 1 s tick and a 60-tick step, Retry-After 1 s against a true wait of 60 s", Steps: r.steps}
}

func find22() Example {
	var r recorder
	c := lim.NewConfig(10, 10, 10, 1)
	const ahead = 1_000_000_000_000
	b := r.take(lim.MakeBucket(0, ahead), c, 1_000_000_000, 1, "{OK:0 Retry:1 Tks:0 Last:1000000000000}")
	b = r.take(b.Bucket(), c, ahead+9, 1, "{OK:0 Retry:1 Tks:0 Last:1000000000000}")
	r.take(b.Bucket(), c, ahead+10, 1, "{OK:1 Retry:0 Tks:9 Last:1000000000010}")
	return Example{ID: "FIND-22", Title: "a forward clock glitch freezes a bucket while its retry says 1", Steps: r.steps}
}

func find23() Example {
	r := newThrottle(2, 900, 900)
	r.fail("acct:x", 0, "{Verdict:allow Remaining:1 Until:0}")
	r.fail("acct:x", 1, "{Verdict:banned Remaining:0 Until:901}")
	r.fail("acct:x", 500, "{Verdict:banned Remaining:0 Until:1400}")
	r.check("acct:x", 1399, "{Verdict:banned Remaining:0 Until:1400}")
	return Example{ID: "FIND-23", Title: "every failure at or over the threshold during a ban extends it", Steps: r.steps}
}

func find24() Example {
	r := newThrottle(3, 100, 10)
	r.fail("ip:x", 0, "{Verdict:allow Remaining:2 Until:0}")
	r.fail("ip:x", 1, "{Verdict:allow Remaining:1 Until:0}")
	r.fail("ip:x", 2, "{Verdict:banned Remaining:0 Until:12}")
	r.check("ip:x", 12, "{Verdict:allow Remaining:0 Until:0}")
	r.check("ip:x", 99, "{Verdict:allow Remaining:0 Until:0}")
	r.check("ip:x", 100, "{Verdict:allow Remaining:1 Until:0}")
	return Example{ID: "FIND-24", Title: "a caller that rejects on allow{0} locks out for the window, not the ban", Steps: r.steps}
}

func find25() Example {
	var r recorder
	r.key("\x0eL@so", "4294967290")
	r.step("(4294967291 - 1) * 131 + 255 > 2^39", int64(4294967290)*131+255 > 1<<39, "true")
	r.key("\x0eL@so\xff", "124")
	return Example{ID: "FIND-25", Title: "seed 000's bound h < 2^39 is wrong (and harmless)", Steps: r.steps}
}

func find26() Example {
	var r recorder
	r.take(lim.MakeBucket(1, 0), lim.NewConfig(1, 1, 1, 0), 0, 1, "{OK:0 Retry:0 Tks:1 Last:0}")
	r.take(lim.MakeBucket(1, 0), lim.NewConfig(1, 1, 1, 1), 0, 1, "{OK:1 Retry:0 Tks:0 Last:0}")
	return Example{ID: "FIND-26", Title: "a take with maxif 0 is out of contract though it never reads maxif", Steps: r.steps}
}
