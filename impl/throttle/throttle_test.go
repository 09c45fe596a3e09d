package throttle_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/limcheck/limcheck/impl/throttle"
)

// Named instants: tN is second 100+N.
const (
	t0  uint64 = 100
	t1  uint64 = 101
	t2  uint64 = 102
	t3  uint64 = 103
	t4  uint64 = 104
	t5  uint64 = 105
	t6  uint64 = 106
	t9  uint64 = 109
	t10 uint64 = 110
	t11 uint64 = 111
	t20 uint64 = 120
)

func sec(n uint64) uint64 { return n }

func maxMinus(n uint64) uint64 { return maxU - n }

// mustMem returns a MemStore keeping k stamps per key, panicking on error.
func mustMem(k uint64) *throttle.MemStore {
	s, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: k})
	if err != nil {
		panic(err)
	}
	return s
}

func TestConfigValidate(t *testing.T) {
	for _, r := range []struct {
		clause, reason string
		cfg            throttle.Config
		valid          bool
	}{
		{"THR-1", "all three at 1 is the least valid config", cfg(1, 1, 1), true},
		{"THR-1", "all three at MaxUint64 is valid", cfg(maxU, maxU, maxU), true},
		{"THR-1", "threshold 0 bans on nothing", cfg(0, 900, 900), false},
		{"THR-1", "window_secs 0 counts nothing", cfg(5, 0, 900), false},
		{"THR-1", "ban_secs 0 bans for no time", cfg(5, 900, 0), false},
		{"THR-1", "the zero config is invalid", cfg(0, 0, 0), false},
		{"THR-1", "threshold 0 is invalid whatever the others", cfg(0, maxU, maxU), false},
	} {
		requireRow(t, r.clause, r.reason)
		err := r.cfg.Validate()
		if r.valid && err != nil || !r.valid && !errors.Is(err, throttle.ErrConfig) {
			t.Errorf("%s (%s): %+v.Validate() = %v, want valid %v", r.clause, r.reason, r.cfg, err, r.valid)
		}
	}
}

func TestNew(t *testing.T) {
	mem := mustMem(5)
	for _, r := range []struct {
		clause, reason string
		store          throttle.Store
		cfg            throttle.Config
		valid          bool
	}{
		{"THR-6", "a valid config over a store builds", mem, cfg(1, 1, 1), true},
		{"THR-6", "threshold 0 is a config error", mem, cfg(0, 900, 900), false},
		{"THR-6", "window_secs 0 is a config error", mem, cfg(5, 0, 900), false},
		{"THR-6", "ban_secs 0 is a config error", mem, cfg(5, 900, 0), false},
		{"THR-6", "every field 0 is a config error", mem, throttle.Config{}, false},
		{"THR-6", "a missing store is a config error", nil, throttle.DefaultConfig(), false},
		{"THR-6", "a missing store and a bad config is a config error", nil, throttle.Config{}, false},
		{"THR-6", "a nil *MemStore is a missing store", (*throttle.MemStore)(nil), cfg(1, 1, 1), false},
		{"THR-6", "a nil *FaultStore is a missing store", (*throttle.FaultStore)(nil), cfg(1, 1, 1), false},
		{"PROP-17", "a MemStore keeping k = threshold stamps builds", mem, cfg(5, 900, 900), true},
		{"PROP-17", "a MemStore keeping fewer stamps than the threshold would undercount", mem, cfg(6, 900, 900), false},
		{"PROP-17", "the k check sees through a FaultStore", throttle.NewFaultStore(mem), cfg(6, 900, 900), false},
		{"PROP-17", "a FaultStore over a store keeping every stamp takes any threshold", throttle.NewFaultStore(newRef()), cfg(maxU, 1, 1), true},
	} {
		requireRow(t, r.clause, r.reason)
		th, err := throttle.New(r.store, r.cfg)
		switch {
		case r.valid && (err != nil || th == nil):
			t.Errorf("%s (%s): New(%v, %+v) = %v, %v, want a throttle", r.clause, r.reason, r.store, r.cfg, th, err)
		case r.valid && th.Config() != r.cfg:
			t.Errorf("%s (%s): New(...).Config() = %+v, want %+v", r.clause, r.reason, th.Config(), r.cfg)
		case !r.valid && (th != nil || !errors.Is(err, throttle.ErrConfig)):
			t.Errorf("%s (%s): New(%v, %+v) = %v, %v, want nil and ErrConfig", r.clause, r.reason, r.store, r.cfg, th, err)
		}
	}
}

