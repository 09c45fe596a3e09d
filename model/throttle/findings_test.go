package throttle_test

import (
	"testing"

	"github.com/limcheck/limcheck/model/throttle"
)

// TestFind5CountsSurviveABan reproduces FIND-5: with window_secs > ban_secs
// the failures that caused a ban still count when it ends, and one failure
// re-bans.
func TestFind5CountsSurviveABan(t *testing.T) {
	runSeqs(t, []seq{
		{"FIND-5", "config {3, 100, 10}: failures at 0, 1, 2 ban until 12; check(12) is allow{0}; a failure at 12 bans until 22; at 103 only the stamp 12 counts", cfg(3, 100, 10), []step{
			failure(kIP, sec(0), allow(2)), failure(kIP, sec(1), allow(1)), failure(kIP, sec(2), banned(12)),
			check(kIP, sec(12), allow(0)), failure(kIP, sec(12), banned(22)), check(kIP, sec(103), allow(2)),
		}},
		{"FIND-5", "with the defaults (window = ban = 900) the causing failures expire exactly when the ban does", throttle.DefaultConfig(), []step{
			failure(kIP, sec(0), allow(4)), failure(kIP, sec(1), allow(3)), failure(kIP, sec(2), allow(2)),
			failure(kIP, sec(3), allow(1)), failure(kIP, sec(4), banned(904)),
			check(kIP, sec(903), banned(904)), check(kIP, sec(904), allow(5)),
		}},
	})
}

// TestFind6RecordFailureAllowsWhileBanned reproduces FIND-6: record_failure
// can return allow while a ban is in force.
func TestFind6RecordFailureAllowsWhileBanned(t *testing.T) {
	runSeqs(t, []seq{
		{"FIND-6", "config {2, 100, 50}: failures at 0 and 1 ban until 51; record_success; a failure at 2 is allow{1} while check(2) is banned{51}", cfg(2, 100, 50), []step{
			failure(kIP, sec(0), allow(1)), failure(kIP, sec(1), banned(51)), success(kIP),
			failure(kIP, sec(2), allow(1)), check(kIP, sec(2), banned(51)), checkAny(sec(2), banned(51), kIP),
		}},
	})
}

// TestFind7SaturatedBanEndsOneSecondEarly reproduces FIND-7: ban-until
// saturates at MaxUint64, and a ban is not in force at its until.
func TestFind7SaturatedBanEndsOneSecondEarly(t *testing.T) {
	runSeqs(t, []seq{
		{"FIND-7", "config {1, 900, 900}: a failure at 2^64-6 bans until 2^64-1; check(2^64-1) is allow{0}", cfg(1, 900, 900), []step{
			failure(kIP, maxMinus(5), banned(maxU)), check(kIP, maxMinus(1), banned(maxU)),
			check(kIP, maxMinus(0), allow(0)),
		}},
	})
}

// TestFind8StepBackStretchesAFailure reproduces FIND-8: a failure stamped
// 1000, read from clock 0, counts at every now from 0 to 1009.
func TestFind8StepBackStretchesAFailure(t *testing.T) {
	steps := []step{failure(kIP, sec(1000), allow(1))}
	for now := uint64(0); now <= 1009; now++ {
		steps = append(steps, check(kIP, sec(now), allow(1)))
	}
	steps = append(steps, check(kIP, sec(1010), allow(2)))
	runSeqs(t, []seq{
		{"FIND-8", "config {2, 10, 900}: a failure at 1000 counts at every now in 0..1009 (1010 clock values), not at 1010", cfg(2, 10, 900), steps},
	})
}

// TestFind10PurgeNeutralOnlyForLaterTimes reproduces FIND-10: after a purge
// at 100 and a step back, check(5) differs from the same history without the
// purge.
func TestFind10PurgeNeutralOnlyForLaterTimes(t *testing.T) {
	runSeqs(t, []seq{
		{"FIND-10", "config {2, 10, 900}: a failure at 0, purge_expired(100) is 1, then check(5) is allow{2}", cfg(2, 10, 900), []step{
			failure(kIP, sec(0), allow(1)), purge(sec(100), 1), check(kIP, sec(5), allow(2)),
		}},
		{"FIND-10", "the same history without the purge: check(5) is allow{1}", cfg(2, 10, 900), []step{
			failure(kIP, sec(0), allow(1)), check(kIP, sec(5), allow(1)),
		}},
	})
}

// TestFind20BanReportedAtTheLastSecondIsNotInForce reproduces FIND-20: a
// failure at 2^64-1 returns the stored (saturated) ban-until 2^64-1, which
// check at the same second does not count as in force.
func TestFind20BanReportedAtTheLastSecondIsNotInForce(t *testing.T) {
	runSeqs(t, []seq{
		{"FIND-20", "config {1, 900, 900}: record_failure at 2^64-1 is banned{2^64-1}, check(2^64-1) is allow{0}", cfg(1, 900, 900), []step{
			failure(kIP, maxMinus(0), banned(maxU)), check(kIP, maxMinus(0), allow(0)),
		}},
	})
}

// TestFind23FailuresDuringABanExtendIt reproduces FIND-23: every failure at
// or over the threshold during a ban extends it to now + ban_secs.
func TestFind23FailuresDuringABanExtendIt(t *testing.T) {
	runSeqs(t, []seq{
		{"FIND-23", "config {2, 900, 900}: failures at 0 and 1 ban until 901; a failure at 500 bans until 1400; check(1399) is banned{1400}", cfg(2, 900, 900), []step{
			failure(kIP, sec(0), allow(1)), failure(kIP, sec(1), banned(901)), check(kIP, sec(500), banned(901)),
			failure(kIP, sec(500), banned(1400)), check(kIP, sec(1399), banned(1400)), check(kIP, sec(1400), allow(2)),
		}},
	})
}

// TestFind24RejectingOnAllowZeroLocksOutForTheWindow reproduces FIND-24: a
// caller that rejects on allow{0} keeps a user out until the causing
// failures leave the window, not only for ban_secs.
func TestFind24RejectingOnAllowZeroLocksOutForTheWindow(t *testing.T) {
	runSeqs(t, []seq{
		{"FIND-24", "config {3, 100, 10}: failures at 0, 1, 2 ban until 12; check is allow{0} at 12 and 99, allow{1} at 100", cfg(3, 100, 10), []step{
			failure(kIP, sec(0), allow(2)), failure(kIP, sec(1), allow(1)), failure(kIP, sec(2), banned(12)),
			check(kIP, sec(11), banned(12)), check(kIP, sec(12), allow(0)), check(kIP, sec(99), allow(0)), check(kIP, sec(100), allow(1)),
		}},
	})
}
