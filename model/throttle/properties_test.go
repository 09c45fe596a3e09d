package throttle_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/limcheck/limcheck/model/throttle"
)

// keyPool is small so that drawn keys collide often; it holds the empty key
// and invalid UTF-8.
var keyPool = []string{"", "a", "b", "ip:1", "\xff", "\xff\xfe"}

// storeOps are the seven store operations.
var storeOps = []throttle.Op{
	throttle.OpBanUntil, throttle.OpCount, throttle.OpAddFailure, throttle.OpBan,
	throttle.OpClearFailures, throttle.OpClear, throttle.OpPurge,
}

// allKinds are the throttle operations; record_failure comes twice so that
// bans are reached often.
var allKinds = []kind{opCheck, opCheckAny, opRecordFailure, opRecordFailure, opRecordSuccess, opReset, opPurgeExpired}

// mutators are the throttle operations that write.
var mutators = []kind{opRecordFailure, opRecordFailure, opRecordSuccess, opReset, opPurgeExpired}

func drawKey(t *rapid.T, label string) string { return rapid.SampledFrom(keyPool).Draw(t, label) }

func drawKeys(t *rapid.T, label string) []string {
	return rapid.SliceOfN(rapid.SampledFrom(keyPool), 0, 5).Draw(t, label)
}

// drawSpan draws a window_secs or ban_secs biased to 1, small values and
// the top of the range.
func drawSpan(t *rapid.T, label string) uint64 {
	return rapid.OneOf(
		rapid.Just(uint64(1)),
		rapid.Uint64Range(2, 5),
		rapid.Uint64Range(6, 1000),
		rapid.Uint64Range(maxU-2, maxU),
		rapid.Uint64Min(1),
	).Draw(t, label)
}

// drawConfig draws a valid config with each field biased to its edges.
func drawConfig(t *rapid.T) throttle.Config {
	return throttle.Config{
		Threshold: rapid.OneOf(
			rapid.Just(uint64(1)), rapid.Uint64Range(2, 4), rapid.Uint64Range(5, 10), rapid.Just(maxU), rapid.Uint64Min(1),
		).Draw(t, "threshold"),
		WindowSecs: drawSpan(t, "window_secs"),
		BanSecs:    drawSpan(t, "ban_secs"),
	}
}

// drawFaults draws up to three fault rules, with no keys or a few pool keys.
func drawFaults(t *rapid.T, label string) []throttle.Fault {
	rule := rapid.Custom(func(t *rapid.T) throttle.Fault {
		return throttle.Fault{
			Op:   rapid.SampledFrom(storeOps).Draw(t, "op"),
			Keys: rapid.SliceOfN(rapid.SampledFrom(keyPool), 0, 2).Draw(t, "keys"),
		}
	})
	return rapid.SliceOfN(rule, 0, 3).Draw(t, label)
}

func satAdd(a, b uint64) uint64 {
	if a > maxU-b {
		return maxU
	}
	return a + b
}

func satSub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// jumps are how the clock moves from one drawn time to the next. The
// anchor is the time of the last recorded failure, so anchor+ban is its
// ban-until.
var jumps = []string{
	"same", "+1", "+window-1", "+window", "+window+1",
	"anchor+window-1", "anchor+window", "anchor+window+1", "anchor+ban-1", "anchor+ban", "anchor+ban+1",
	"-1", "back", "near 0", "near max", "any",
}

// clock draws the times of a run: repeats, steps back, jumps of 0, 1 and
// around window_secs and ban_secs, and values near 0 and MaxUint64.
type clock struct {
	cfg    throttle.Config
	now    uint64 // the last time drawn
	anchor uint64 // the time of the last recorded failure
	floor  uint64 // no time below it is drawn
}