func TestDefaultConfig(t *testing.T) {
	def := throttle.DefaultConfig()
	for _, r := range []struct {
		clause, reason string
		got, want      any
	}{
		{"THR-2", "DefaultConfig is threshold 5, window 900, ban 900", def, cfg(5, 900, 900)},
		{"THR-2", "the named defaults agree", []uint64{throttle.DefaultThreshold, throttle.DefaultWindowSecs, throttle.DefaultBanSecs}, []uint64{5, 900, 900}},
		{"THR-2", "the default config is valid", def.Validate() == nil, true},
	} {
		requireRow(t, r.clause, r.reason)
		if diff := cmp.Diff(r.want, r.got); diff != "" {
			t.Errorf("%s (%s): (-want +got):\n%s", r.clause, r.reason, diff)
		}
	}
}

// TestTimeArithmetic covers the exported clock helpers that THR-3..THR-5
// define.
func TestTimeArithmetic(t *testing.T) {
	for _, r := range []struct {
		clause, reason string
		call           string
		got, want      any
	}{
		{"THR-3", "exact sum below MaxUint64", "BanUntil(100, 900)", throttle.BanUntil(100, 900), uint64(1000)},
		{"THR-3", "sum exactly MaxUint64", "BanUntil(max-900, 900)", throttle.BanUntil(maxU-900, 900), maxU},
		{"THR-3", "sum one past MaxUint64 saturates", "BanUntil(max-899, 900)", throttle.BanUntil(maxU-899, 900), maxU},
		{"THR-3", "both at MaxUint64 saturates", "BanUntil(max, max)", throttle.BanUntil(maxU, maxU), maxU},
		{"THR-3", "MaxUint64 from 0", "BanUntil(0, max)", throttle.BanUntil(0, maxU), maxU},
		{"THR-4", "t+window-1 == now counts", "InWindow(100, 5, 104)", throttle.InWindow(100, 5, 104), true},
		{"THR-4", "t+window == now does not count", "InWindow(100, 5, 105)", throttle.InWindow(100, 5, 105), false},
		{"THR-4", "a stamp after now counts", "InWindow(105, 5, 0)", throttle.InWindow(105, 5, 0), true},
		{"THR-4", "t+window overflows and still counts at max", "InWindow(100, max, max)", throttle.InWindow(100, maxU, maxU), true},
		{"THR-4", "0+max == max does not count at max", "InWindow(0, max, max)", throttle.InWindow(0, maxU, maxU), false},
		{"THR-4", "a stamp at max with window 1 counts at max", "InWindow(max, 1, max)", throttle.InWindow(maxU, 1, maxU), true},
		{"THR-5", "until-1 is banned", "IsBanned(105, 104)", throttle.IsBanned(105, 104), true},
		{"THR-5", "until itself is not banned", "IsBanned(105, 105)", throttle.IsBanned(105, 105), false},
		{"THR-5", "ban-until 0 never bans, even at 0", "IsBanned(0, 0)", throttle.IsBanned(0, 0), false},
		{"THR-5", "a saturated ban ends at max", "IsBanned(max, max)", throttle.IsBanned(maxU, maxU), false},
	} {
		requireRow(t, r.clause, r.reason)
		if diff := cmp.Diff(r.want, r.got); diff != "" {
			t.Errorf("%s (%s): %s = %v, want %v", r.clause, r.reason, r.call, r.got, r.want)
		}
	}
}

