package throttle_test

import (
	"errors"
	"math"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/limcheck/limcheck/impl/throttle"
)

// TestFaultsCopies covers STORE-10's rule list: it starts empty (nil), is
// replaced as a whole, and is copied in and out.
func TestFaultsCopies(t *testing.T) {
	fs := throttle.NewFaultStore(mustMem(1))
	keys := []string{"a"}
	rules := []throttle.Fault{{Op: throttle.OpCount, Keys: keys}}
	steps := []struct {
		clause, reason string
		act            func()
		want           []throttle.Fault
	}{
		{"STORE-10", "the rule list starts empty (nil, like the model)", func() {}, nil},
		{"STORE-10", "SetFaults copies: later changes to the caller's slices do not leak in", func() {
			fs.SetFaults(rules...)
			keys[0], rules[0].Op = "b", throttle.OpBan
		}, []throttle.Fault{{Op: throttle.OpCount, Keys: []string{"a"}}}},
		{"STORE-10", "Faults returns a copy: changing it changes nothing", func() {
			fs.Faults()[0].Keys[0] = "z"
		}, []throttle.Fault{{Op: throttle.OpCount, Keys: []string{"a"}}}},
		{"STORE-10", "an empty (non-nil) key list stays empty, not nil", func() {
			fs.SetFaults(throttle.Fault{Op: throttle.OpBan, Keys: []string{}})
		}, []throttle.Fault{{Op: throttle.OpBan, Keys: []string{}}}},
		{"STORE-10", "SetFaults() clears the rules to nil", func() { fs.SetFaults() }, nil},
	}
	for _, s := range steps {
		requireRow(t, s.clause, s.reason)
		s.act()
		if diff := cmp.Diff(s.want, fs.Faults()); diff != "" {
			t.Fatalf("%s (%s): Faults() (-want +got):\n%s", s.clause, s.reason, diff)
		}
	}
}

// TestFaultStoreStampsPerKey checks that a FaultStore reports its inner
// store's k, so that New refuses a threshold above it.
func TestFaultStoreStampsPerKey(t *testing.T) {
	if got := throttle.NewFaultStore(mustMem(7)).StampsPerKey(); got != 7 {
		t.Errorf("FaultStore(MemStore k=7).StampsPerKey() = %d", got)
	}
	if got := throttle.NewFaultStore(newRef()).StampsPerKey(); got != math.MaxUint64 {
		t.Errorf("FaultStore(exact store).StampsPerKey() = %d, want MaxUint64", got)
	}
}

// TestFaultStoreConcurrent replaces rules while goroutines use the store
// (run with -race): every error is an injected *StoreError.
func TestFaultStoreConcurrent(t *testing.T) {
	fs := throttle.NewFaultStore(mustMem(3))
	th, _ := throttle.New(fs, cfg(3, 10, 10))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 500 {
				if w == 0 && i%10 == 0 {
					fs.SetFaults(fault(throttle.OpAddFailure, kIP))
					fs.SetFaults()
				}
				if _, err := th.RecordFailure(kIP, uint64(i)); err != nil && !errors.Is(err, throttle.ErrFault) {
					t.Errorf("RecordFailure: %v", err)
				}
				th.Check(kIP, uint64(i))
			}
		})
	}
	wg.Wait()
}