func (c *clock) next(t *rapid.T, label string) uint64 {
	w, b, n, a := c.cfg.WindowSecs, c.cfg.BanSecs, c.now, c.anchor
	var v uint64
	switch rapid.SampledFrom(jumps).Draw(t, label+" jump") {
	case "same":
		v = n
	case "+1":
		v = satAdd(n, 1)
	case "+window-1":
		v = satAdd(n, w-1)
	case "+window":
		v = satAdd(n, w)
	case "+window+1":
		v = satAdd(satAdd(n, w), 1)
	case "anchor+window-1":
		v = satAdd(a, w-1)
	case "anchor+window":
		v = satAdd(a, w)
	case "anchor+window+1":
		v = satAdd(satAdd(a, w), 1)
	case "anchor+ban-1":
		v = satAdd(a, b-1)
	case "anchor+ban":
		v = satAdd(a, b)
	case "anchor+ban+1":
		v = satAdd(satAdd(a, b), 1)
	case "-1":
		v = satSub(n, 1)
	case "back":
		v = rapid.Uint64Range(0, n).Draw(t, label+" back to")
	case "near 0":
		v = rapid.Uint64Range(0, 3).Draw(t, label+" near 0")
	case "near max":
		v = maxU - rapid.Uint64Range(0, 3).Draw(t, label+" below max")
	default:
		v = rapid.Uint64().Draw(t, label+" any")
	}
	c.now = max(v, c.floor)
	return c.now
}

// drawStep draws a throttle operation of kind k: its key or keys, and its
// time from c.
func drawStep(t *rapid.T, c *clock, k kind) step {
	s := step{op: k}
	switch k {
	case opCheckAny:
		s.keys = drawKeys(t, "keys")
	case opCheck, opRecordFailure, opRecordSuccess, opReset:
		s.key = drawKey(t, "key")
	}
	switch k {
	case opCheck, opCheckAny, opRecordFailure, opPurgeExpired:
		s.at = sec(c.next(t, "now"))
	}
	if k == opRecordFailure {
		c.anchor = s.at.sec
	}
	return s
}

// result is what a throttle operation returned; Err is "" or errTag's.
type result struct {
	D   throttle.Decision
	N   uint64
	Err string
}

// errTag names a store error by its op and key.
func errTag(err error) string {
	var se *throttle.StoreError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &se) && errors.Is(err, throttle.ErrFault):
		return storeErrTag(se.Op, se.Key)
	}
	return "unexpected error: " + err.Error()
}

func storeErrTag(op throttle.Op, key string) string { return string(op) + " " + strconv.Quote(key) }

// apply runs s on th and returns its result.
func apply(th *throttle.Throttle, s step) result {
	var r result
	var err error
	switch s.op {
	case opCheck:
		r.D = th.Check(s.key, s.at.sec)
	case opCheckAny:
		r.D = th.CheckAny(s.keys, s.at.sec)
	case opRecordFailure:
		r.D, err = th.RecordFailure(s.key, s.at.sec)
	case opRecordSuccess:
		err = th.RecordSuccess(s.key)
	case opReset:
		err = th.Reset(s.key)
	case opPurgeExpired:
		r.N, err = th.PurgeExpired(s.at.sec)
	}
	r.Err = errTag(err)
	return r
}

// same fails t unless want and got are equal.
func same(t *rapid.T, what string, want, got any) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%s (-want +got):\n%s", what, diff)
	}
}

func newThrottle(t *rapid.T, store throttle.Store, cfg throttle.Config) *throttle.Throttle {
	th, err := throttle.New(store, cfg)
	if err != nil {
		t.Fatalf("New(%+v) = %v", cfg, err)
	}
	return th
}

// machine builds t.Repeat's actions: one per kind (a repeated kind gets a
// numbered name), calling do, and the invariant.
func machine(kinds []kind, do func(*rapid.T, kind), invariant func(*rapid.T)) map[string]func(*rapid.T) {
	m := map[string]func(*rapid.T){"": invariant}
	for _, k := range kinds {
		name := string(k)
		for i := 2; m[name] != nil; i++ {
			name = fmt.Sprintf("%s#%d", k, i)
		}
		m[name] = func(t *rapid.T) { do(t, k) }
	}
	return m
}