// TestThrottleTime covers the defaults and the ban arithmetic (THR-2,
// THR-3).
func TestThrottleTime(t *testing.T) {
	runSeqs(t, []seq{
		// THR-2
		{"THR-2", "with the defaults the 5th failure bans for 900 s", throttle.DefaultConfig(), []step{
			failure(kIP, t0, allow(4)), failure(kIP, t1, allow(3)), failure(kIP, t2, allow(2)),
			failure(kIP, t3, allow(1)), failure(kIP, t4, banned(t4+900)),
		}},

		// THR-3
		{"THR-3", "now+ban_secs past MaxUint64 saturates", cfg(1, 10, 10), []step{
			failure(kIP, maxMinus(5), banned(maxU)), check(kIP, maxMinus(1), banned(maxU)),
		}},
		{"THR-3", "now+ban_secs exactly MaxUint64 is not clipped", cfg(1, 10, 10), []step{
			failure(kIP, maxMinus(10), banned(maxU)),
		}},
		{"THR-3", "now+ban_secs one below MaxUint64 is exact", cfg(1, 10, 10), []step{
			failure(kIP, maxMinus(11), banned(maxU-1)), check(kIP, maxMinus(2), banned(maxU-1)), check(kIP, maxMinus(1), allow(1)),
		}},
		{"THR-3", "ban_secs MaxUint64 saturates from any now >= 1", cfg(1, 10, maxU), []step{
			failure(kIP, t0, banned(maxU)),
		}},
		{"THR-3", "ban_secs MaxUint64 from now 0 is exactly MaxUint64", cfg(1, 10, maxU), []step{
			failure(kIP, sec(0), banned(maxU)),
		}},
		{"THR-3", "a failure at max bans until max, which is already over", cfg(1, 10, 1), []step{
			failure(kIP, maxMinus(0), banned(maxU)), check(kIP, maxMinus(0), allow(0)),
		}},
	})
}

// TestThrottleWindow covers the window and the ban boundaries (THR-4,
// THR-5).
func TestThrottleWindow(t *testing.T) {
	runSeqs(t, []seq{
		// THR-4
		{"THR-4", "stamp t0, window 5: counted at t4 (t+window-1), not at t5 (t+window == now)", cfg(10, 5, 100), []step{
			failure(kIP, t0, allow(9)), check(kIP, t4, allow(9)), check(kIP, t5, allow(10)),
		}},
		{"THR-4", "a stamp after now (clock stepped back) counts, down to 0", cfg(10, 5, 100), []step{
			failure(kIP, t5, allow(9)), check(kIP, t0, allow(9)), check(kIP, sec(0), allow(9)),
			check(kIP, t9, allow(9)), check(kIP, t10, allow(10)),
		}},
		{"THR-4", "add_failure counts with the window: t0 is out at t5, t5 is in at t9", cfg(2, 5, 100), []step{
			failure(kIP, t0, allow(1)), failure(kIP, t5, allow(1)), failure(kIP, t9, banned(t9+100)),
		}},
		{"THR-4", "window MaxUint64: t+window overflows, the exact sum still counts at max", cfg(10, maxU, 1), []step{
			failure(kIP, t0, allow(9)), check(kIP, maxMinus(0), allow(9)),
		}},
		{"THR-4", "window MaxUint64, stamp 0: counted at max-1, not at max", cfg(10, maxU, 1), []step{
			failure(kIP, sec(0), allow(9)), check(kIP, maxMinus(1), allow(9)), check(kIP, maxMinus(0), allow(10)),
		}},
		{"THR-4", "window MaxUint64-1, stamp 1: counted at max-1, not at max", cfg(10, maxU-1, 1), []step{
			failure(kIP, sec(1), allow(9)), check(kIP, maxMinus(1), allow(9)), check(kIP, maxMinus(0), allow(10)),
		}},
		{"THR-4", "a stamp at max counts at max and at 0", cfg(10, 1, 1), []step{
			failure(kIP, maxMinus(0), allow(9)), check(kIP, maxMinus(0), allow(9)), check(kIP, sec(0), allow(9)),
		}},

		// THR-5
		{"THR-5", "banned at until-1, not at until (the stamp still counts)", cfg(1, 100, 5), []step{
			check(kIP, t0, allow(1)), failure(kIP, t0, banned(t5)),
			check(kIP, t4, banned(t5)), check(kIP, t5, allow(0)),
		}},
		{"THR-5", "ban-until 0 never bans, even at now 0", cfg(1, 100, 5), []step{
			check(kIP, sec(0), allow(1)),
		}},
		{"THR-5", "after a step back now < until still bans", cfg(1, 100, 5), []step{
			failure(kIP, t0, banned(t5)), check(kIP, sec(0), banned(t5)),
		}},
	})
}

