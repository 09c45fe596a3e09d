package throttle_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/limcheck/limcheck/impl/throttle"
)

// fusedTrace is a FusedStore over a MemStore that logs the calls and fails
// the fused ones on demand.
type fusedTrace struct {
	traceStore
	mem  *throttle.MemStore
	fail error
}

func (s *fusedTrace) CheckState(key string, now, window uint64) (uint64, uint64, error) {
	s.add("check_state(%q, %d, %d)", key, now, window)
	if s.fail != nil {
		return 0, 0, s.fail
	}
	return s.mem.CheckState(key, now, window)
}

func (s *fusedTrace) FailAndBan(key string, now, window, threshold, until uint64) (uint64, uint64, error) {
	s.add("fail_and_ban(%q, %d, %d, %d, %d)", key, now, window, threshold, until)
	if s.fail != nil {
		return 0, 0, s.fail
	}
	return s.mem.FailAndBan(key, now, window, threshold, until)
}

// TestFusedCalls checks that New picks a FusedStore's paths: Check and
// RecordFailure make one fused call each, the other operations theirs.
func TestFusedCalls(t *testing.T) {
	mem := mustMem(2)
	fs := &fusedTrace{traceStore: traceStore{inner: mem}, mem: mem}
	th, err := throttle.New(fs, cfg(2, 10, 50))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		clause, reason string
		call           step
		want           []string
	}{
		{"THR-7", "check is one check_state call", check("a", t0, allow(2)), []string{`check_state("a", 100, 10)`}},
		{"THR-11", "record_failure below the threshold is one fail_and_ban", failure("a", t0, allow(1)),
			[]string{`fail_and_ban("a", 100, 10, 2, 150)`}},
		{"THR-13", "record_failure at the threshold is one fail_and_ban that bans", failure("a", t1, banned(151)),
			[]string{`fail_and_ban("a", 101, 10, 2, 151)`}},
		{"THR-7", "a banned check is one call", check("a", t2, banned(151)), []string{`check_state("a", 102, 10)`}},
		{"THR-14", "record_success is clear_failures", success("a"), []string{`clear_failures("a")`}},
		{"THR-15", "reset is clear", reset("a"), []string{`clear("a")`}},
		{"THR-16", "purge_expired is purge", purge(t2, 0), []string{`purge(102, 10)`}},
	} {
		requireRow(t, r.clause, r.reason)
		fs.log = nil
		r.call.do(t, th, nil)
		if diff := cmp.Diff(r.want, fs.log); diff != "" {
			t.Errorf("%s (%s): calls (-want +got):\n%s", r.clause, r.reason, diff)
		}
	}
}

// TestFusedErrors checks the fused paths' failures: Check gives
// Unavailable, RecordFailure returns the wrapped *StoreError.
func TestFusedErrors(t *testing.T) {
	mem := mustMem(2)
	cause := &throttle.StoreError{Op: throttle.OpAddFailure, Key: "a", Err: throttle.ErrFault}
	fs := &fusedTrace{traceStore: traceStore{inner: mem}, mem: mem, fail: cause}
	th, _ := throttle.New(fs, cfg(2, 10, 50))
	mustDecide(t, "failed check_state", th.Check("a", t0), unavailable)
	d, err := th.RecordFailure("a", t0)
	if !errors.Is(err, throttle.ErrFault) || err.Error() != "throttle: record_failure: "+cause.Error() || d != (throttle.Decision{}) {
		t.Fatalf("failed fail_and_ban: %+v, %v", d, err)
	}
}