// sameChecks fails t unless a and b check every pool key alike at now.
func sameChecks(t *rapid.T, a, b *throttle.Throttle, now uint64) {
	t.Helper()
	for _, k := range keyPool {
		same(t, fmt.Sprintf("Check(%q, %d)", k, now), a.Check(k, now), b.Check(k, now))
	}
	same(t, fmt.Sprintf("CheckAny(%q, %d)", keyPool, now), a.CheckAny(keyPool, now), b.CheckAny(keyPool, now))
}

// TestProp14PurgeNeverChangesALaterDecision checks PROP-14: purge_expired(now)
// never changes a later decision: any operations at times >= now give the
// same results with or without the purge, except the counts later purges
// return (a stamp the first purge removed is not there to be counted again).
func TestProp14PurgeNeverChangesALaterDecision(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		purged := newThrottle(t, throttle.NewMemStore(), cfg)
		kept := newThrottle(t, throttle.NewMemStore(), cfg)
		c := &clock{cfg: cfg}
		for range rapid.IntRange(0, 25).Draw(t, "history length") {
			s := drawStep(t, c, rapid.SampledFrom(allKinds).Draw(t, "history op"))
			same(t, s.call()+" in the history", apply(kept, s), apply(purged, s))
		}
		p := c.next(t, "purge")
		if _, err := purged.PurgeExpired(p); err != nil {
			t.Fatalf("PurgeExpired(%d) = %v", p, err)
		}
		c.floor = p
		t.Repeat(machine(allKinds, func(t *rapid.T, k kind) {
			s := drawStep(t, c, k)
			want, got := apply(kept, s), apply(purged, s)
			if k == opPurgeExpired {
				want.N, got.N = 0, 0 // purge's own count may differ
			}
			same(t, fmt.Sprintf("%s after PurgeExpired(%d)", s.call(), p), want, got)
		}, func(t *rapid.T) {
			sameChecks(t, kept, purged, c.now)
		}))
	})
}

// TestProp15BanNeverShortened checks PROP-15: a ban is never shortened:
// while no reset or purge_expired intervenes, every banned{until} a key's
// check or record_failure returns has an until at least that of every
// earlier one (and the store's ban-until never decreases either).
func TestProp15BanNeverShortened(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		mem := throttle.NewMemStore()
		fs := throttle.NewFaultStore(mem)
		th := newThrottle(t, fs, cfg)
		c := &clock{cfg: cfg}
		floor := map[string]uint64{} // the least ban-until each key may report
		seen := func(t *rapid.T, what, key string, until uint64) {
			t.Helper()
			if until < floor[key] {
				t.Fatalf("%s: ban-until of %q is %d, was %d", what, key, until, floor[key])
			}
			floor[key] = until
		}
		m := machine(allKinds, func(t *rapid.T, k kind) {
			s := drawStep(t, c, k)
			r := apply(th, s)
			switch {
			case r.D.Verdict == throttle.Banned && s.op != opCheckAny:
				seen(t, s.call(), s.key, r.D.Until)
			case r.Err == "" && s.op == opReset:
				delete(floor, s.key)
			case r.Err == "" && s.op == opPurgeExpired:
				clear(floor)
			}
		}, func(t *rapid.T) {
			for _, k := range keyPool {
				u, err := mem.BanUntil(k)
				if err != nil {
					t.Fatal(err)
				}
				seen(t, "MemStore.BanUntil", k, u)
			}
		})
		m["set_faults"] = func(t *rapid.T) { fs.SetFaults(drawFaults(t, "faults")...) }
		t.Repeat(m)
	})
}