// TestThrottleCheck covers check (THR-7, THR-8).
func TestThrottleCheck(t *testing.T) {
	runSeqs(t, []seq{
		// THR-7
		{"THR-7", "a ban_until fault gives unavailable", cfg(3, 100, 50), []step{
			setFaults(fault(throttle.OpBanUntil)), check(kIP, t0, unavailable),
		}},
		{"THR-7", "a ban_until fault gives unavailable, never banned, on a banned key", cfg(1, 100, 50), []step{
			failure(kIP, t0, banned(t0+50)), setFaults(fault(throttle.OpBanUntil, kIP)),
			check(kIP, t1, unavailable), setFaults(), check(kIP, t1, banned(t0+50)),
		}},
		{"THR-7", "the ban is read first: a count fault is not seen while banned", cfg(1, 100, 50), []step{
			failure(kIP, t0, banned(t0+50)), setFaults(fault(throttle.OpCount)),
			check(kIP, t1, banned(t0+50)), check(kIP, sec(t0+50), unavailable),
		}},

		// THR-8
		{"THR-8", "a count fault with no ban gives unavailable", cfg(3, 100, 50), []step{
			failure(kIP, t0, allow(2)), setFaults(fault(throttle.OpCount, kIP)),
			check(kIP, t1, unavailable), setFaults(), check(kIP, t1, allow(2)),
		}},
		{"THR-8", "remaining is threshold minus count", cfg(3, 100, 50), []step{
			check(kIP, t0, allow(3)), failure(kIP, t0, allow(2)), check(kIP, t0, allow(2)),
			failure(kIP, t1, allow(1)), check(kIP, t1, allow(1)),
		}},
		{"THR-8", "a count at the threshold with no ban (ban write failed) is allow{0}", cfg(2, 100, 50), []step{
			failure(kIP, t0, allow(1)), setFaults(fault(throttle.OpBan)), failureErr(kIP, t1, throttle.OpBan),
			setFaults(), check(kIP, t1, allow(0)),
		}},
		{"THR-8", "a count over the threshold is clamped: allow{0}", cfg(2, 100, 50), []step{
			setFaults(fault(throttle.OpBan)), failure(kIP, t0, allow(1)), failureErr(kIP, t1, throttle.OpBan),
			failureErr(kIP, t2, throttle.OpBan), setFaults(), check(kIP, t2, allow(0)),
		}},
		{"THR-8", "once the ban ends the surviving count is read: allow{0}", cfg(2, 100, 5), []step{
			failure(kIP, t0, allow(1)), failure(kIP, t1, banned(t6)), check(kIP, t6, allow(0)),
		}},
	})
}

// TestThrottleCheckAny covers check_any (THR-9, THR-10).
func TestThrottleCheckAny(t *testing.T) {
	runSeqs(t, []seq{
		// THR-9
		{"THR-9", "check_any of no keys is allow{0}, not the full quota", cfg(5, 100, 50), []step{
			checkAny(t0, allow(0)),
		}},
		{"THR-9", "check_any of an empty (non-nil) list is allow{0}", cfg(5, 100, 50), []step{
			step{op: opCheckAny, keys: []string{}, at: t0, want: allow(0)},
		}},
		{"THR-9", "check_any of no keys reads no store: allow{0} under every fault", cfg(5, 100, 50), []step{
			setFaults(fault(throttle.OpBanUntil), fault(throttle.OpCount)), checkAny(t0, allow(0)),
		}},

		// THR-10
		{"THR-10", "of one key it is check: allow, banned, unavailable", cfg(2, 100, 50), []step{
			checkAny(t0, allow(2), kIP), failure(kIP, t0, allow(1)), checkAny(t0, allow(1), kIP),
			failure(kIP, t1, banned(t1+50)), checkAny(t1, banned(t1+50), kIP),
			setFaults(fault(throttle.OpBanUntil)), checkAny(t1, unavailable, kIP),
		}},
		{"THR-10", "mixed with key-scoped faults: banned beats unavailable beats allow, in any order", cfg(1, 100, 50), []step{
			failure(kIP, t0, banned(t0+50)), setFaults(fault(throttle.OpBanUntil, kBad)),
			checkAny(t1, banned(t0+50), kIP, kBad, kAcct), checkAny(t1, banned(t0+50), kAcct, kBad, kIP),
			checkAny(t1, unavailable, kBad, kAcct), checkAny(t1, unavailable, kAcct, kBad),
			checkAny(t1, allow(1), kAcct, kEmpty),
		}},
		{"THR-10", "a count fault on one key gives unavailable; a banned key still wins", cfg(1, 100, 50), []step{
			failure(kIP, t0, banned(t0+50)), setFaults(fault(throttle.OpCount, kAcct, kIP)),
			checkAny(t1, unavailable, kEmpty, kAcct), checkAny(t1, banned(t0+50), kAcct, kIP),
		}},
		{"THR-10", "two bans: the latest until wins, in either order", cfg(1, 100, 50), []step{
			failure(kIP, t10, banned(t10+50)), failure(kAcct, t0, banned(t0+50)),
			checkAny(t11, banned(t10+50), kIP, kAcct), checkAny(t11, banned(t10+50), kAcct, kIP),
		}},
		{"THR-10", "all allow: the least remaining wins", cfg(5, 100, 50), []step{
			failure(kIP, t0, allow(4)), failure(kAcct, t0, allow(4)), failure(kAcct, t1, allow(3)),
			checkAny(t1, allow(3), kIP, kAcct), checkAny(t1, allow(3), kAcct, kIP), checkAny(t1, allow(3), kEmpty, kAcct, kIP),
		}},
		{"THR-10", "duplicates: counts are never merged (2+2 failures of threshold 3 do not ban)", cfg(3, 100, 50), []step{
			failure(kIP, t0, allow(2)), failure(kIP, t1, allow(1)),
			checkAny(t1, allow(1), kIP, kIP), checkAny(t1, allow(1), kIP, kIP, kIP),
		}},
	})
}

