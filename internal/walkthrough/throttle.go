package walkthrough

import (
	"fmt"
	"math"

	"github.com/limcheck/limcheck/model/throttle"
)

// throttleRun records calls on one model throttle over an exact store.
type throttleRun struct {
	recorder
	t *throttle.Throttle
}

// newThrottle builds a throttle from a valid config; the examples' configs are fixed.
func newThrottle(threshold, window, ban uint64) *throttleRun {
	cfg := throttle.Config{Threshold: threshold, WindowSecs: window, BanSecs: ban}
	t, err := throttle.New(throttle.NewMemStore(), cfg)
	if err != nil {
		panic(fmt.Sprintf("walkthrough: example config: %v", err)) // a bug in this package
	}
	return &throttleRun{t: t}
}

func (r *throttleRun) fail(key string, now uint64, want string) {
	d, err := r.t.RecordFailure(key, now)
	r.step(fmt.Sprintf("record_failure(%q, %d)", key, now), result(d, err), want)
}

func (r *throttleRun) check(key string, now uint64, want string) {
	r.step(fmt.Sprintf("check(%q, %d)", key, now), r.t.Check(key, now), want)
}

func (r *throttleRun) success(key string, want string) {
	r.step(fmt.Sprintf("record_success(%q)", key), result(nil, r.t.RecordSuccess(key)), want)
}

func (r *throttleRun) purge(now uint64, want string) {
	n, err := r.t.PurgeExpired(now)
	r.step(fmt.Sprintf("purge_expired(%d)", now), result(n, err), want)
}

// result formats a value, or the error when there is one.
func result(v any, err error) any {
	if err != nil {
		return "error: " + err.Error()
	}
	return v
}

func find5() Example {
	r := newThrottle(3, 100, 10)
	r.fail("ip:x", 0, "{Verdict:allow Remaining:2 Until:0}")
	r.fail("ip:x", 1, "{Verdict:allow Remaining:1 Until:0}")
	r.fail("ip:x", 2, "{Verdict:banned Remaining:0 Until:12}")
	r.check("ip:x", 12, "{Verdict:allow Remaining:0 Until:0}")
	r.fail("ip:x", 12, "{Verdict:banned Remaining:0 Until:22}")
	r.check("ip:x", 103, "{Verdict:allow Remaining:2 Until:0}")
	return Example{ID: "FIND-5", Title: "counts survive a ban: one failure re-bans after it expires", Steps: r.steps}
}

func find6() Example {
	r := newThrottle(2, 100, 50)
	r.fail("acct:x", 0, "{Verdict:allow Remaining:1 Until:0}")
	r.fail("acct:x", 1, "{Verdict:banned Remaining:0 Until:51}")
	r.success("acct:x", "<nil>")
	r.fail("acct:x", 2, "{Verdict:allow Remaining:1 Until:0}")
	r.check("acct:x", 2, "{Verdict:banned Remaining:0 Until:51}")
	return Example{ID: "FIND-6", Title: "record_failure can return allow while a ban is in force", Steps: r.steps}
}

func find7() Example {
	r := newThrottle(1, 900, 900)
	r.fail("ip:x", math.MaxUint64-5, fmt.Sprintf("{Verdict:banned Remaining:0 Until:%d}", uint64(math.MaxUint64)))
	r.check("ip:x", math.MaxUint64, "{Verdict:allow Remaining:0 Until:0}")
	return Example{ID: "FIND-7", Title: "a saturated ban ends one second early", Steps: r.steps}
}

func find8() Example {
	r := newThrottle(2, 10, 900)
	r.fail("ip:x", 1000, "{Verdict:allow Remaining:1 Until:0}")
	r.check("ip:x", 0, "{Verdict:allow Remaining:1 Until:0}")
	r.check("ip:x", 1009, "{Verdict:allow Remaining:1 Until:0}")
	r.check("ip:x", 1010, "{Verdict:allow Remaining:2 Until:0}")
	return Example{ID: "FIND-8", Title: "a clock step back stretches a failure's life", Steps: r.steps}
}

func find10() Example {
	r := newThrottle(2, 10, 900)
	r.fail("ip:x", 0, "{Verdict:allow Remaining:1 Until:0}")
	r.purge(100, "1")
	r.check("ip:x", 5, "{Verdict:allow Remaining:2 Until:0}")
	return Example{ID: "FIND-10", Title: "purge_expired is neutral only for later times", Steps: r.steps}
}