// TestProp16RecordSuccessKeepsTheBan checks PROP-16: record_success never
// lifts a ban: a key banned until u before it is banned until u after it.
func TestProp16RecordSuccessKeepsTheBan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		mem := throttle.NewMemStore()
		fs := throttle.NewFaultStore(mem)
		th := newThrottle(t, fs, cfg)
		obs := newThrottle(t, mem, cfg) // reads past the faults
		c := &clock{cfg: cfg}
		m := machine(mutators, func(t *rapid.T, k kind) { apply(th, drawStep(t, c, k)) }, func(*rapid.T) {})
		m["set_faults"] = func(t *rapid.T) { fs.SetFaults(drawFaults(t, "faults")...) }
		m["record_success of a checked key"] = func(t *rapid.T) {
			key := drawKey(t, "key")
			now := c.next(t, "now")
			u0, _ := mem.BanUntil(key)
			d0 := obs.Check(key, now)
			err := th.RecordSuccess(key)
			u1, _ := mem.BanUntil(key)
			d1 := obs.Check(key, now)
			if u1 != u0 {
				t.Fatalf("RecordSuccess(%q) = %v: ban-until %d became %d", key, err, u0, u1)
			}
			if d0.Verdict == throttle.Banned {
				same(t, fmt.Sprintf("Check(%q, %d) after RecordSuccess(%q) = %v", key, now, key, err), d0, d1)
			}
		}
		t.Repeat(m)
	})
}

// topKStore is a test-only store that keeps, per key, only the k largest
// stamps and so reports min(count, k): the store impl/ will have. Its window
// arithmetic is its own.
type topKStore struct {
	k    uint64
	keys map[string]*topKRecord
}

type topKRecord struct {
	stamps []uint64 // ascending; the k largest stamps
	until  uint64
}

var _ throttle.Store = (*topKStore)(nil)

func newTopKStore(k uint64) *topKStore { return &topKStore{k: k, keys: map[string]*topKRecord{}} }

// inWindow is t + window > now without overflow.
func inWindow(t, window, now uint64) bool { return now < window || t > now-window }

func (s *topKStore) BanUntil(key string) (uint64, error) {
	if r := s.keys[key]; r != nil {
		return r.until, nil
	}
	return 0, nil
}

func (s *topKStore) Count(key string, now, window uint64) (uint64, error) {
	var n uint64
	if r := s.keys[key]; r != nil {
		for _, t := range r.stamps {
			if inWindow(t, window, now) {
				n++
			}
		}
	}
	return n, nil
}

func (s *topKStore) AddFailure(key string, now, window uint64) (uint64, error) {
	r := s.get(key)
	i, _ := slices.BinarySearch(r.stamps, now)
	r.stamps = slices.Insert(r.stamps, i, now)
	if uint64(len(r.stamps)) > s.k {
		r.stamps = r.stamps[1:]
	}
	return s.Count(key, now, window)
}

func (s *topKStore) Ban(key string, until uint64) (uint64, error) {
	r := s.get(key)
	r.until = max(r.until, until)
	s.drop(key)
	return r.until, nil
}

func (s *topKStore) ClearFailures(key string) error {
	if r := s.keys[key]; r != nil {
		r.stamps = nil
		s.drop(key)
	}
	return nil
}

func (s *topKStore) Clear(key string) error {
	delete(s.keys, key)
	return nil
}

func (s *topKStore) Purge(now, window uint64) (uint64, error) {
	var n uint64
	for key, r := range s.keys {
		r.stamps = slices.DeleteFunc(r.stamps, func(t uint64) bool { return !inWindow(t, window, now) })
		if r.until <= now {
			r.until = 0
		}
		if s.drop(key) {
			n++
		}
	}
	return n, nil
}

func (s *topKStore) get(key string) *topKRecord {
	r := s.keys[key]
	if r == nil {
		r = &topKRecord{}
		s.keys[key] = r
	}
	return r
}

// drop forgets key when it is no longer tracked and reports whether it did.
func (s *topKStore) drop(key string) bool {
	if r := s.keys[key]; r != nil && len(r.stamps) == 0 && r.until == 0 {
		delete(s.keys, key)
		return true
	}
	return false
}

// TestProp17TopKStoreIsExact checks PROP-17: a store that keeps only the
// threshold largest stamps per key gives the same results as the exact
// store, for every operation sequence (the top-k variant of STORE-11).
func TestProp17TopKStoreIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		mem, top := throttle.NewMemStore(), newTopKStore(cfg.Threshold)
		exact, small := newThrottle(t, mem, cfg), newThrottle(t, top, cfg)
		c := &clock{cfg: cfg}
		t.Repeat(machine(allKinds, func(t *rapid.T, k kind) {
			s := drawStep(t, c, k)
			same(t, s.call()+" exact vs top-k", apply(exact, s), apply(small, s))
		}, func(t *rapid.T) {
			sameChecks(t, exact, small, c.now)
			for _, k := range keyPool {
				n, _ := mem.Count(k, c.now, cfg.WindowSecs)
				m, _ := top.Count(k, c.now, cfg.WindowSecs)
				if m != min(n, cfg.Threshold) {
					t.Fatalf("Count(%q, %d, %d): top-k %d, exact %d, threshold %d", k, c.now, cfg.WindowSecs, m, n, cfg.Threshold)
				}
			}
		}))
	})
}