// TestThrottleRecord covers record_failure (THR-11..THR-13).
func TestThrottleRecord(t *testing.T) {
	runSeqs(t, []seq{
		// THR-11
		{"THR-11", "an add_failure fault is the call's error and records nothing", cfg(1, 100, 50), []step{
			setFaults(fault(throttle.OpAddFailure)), failureErr(kIP, t0, throttle.OpAddFailure),
			setFaults(), check(kIP, t0, allow(1)),
		}},
		{"THR-11", "a key-scoped add_failure fault hits only its key", cfg(2, 100, 50), []step{
			setFaults(fault(throttle.OpAddFailure, kAcct)), failureErr(kAcct, t0, throttle.OpAddFailure),
			failure(kIP, t0, allow(1)), setFaults(), check(kAcct, t0, allow(2)), check(kIP, t0, allow(1)),
		}},

		// THR-12
		{"THR-12", "a count below the threshold gives allow{threshold - count}", cfg(3, 100, 50), []step{
			failure(kIP, t0, allow(2)), failure(kIP, t1, allow(1)),
		}},
		{"THR-12", "a count below the threshold gives allow while a ban is in force", cfg(2, 100, 50), []step{
			failure(kIP, t0, allow(1)), failure(kIP, t1, banned(t1+50)), success(kIP),
			failure(kIP, t2, allow(1)), check(kIP, t2, banned(t1+50)),
		}},

		// THR-13
		{"THR-13", "the threshold-th failure bans", cfg(3, 100, 50), []step{
			failure(kIP, t0, allow(2)), failure(kIP, t1, allow(1)), failure(kIP, t2, banned(t2+50)),
			check(kIP, t2, banned(t2+50)),
		}},
		{"THR-13", "threshold 1 bans on the first failure", cfg(1, 100, 50), []step{
			check(kIP, t0, allow(1)), failure(kIP, t0, banned(t0+50)),
		}},
		{"THR-13", "a failure while banned writes the ban again and extends it", cfg(2, 100, 50), []step{
			failure(kIP, t0, allow(1)), failure(kIP, t1, banned(t1+50)), failure(kIP, t2, banned(t2+50)),
		}},
		{"THR-13", "a ban is never shortened: a failure after a step back reports the later until", cfg(2, 100, 50), []step{
			failure(kIP, t9, allow(1)), failure(kIP, t10, banned(t10+50)),
			failure(kIP, t0, banned(t10+50)), check(kIP, t0, banned(t10+50)),
		}},
		{"THR-13", "a ban fault after add_failure: the error is returned, the failure stays counted", cfg(1, 100, 50), []step{
			setFaults(fault(throttle.OpBan)), failureErr(kIP, t0, throttle.OpBan), setFaults(),
			check(kIP, t0, allow(0)), failure(kIP, t1, banned(t1+50)),
		}},
		{"THR-13", "a key-scoped ban fault hits only its key", cfg(1, 100, 50), []step{
			setFaults(fault(throttle.OpBan, kIP)), failureErr(kIP, t0, throttle.OpBan),
			failure(kAcct, t0, banned(t0+50)), check(kIP, t0, allow(0)),
		}},
	})
}