// TestNewMemStoreConfig covers MemConfig's ranges and defaults.
func TestNewMemStoreConfig(t *testing.T) {
	for _, r := range []struct {
		reason  string
		cfg     throttle.MemConfig
		ok      bool
		maxKeys int
	}{
		{"k 1 with defaults", throttle.MemConfig{StampsPerKey: 1}, true, throttle.DefaultMaxKeys},
		{"the zero MemConfig takes every default: k of the default threshold", throttle.MemConfig{}, true, throttle.DefaultMaxKeys},
		{"k at the limit", throttle.MemConfig{StampsPerKey: throttle.MaxStampsPerKey}, true, throttle.DefaultMaxKeys},
		{"k past the limit", throttle.MemConfig{StampsPerKey: throttle.MaxStampsPerKey + 1}, false, 0},
		{"k MaxUint64", throttle.MemConfig{StampsPerKey: math.MaxUint64}, false, 0},
		{"explicit MaxKeys", throttle.MemConfig{StampsPerKey: 5, MaxKeys: 10}, true, 10},
		{"MaxKeys at the limit", throttle.MemConfig{StampsPerKey: 5, MaxKeys: throttle.MaxMaxKeys}, true, throttle.MaxMaxKeys},
		{"negative MaxKeys", throttle.MemConfig{StampsPerKey: 5, MaxKeys: -1}, false, 0},
		{"MaxKeys past the limit", throttle.MemConfig{StampsPerKey: 5, MaxKeys: throttle.MaxMaxKeys + 1}, false, 0},
		{"one shard", throttle.MemConfig{StampsPerKey: 5, Shards: 1}, true, throttle.DefaultMaxKeys},
		{"shards not a power of two", throttle.MemConfig{StampsPerKey: 5, Shards: 3}, false, 0},
		{"negative shards", throttle.MemConfig{StampsPerKey: 5, Shards: -4}, false, 0},
		{"shards past the limit", throttle.MemConfig{StampsPerKey: 5, Shards: throttle.MaxShards * 2}, false, 0},
	} {
		requireRow(t, "MemConfig", r.reason)
		s, err := throttle.NewMemStore(r.cfg)
		k := r.cfg.StampsPerKey
		if k == 0 {
			k = throttle.DefaultStampsPerKey
		}
		switch {
		case r.ok && (err != nil || s.MaxKeys() != r.maxKeys || s.StampsPerKey() != k):
			t.Errorf("%s: NewMemStore(%+v) = %v; want MaxKeys %d, StampsPerKey %d", r.reason, r.cfg, err, r.maxKeys, k)
		case !r.ok && (s != nil || !errors.Is(err, throttle.ErrConfig)):
			t.Errorf("%s: NewMemStore(%+v) = %v, %v; want ErrConfig", r.reason, r.cfg, s, err)
		}
	}
}

// TestStoreErrorText covers the *StoreError rendering and unwrapping.
func TestStoreErrorText(t *testing.T) {
	for _, r := range []struct {
		reason string
		err    *throttle.StoreError
		want   string
	}{
		{"a keyed op quotes its key", &throttle.StoreError{Op: throttle.OpBan, Key: "\xff", Err: throttle.ErrFault},
			`throttle: store ban "\xff": throttle: injected store fault`},
		{"purge has no key", &throttle.StoreError{Op: throttle.OpPurge, Err: throttle.ErrFault},
			`throttle: store purge: throttle: injected store fault`},
		{"a full store", &throttle.StoreError{Op: throttle.OpAddFailure, Key: "a", Err: throttle.ErrFull},
			`throttle: store add_failure "a": throttle: store full`},
	} {
		requireRow(t, "STORE-1", r.reason)
		if got := r.err.Error(); got != r.want || !errors.Is(r.err, r.err.Err) {
			t.Errorf("%s: %q, want %q", r.reason, got, r.want)
		}
	}
}

// TestZeroMemConfigServesTheDefaultThrottle checks that the zero MemConfig,
// like its siblings' zero values, is a working default: a store that a
// throttle of DefaultConfig accepts and that bans at the threshold.
func TestZeroMemConfigServesTheDefaultThrottle(t *testing.T) {
	s, err := throttle.NewMemStore(throttle.MemConfig{})
	if err != nil {
		t.Fatalf("NewMemStore(MemConfig{}) = %v, want a store", err)
	}
	th, err := throttle.New(s, throttle.DefaultConfig())
	if err != nil {
		t.Fatalf("New(NewMemStore(MemConfig{}), DefaultConfig()) = %v, want a throttle", err)
	}
	var d throttle.Decision
	for i := range throttle.DefaultThreshold {
		if d, err = th.RecordFailure("ip:192.0.2.1", 100+i); err != nil {
			t.Fatalf("RecordFailure #%d: %v", i+1, err)
		}
	}
	if d.Verdict != throttle.Banned {
		t.Errorf("after %d failures: %+v, want banned", throttle.DefaultThreshold, d)
	}
}