// foldChecks combines check results by THR-10 (and THR-9 for none).
func foldChecks(ds []throttle.Decision) throttle.Decision {
	if len(ds) == 0 {
		return allow(0)
	}
	var isBanned, isUnavailable bool
	var until uint64
	least := maxU
	for _, d := range ds {
		switch d.Verdict {
		case throttle.Banned:
			isBanned, until = true, max(until, d.Until)
		case throttle.Unavailable:
			isUnavailable = true
		default:
			least = min(least, d.Remaining)
		}
	}
	switch {
	case isBanned:
		return banned(until)
	case isUnavailable:
		return unavailable
	}
	return allow(least)
}

// TestProp18CheckAnyIsAFoldOfCheck checks PROP-18: check_any is the fold of
// check by THR-10: of one key it equals check, and it does not depend on the
// order of the keys.
func TestProp18CheckAnyIsAFoldOfCheck(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		fs := throttle.NewFaultStore(throttle.NewMemStore())
		th := newThrottle(t, fs, cfg)
		c := &clock{cfg: cfg}
		m := machine(mutators, func(t *rapid.T, k kind) { apply(th, drawStep(t, c, k)) }, func(*rapid.T) {})
		m["set_faults"] = func(t *rapid.T) { fs.SetFaults(drawFaults(t, "faults")...) }
		m["check_any"] = func(t *rapid.T) {
			keys := drawKeys(t, "keys")
			now := c.next(t, "now")
			var checks []throttle.Decision
			for _, k := range keys {
				checks = append(checks, th.Check(k, now))
			}
			got := th.CheckAny(keys, now)
			same(t, fmt.Sprintf("CheckAny(%q, %d) vs checks %+v", keys, now, checks), foldChecks(checks), got)
			perm := rapid.Permutation(keys).Draw(t, "permuted keys")
			same(t, fmt.Sprintf("CheckAny(%q, %d) vs CheckAny(%q, %d)", perm, now, keys, now), got, th.CheckAny(perm, now))
			if len(keys) == 1 {
				same(t, fmt.Sprintf("CheckAny(%q, %d) vs Check", keys, now), checks[0], got)
			}
		}
		t.Repeat(m)
	})
}

// TestProp19KeysAreIndependent checks PROP-19: keys are independent:
// operations on other keys never change a key's results. Throttle all gets
// every operation, throttle one only those on the focus key (and purges and
// fault rules, which have no key).
func TestProp19KeysAreIndependent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		focus := drawKey(t, "focus key")
		others := slices.DeleteFunc(slices.Clone(keyPool), func(k string) bool { return k == focus })
		fsAll, fsOne := throttle.NewFaultStore(throttle.NewMemStore()), throttle.NewFaultStore(throttle.NewMemStore())
		all, one := newThrottle(t, fsAll, cfg), newThrottle(t, fsOne, cfg)
		c := &clock{cfg: cfg}
		keyed := []kind{opCheck, opRecordFailure, opRecordFailure, opRecordSuccess, opReset}
		m := machine(keyed, func(t *rapid.T, k kind) {
			s := drawStep(t, c, k)
			s.key = focus
			same(t, s.call()+" with vs without other keys", apply(one, s), apply(all, s))
		}, func(t *rapid.T) {
			same(t, fmt.Sprintf("Check(%q, %d)", focus, c.now), one.Check(focus, c.now), all.Check(focus, c.now))
		})
		for _, k := range keyed {
			m["other "+string(k)+"#"+strconv.Itoa(len(m))] = func(t *rapid.T) {
				s := drawStep(t, c, k)
				s.key = rapid.SampledFrom(others).Draw(t, "other key")
				apply(all, s)
			}
		}
		m["purge_expired"] = func(t *rapid.T) {
			s := drawStep(t, c, opPurgeExpired)
			same(t, s.call()+" error", apply(one, s).Err, apply(all, s).Err)
		}
		m["set_faults"] = func(t *rapid.T) {
			rules := drawFaults(t, "faults")
			fsAll.SetFaults(rules...)
			fsOne.SetFaults(rules...)
		}
		t.Repeat(m)
	})
}