// TestThrottleClear covers record_success, reset and purge_expired (THR-14..THR-16).
func TestThrottleClear(t *testing.T) {
	runSeqs(t, []seq{
		// THR-14
		{"THR-14", "record_success clears the count", cfg(3, 100, 50), []step{
			failure(kIP, t0, allow(2)), failure(kIP, t1, allow(1)), success(kIP),
			check(kIP, t1, allow(3)), failure(kIP, t2, allow(2)),
		}},
		{"THR-14", "record_success keeps the ban; the count is gone when it ends", cfg(2, 100, 50), []step{
			failure(kIP, t0, allow(1)), failure(kIP, t1, banned(t1+50)), success(kIP),
			check(kIP, t2, banned(t1+50)), check(kIP, sec(t1+50), allow(2)),
		}},
		{"THR-14", "a clear_failures fault is returned and the count stays", cfg(3, 100, 50), []step{
			failure(kIP, t0, allow(2)), setFaults(fault(throttle.OpClearFailures, kIP)), successErr(kIP),
			setFaults(), check(kIP, t0, allow(2)),
		}},
		{"THR-14", "record_success of an untracked key succeeds", cfg(3, 100, 50), []step{
			success(kIP), check(kIP, t0, allow(3)),
		}},

		// THR-15
		{"THR-15", "reset clears the ban and the count", cfg(2, 100, 50), []step{
			failure(kIP, t0, allow(1)), failure(kIP, t1, banned(t1+50)), reset(kIP),
			check(kIP, t1, allow(2)), failure(kIP, t2, allow(1)),
		}},
		{"THR-15", "a clear fault is returned and the ban and count stay", cfg(2, 100, 50), []step{
			failure(kIP, t0, allow(1)), failure(kIP, t1, banned(t1+50)),
			setFaults(fault(throttle.OpClear)), resetErr(kIP), setFaults(),
			check(kIP, t1, banned(t1+50)), check(kIP, sec(t1+50), allow(0)),
		}},
		{"THR-15", "reset of an untracked key succeeds", cfg(2, 100, 50), []step{
			reset(kIP), check(kIP, t0, allow(2)),
		}},

		// THR-16
		{"THR-16", "purge counts the keys it untracks; a key with a live stamp stays", cfg(2, 10, 50), []step{
			failure(kIP, t0, allow(1)), failure(kAcct, t5, allow(1)),
			purge(t10, 1), check(kAcct, t10, allow(1)), purge(t10, 0),
		}},
		{"THR-16", "a live ban keeps a key; an expired one is dropped and the key counted", cfg(1, 10, 50), []step{
			failure(kIP, t0, banned(t0+50)), purge(sec(t0+49), 0), check(kIP, sec(t0+49), banned(t0+50)),
			purge(sec(t0+50), 1), check(kIP, t0, allow(1)),
		}},
		{"THR-16", "an expired ban is dropped but a live stamp keeps the key", cfg(1, 100, 5), []step{
			failure(kIP, t0, banned(t5)), purge(t5, 0), check(kIP, t0, allow(0)),
		}},
		{"THR-16", "a purge fault comes only from a rule with no keys", cfg(1, 10, 50), []step{
			failure(kIP, t0, banned(t0+50)),
			setFaults(fault(throttle.OpPurge, kIP), fault(throttle.OpPurge, kEmpty)), purge(t20, 0),
			setFaults(fault(throttle.OpPurge)), purgeErr(maxMinus(0)), check(kIP, t20, banned(t0+50)),
			setFaults(), purge(maxMinus(0), 1),
		}},
		{"THR-16", "purge of an empty store is 0", cfg(1, 10, 50), []step{
			purge(sec(0), 0), purge(maxMinus(0), 0),
		}},
	})
}

// TestThrottleKeys covers key independence (THR-17).
func TestThrottleKeys(t *testing.T) {
	runSeqs(t, []seq{
		// THR-17
		{"THR-17", "the empty key is a key like any other", cfg(1, 100, 50), []step{
			failure(kEmpty, t0, banned(t0+50)), check(kEmpty, t1, banned(t0+50)),
			check(kIP, t1, allow(1)), reset(kEmpty), check(kEmpty, t1, allow(1)),
		}},
		{"THR-17", "invalid UTF-8 is kept as bytes, distinct from its replacement", cfg(1, 100, 50), []step{
			failure(kBad, t0, banned(t0+50)), check("\ufffd\ufffd", t1, allow(1)),
			check("\xff", t1, allow(1)), check(kBad, t1, banned(t0+50)),
		}},
		{"THR-17", "keys differing in one byte are independent", cfg(2, 100, 50), []step{
			failure(kIP, t0, allow(1)), failure(kIP+"\x00", t0, allow(1)), failure("IP:1", t0, allow(1)),
			failure(kIP, t1, banned(t1+50)), check(kIP+"\x00", t1, allow(1)),
		}},
		{"THR-17", "success and reset on one key leave another's count and ban", cfg(2, 100, 50), []step{
			failure(kIP, t0, allow(1)), failure(kAcct, t0, allow(1)), failure(kAcct, t1, banned(t1+50)),
			success(kIP), reset(kEmpty), check(kAcct, t1, banned(t1+50)),
			failure(kIP, t1, allow(1)), reset(kIP), check(kAcct, t2, banned(t1+50)),
		}},
		{"THR-17", "a fault scoped to the empty key does not touch others", cfg(1, 100, 50), []step{
			setFaults(fault(throttle.OpAddFailure, kEmpty)), failureErr(kEmpty, t0, throttle.OpAddFailure),
			failure(kIP, t0, banned(t0+50)),
		}},
	})
}

// traceStore logs every store call the throttle makes, failed ones included.
type traceStore struct {
	inner throttle.Store
	log   []string
}

func (s *traceStore) add(format string, args ...any) {
	s.log = append(s.log, fmt.Sprintf(format, args...))
}

func (s *traceStore) BanUntil(key string) (uint64, error) {
	s.add("ban_until(%q)", key)
	return s.inner.BanUntil(key)
}

func (s *traceStore) Count(key string, now, window uint64) (uint64, error) {
	s.add("count(%q, %d, %d)", key, now, window)
	return s.inner.Count(key, now, window)
}

func (s *traceStore) AddFailure(key string, now, window uint64) (uint64, error) {
	s.add("add_failure(%q, %d, %d)", key, now, window)
	return s.inner.AddFailure(key, now, window)
}

func (s *traceStore) Ban(key string, until uint64) (uint64, error) {
	s.add("ban(%q, %d)", key, until)
	return s.inner.Ban(key, until)
}

func (s *traceStore) ClearFailures(key string) error {
	s.add("clear_failures(%q)", key)
	return s.inner.ClearFailures(key)
}

func (s *traceStore) Clear(key string) error {
	s.add("clear(%q)", key)
	return s.inner.Clear(key)
}

func (s *traceStore) Purge(now, window uint64) (uint64, error) {
	s.add("purge(%d, %d)", now, window)
	return s.inner.Purge(now, window)
}