// matches is STORE-10's rule, written here on its own: does a rule fail op
// on key? keyed is false for purge.
func matches(rules []throttle.Fault, op throttle.Op, key string, keyed bool) bool {
	for _, r := range rules {
		if r.Op == op && (len(r.Keys) == 0 || keyed && slices.Contains(r.Keys, key)) {
			return true
		}
	}
	return false
}

// exportAll lets cmp compare the unexported state of MemStore.
var exportAll = cmp.Exporter(func(reflect.Type) bool { return true })

// TestProp20FailedOpHasNoEffect checks PROP-20: a failed store operation has
// no effect; a failed ban after a successful add_failure leaves the failure
// counted. A FaultStore wraps inner; shadow, a second MemStore, replays only
// the operations that must succeed, and the two must stay equal.
func TestProp20FailedOpHasNoEffect(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := drawConfig(t)
		inner, shadow := throttle.NewMemStore(), throttle.NewMemStore()
		fs := throttle.NewFaultStore(inner)
		th := newThrottle(t, fs, cfg)
		c := &clock{cfg: cfg}
		var rules []throttle.Fault
		fails := func(op throttle.Op, key string) bool { return matches(rules, op, key, op != throttle.OpPurge) }
		errOf := func(op throttle.Op, key string) result { return result{Err: storeErrTag(op, key)} }

		m := map[string]func(*rapid.T){}
		m["set_faults"] = func(t *rapid.T) {
			rules = drawFaults(t, "faults")
			fs.SetFaults(rules...)
		}
		m["store op"] = func(t *rapid.T) {
			op := rapid.SampledFrom(storeOps).Draw(t, "store op")
			key := drawKey(t, "key")
			if op == throttle.OpPurge {
				key = ""
			}
			now := c.next(t, "now")
			window := rapid.OneOf(rapid.Just(cfg.WindowSecs), rapid.Uint64()).Draw(t, "window")
			call, got := storeCall(fs, op, key, now, window)
			want := errOf(op, key)
			if !fails(op, key) {
				_, want = storeCall(shadow, op, key, now, window)
			}
			same(t, call, want, got)
		}
		m["record_failure"] = func(t *rapid.T) {
			s := drawStep(t, c, opRecordFailure)
			want := errOf(throttle.OpAddFailure, s.key)
			if !fails(throttle.OpAddFailure, s.key) {
				n, _ := shadow.AddFailure(s.key, s.at.sec, cfg.WindowSecs)
				switch {
				case n < cfg.Threshold:
					want = result{D: allow(cfg.Threshold - n)}
				case fails(throttle.OpBan, s.key):
					want = errOf(throttle.OpBan, s.key) // the failure stays counted
				default:
					u, _ := shadow.Ban(s.key, satAdd(s.at.sec, cfg.BanSecs))
					want = result{D: banned(u)}
				}
			}
			same(t, s.call(), want, apply(th, s))
		}
		m["record_success"] = func(t *rapid.T) {
			s := drawStep(t, c, opRecordSuccess)
			want := errOf(throttle.OpClearFailures, s.key)
			if !fails(throttle.OpClearFailures, s.key) {
				want = result{}
				_ = shadow.ClearFailures(s.key)
			}
			same(t, s.call(), want, apply(th, s))
		}
		m["reset"] = func(t *rapid.T) {
			s := drawStep(t, c, opReset)
			want := errOf(throttle.OpClear, s.key)
			if !fails(throttle.OpClear, s.key) {
				want = result{}
				_ = shadow.Clear(s.key)
			}
			same(t, s.call(), want, apply(th, s))
		}
		m["purge_expired"] = func(t *rapid.T) {
			s := drawStep(t, c, opPurgeExpired)
			want := errOf(throttle.OpPurge, "")
			if !fails(throttle.OpPurge, "") {
				n, _ := shadow.Purge(s.at.sec, cfg.WindowSecs)
				want = result{N: n}
			}
			same(t, s.call(), want, apply(th, s))
		}
		m["check"] = func(t *rapid.T) { apply(th, drawStep(t, c, opCheck)) }
		m[""] = func(t *rapid.T) {
			same(t, "inner store vs shadow replay", observe(shadow, c.now, cfg.WindowSecs), observe(inner, c.now, cfg.WindowSecs))
			if diff := cmp.Diff(shadow, inner, exportAll); diff != "" {
				t.Fatalf("inner store state vs shadow replay (-shadow +inner):\n%s", diff)
			}
		}
		t.Repeat(m)
	})
}