// TestStoreCalls checks which store operations each throttle operation
// makes, in which order (THR-7..THR-16 give the orders).
func TestStoreCalls(t *testing.T) {
	c := cfg(2, 10, 50)
	banA := []step{failure("a", t0, allow(1)), failure("a", t1, banned(t1+50))}
	for _, r := range []struct {
		clause, reason string
		setup          []step
		call           step
		want           []string
	}{
		{"THR-7", "check reads the ban first and does not count while banned", banA,
			check("a", t2, banned(151)), []string{`ban_until("a")`}},
		{"THR-7", "a ban_until fault stops check before the count", []step{setFaults(fault(throttle.OpBanUntil))},
			check("a", t2, unavailable), []string{`ban_until("a")`}},
		{"THR-8", "check without a ban counts with window_secs", nil,
			check("a", t2, allow(2)), []string{`ban_until("a")`, `count("a", 102, 10)`}},
		{"THR-9", "check_any of no keys makes no store call", nil,
			checkAny(t2, allow(0)), nil},
		{"THR-10", "check_any checks every key, duplicates again, even after a ban", banA,
			checkAny(t2, banned(151), "a", "b", "a"), []string{`ban_until("a")`, `ban_until("b")`, `count("b", 102, 10)`, `ban_until("a")`}},
		{"THR-11", "record_failure below the threshold only adds", nil,
			failure("a", t2, allow(1)), []string{`add_failure("a", 102, 10)`}},
		{"THR-11", "an add_failure fault stops record_failure", []step{setFaults(fault(throttle.OpAddFailure))},
			failureErr("a", t2, throttle.OpAddFailure), []string{`add_failure("a", 102, 10)`}},
		{"THR-13", "record_failure at the threshold adds, then bans until now+ban_secs", []step{failure("a", t0, allow(1))},
			failure("a", t2, banned(152)), []string{`add_failure("a", 102, 10)`, `ban("a", 152)`}},
		{"THR-14", "record_success clears failures only", nil,
			success("a"), []string{`clear_failures("a")`}},
		{"THR-15", "reset clears the key", nil,
			reset("a"), []string{`clear("a")`}},
		{"THR-16", "purge_expired purges with window_secs", nil,
			purge(t2, 0), []string{`purge(102, 10)`}},
	} {
		t.Run(r.clause, func(t *testing.T) {
			requireRow(t, r.clause, r.reason)
			fs := throttle.NewFaultStore(newMem(t, 2))
			tr := &traceStore{inner: fs}
			th, err := throttle.New(tr, c)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range r.setup {
				s.do(t, th, fs)
			}
			tr.log = nil
			r.call.do(t, th, fs)
			if diff := cmp.Diff(r.want, tr.log); diff != "" {
				t.Fatalf("%s (%s): store calls of %s (-want +got):\n%s", r.clause, r.reason, r.call.call(), diff)
			}
		})
	}
}

// ExampleThrottle guards a login form by address and by account: a request
// is refused while either key is banned.
func ExampleThrottle() {
	th, err := throttle.New(mustMem(3), throttle.Config{Threshold: 3, WindowSecs: 900, BanSecs: 900})
	if err != nil {
		fmt.Println(err)
		return
	}
	login := func(now uint64, ip, user string, passwordOK bool) {
		keys := []string{"ip:" + ip, "acct:" + user}
		if d := th.CheckAny(keys, now); d.Verdict != throttle.Allow {
			fmt.Printf("t=%d %s@%s: refused (%s until %d)\n", now, user, ip, d.Verdict, d.Until)
			return
		}
		if passwordOK {
			for _, k := range keys {
				_ = th.RecordSuccess(k) // a success keeps any ban
			}
			fmt.Printf("t=%d %s@%s: welcome\n", now, user, ip)
			return
		}
		var out []string
		for _, k := range keys {
			d, err := th.RecordFailure(k, now)
			if err != nil {
				fmt.Println(err)
				return
			}
			out = append(out, fmt.Sprintf("%s %+v", k, d))
		}
		fmt.Printf("t=%d %s@%s: wrong password: %s\n", now, user, ip, strings.Join(out, ", "))
	}
	login(0, "203.0.113.7", "alice", false)
	login(10, "203.0.113.7", "alice", false)
	login(20, "203.0.113.7", "alice", false)
	login(30, "203.0.113.7", "alice", true)
	login(40, "198.51.100.9", "alice", true) // another address, same account
	login(50, "198.51.100.9", "bob", true)   // another account, clean address
	login(920, "203.0.113.7", "alice", true)
	// Output:
	// t=0 alice@203.0.113.7: wrong password: ip:203.0.113.7 {Verdict:allow Remaining:2 Until:0}, acct:alice {Verdict:allow Remaining:2 Until:0}
	// t=10 alice@203.0.113.7: wrong password: ip:203.0.113.7 {Verdict:allow Remaining:1 Until:0}, acct:alice {Verdict:allow Remaining:1 Until:0}
	// t=20 alice@203.0.113.7: wrong password: ip:203.0.113.7 {Verdict:banned Remaining:0 Until:920}, acct:alice {Verdict:banned Remaining:0 Until:920}
	// t=30 alice@203.0.113.7: refused (banned until 920)
	// t=40 alice@198.51.100.9: refused (banned until 920)
	// t=50 bob@198.51.100.9: welcome
	// t=920 alice@203.0.113.7: welcome
}