// storeCall runs one store operation and returns the call and its result.
func storeCall(s throttle.Store, op throttle.Op, key string, now, window uint64) (string, result) {
	var r result
	var err error
	var call string
	switch op {
	case throttle.OpBanUntil:
		call = fmt.Sprintf("BanUntil(%q)", key)
		r.N, err = s.BanUntil(key)
	case throttle.OpCount:
		call = fmt.Sprintf("Count(%q, %d, %d)", key, now, window)
		r.N, err = s.Count(key, now, window)
	case throttle.OpAddFailure:
		call = fmt.Sprintf("AddFailure(%q, %d, %d)", key, now, window)
		r.N, err = s.AddFailure(key, now, window)
	case throttle.OpBan:
		call = fmt.Sprintf("Ban(%q, %d)", key, now)
		r.N, err = s.Ban(key, now)
	case throttle.OpClearFailures:
		call = fmt.Sprintf("ClearFailures(%q)", key)
		err = s.ClearFailures(key)
	case throttle.OpClear:
		call = fmt.Sprintf("Clear(%q)", key)
		err = s.Clear(key)
	case throttle.OpPurge:
		call = fmt.Sprintf("Purge(%d, %d)", now, window)
		r.N, err = s.Purge(now, window)
	}
	r.Err = errTag(err)
	return call, r
}

// observation is what the store operations can see of every pool key.
type observation struct {
	Tracked int
	Until   []uint64 // BanUntil per pool key
	Live    []uint64 // Count at now with the window, per pool key
	All     []uint64 // Count at 0 with window MaxUint64: every stamp, per pool key
}

func observe(s *throttle.MemStore, now, window uint64) observation {
	o := observation{Tracked: s.Tracked()}
	for _, k := range keyPool {
		u, _ := s.BanUntil(k)
		live, _ := s.Count(k, now, window)
		all, _ := s.Count(k, 0, maxU)
		o.Until, o.Live, o.All = append(o.Until, u), append(o.Live, live), append(o.All, all)
	}
	return o
}

// TestProp21ThresholdthFailureBans checks PROP-21: the threshold-th failure
// bans: on a fresh key, failures at times within one window return
// allow{threshold - i} for the i-th, i < threshold, and banned for the
// threshold-th. Failures past the threshold stay banned, never shorter.
func TestProp21ThresholdthFailureBans(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := throttle.Config{
			Threshold:  rapid.OneOf(rapid.Just(uint64(1)), rapid.Uint64Range(2, 12)).Draw(t, "threshold"),
			WindowSecs: drawSpan(t, "window_secs"),
			BanSecs:    drawSpan(t, "ban_secs"),
		}
		th := newThrottle(t, throttle.NewMemStore(), cfg)
		key := drawKey(t, "key")
		first := rapid.OneOf(
			rapid.Uint64Range(0, 3), rapid.Uint64Range(0, 2000), rapid.Uint64Range(maxU-2000, maxU), rapid.Uint64(),
		).Draw(t, "window start")
		last := satAdd(first, cfg.WindowSecs-1)
		var until uint64
		for i := uint64(1); i <= cfg.Threshold+2; i++ {
			now := rapid.OneOf(rapid.Just(first), rapid.Just(last), rapid.Uint64Range(first, last)).Draw(t, fmt.Sprintf("failure %d at", i))
			want, wantCheck := allow(cfg.Threshold-min(i, cfg.Threshold)), allow(cfg.Threshold-min(i, cfg.Threshold))
			if i >= cfg.Threshold {
				until = max(until, satAdd(now, cfg.BanSecs))
				want = banned(until)
				if now < until {
					wantCheck = want
				}
			}
			got, err := th.RecordFailure(key, now)
			if err != nil {
				t.Fatalf("RecordFailure(%q, %d) = %v", key, now, err)
			}
			same(t, fmt.Sprintf("failure %d: RecordFailure(%q, %d)", i, key, now), want, got)
			same(t, fmt.Sprintf("after failure %d: Check(%q, %d)", i, key, now), wantCheck, th.Check(key, now))
		}
	})
}

// anyUint64 draws any uint64, biased to 0, 1 and MaxUint64.
func anyUint64(t *rapid.T, label string) uint64 {
	return rapid.OneOf(rapid.Just(uint64(0)), rapid.Just(uint64(1)), rapid.Just(maxU), rapid.Uint64()).Draw(t, label)
}

// anyKey draws a pool key or any byte string.
func anyKey(t *rapid.T, label string) string {
	bytes := rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, 8), func(b []byte) string { return string(b) })
	return rapid.OneOf(rapid.SampledFrom(keyPool), rapid.String(), bytes).Draw(t, label)
}

// TestProp22ThrottleIsTotal checks the throttle part of PROP-22: totality:
// no input in the domains above makes any model function panic (any config,
// a missing store, any time, any key, any fault rules).
func TestProp22ThrottleIsTotal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := throttle.Config{
			Threshold:  anyUint64(t, "threshold"),
			WindowSecs: anyUint64(t, "window_secs"),
			BanSecs:    anyUint64(t, "ban_secs"),
		}
		_ = cfg.Validate()
		_ = throttle.BanUntil(anyUint64(t, "now"), anyUint64(t, "ban_secs"))
		_ = throttle.InWindow(anyUint64(t, "stamp"), anyUint64(t, "window"), anyUint64(t, "now"))
		_ = throttle.IsBanned(anyUint64(t, "until"), anyUint64(t, "now"))
		fs := throttle.NewFaultStore(throttle.NewMemStore())
		var store throttle.Store = fs
		if rapid.IntRange(0, 7).Draw(t, "store (0: nil)") == 0 {
			store = nil
		}
		th, err := throttle.New(store, cfg)
		if err != nil {
			if !errors.Is(err, throttle.ErrConfig) {
				t.Fatalf("New(%v, %+v) = %v, want ErrConfig", store, cfg, err)
			}
			return
		}
		_ = th.Config()
		t.Repeat(map[string]func(*rapid.T){
			"check": func(t *rapid.T) { th.Check(anyKey(t, "key"), anyUint64(t, "now")) },
			"check_any": func(t *rapid.T) {
				th.CheckAny(rapid.SliceOfN(rapid.String(), 0, 4).Draw(t, "keys"), anyUint64(t, "now"))
			},
			"record_failure": func(t *rapid.T) {
				if _, err := th.RecordFailure(anyKey(t, "key"), anyUint64(t, "now")); err != nil {
					_ = err.Error()
				}
			},
			"record_success": func(t *rapid.T) { _ = th.RecordSuccess(anyKey(t, "key")) },
			"reset":          func(t *rapid.T) { _ = th.Reset(anyKey(t, "key")) },
			"purge_expired": func(t *rapid.T) {
				if _, err := th.PurgeExpired(anyUint64(t, "now")); err != nil {
					_ = err.Error()
				}
			},
			"set_faults": func(t *rapid.T) { fs.SetFaults(drawFaults(t, "faults")...) },
			"":           func(*rapid.T) { _ = fs.Faults() },
		})
	})
}
