//go:build !fuzzsmoke

package fuzz

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	ithrottle "github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/limcheck/limcheck/internal/subject"
)

// The reservation histories' throttle: threshold 3, window 10, ban 5, and
// 3 stamps kept a key.
var linResConfig = ithrottle.Config{Threshold: 3, WindowSecs: 10, BanSecs: 5}

// linResKeys are the keys of the reservation histories.
var linResKeys = []string{"ip:a", "acct:b"}

// linResIn is one operation of a reservation history: op (reserve, fail,
// cancel or check) on key at now; held is reserve's; name is the
// reservation that reserve makes, or that fail and cancel settle ("" for
// fail: a failure with no reservation).
type linResIn struct {
	op, key   string
	now, held uint64
	name      string
}

// String names the operation.
func (in linResIn) String() string {
	return fmt.Sprintf("%s(%s, t=%d, held %d, %q)", in.op, in.key, in.now, in.held, in.name)
}

// linResKey is one key's state in linResModel: its kept stamps (the k
// largest, descending), its ban-until and its reservations by name.
type linResKey struct {
	stamps []uint64
	ban    uint64
	holds  map[string]uint64
}

// linResModel is the sequential specification of a throttle over a
// ReserveStore, written from the ReserveStore and Throttle docs: check,
// Reserve (a reservation out of the window is dropped when its key is next
// reserved), FailReserved (FailAndBan, and the reservation ends) and
// CancelReserved.
type linResModel struct{ keys map[string]*linResKey }

func newLinResModel() linMachine[linResIn, string, string] {
	return &linResModel{keys: map[string]*linResKey{}}
}

// key returns key's state, empty at first.
func (m *linResModel) key(key string) *linResKey {
	k := m.keys[key]
	if k == nil {
		k = &linResKey{holds: map[string]uint64{}}
		m.keys[key] = k
	}
	return k
}

// count is how many of k's kept stamps count at now.
func (k *linResKey) count(now uint64) uint64 {
	var n uint64
	for _, t := range k.stamps {
		if ithrottle.InWindow(t, linResConfig.WindowSecs, now) {
			n++
		}
	}
	return n
}

// decide is check's decision on k at now, rendered.
func (k *linResKey) decide(now uint64) string {
	if ithrottle.IsBanned(k.ban, now) {
		return fmt.Sprintf("banned %d", k.ban)
	}
	return fmt.Sprintf("allow %d", linResConfig.Threshold-min(k.count(now), linResConfig.Threshold))
}

func (m *linResModel) apply(in linResIn) string {
	k, th := m.key(in.key), linResConfig.Threshold
	switch in.op {
	case "check":
		return k.decide(in.now)
	case "reserve":
		maps.DeleteFunc(k.holds, func(_ string, t uint64) bool { return !ithrottle.InWindow(t, linResConfig.WindowSecs, in.now) })
		c, held, p := k.count(in.now), uint64(len(k.holds)), uint64(len(k.holds))+in.held
		made := !ithrottle.IsBanned(k.ban, in.now) && !(p > 0 && c+p >= th)
		if made {
			k.holds[in.name] = in.now
		}
		return fmt.Sprintf("%s held %d made %v", k.decide(in.now), held, made)
	case "fail":
		k.stamps = append(k.stamps, in.now)
		slices.SortFunc(k.stamps, func(a, b uint64) int { return -cmpU64(a, b) })
		k.stamps = k.stamps[:min(len(k.stamps), 3)]
		delete(k.holds, in.name)
		if c := k.count(in.now); c < th {
			return fmt.Sprintf("allow %d", th-c)
		}
		k.ban = max(k.ban, ithrottle.BanUntil(in.now, linResConfig.BanSecs))
		return fmt.Sprintf("banned %d", k.ban)
	case "cancel":
		delete(k.holds, in.name)
		return ""
	}
	panic("linResModel: unknown op " + in.op)
}

// cmpU64 orders uint64s.
func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// snapshot renders every key's state canonically.
func (m *linResModel) snapshot() string {
	var b strings.Builder
	for _, key := range slices.Sorted(maps.Keys(m.keys)) {
		k := m.keys[key]
		fmt.Fprintf(&b, "%s %v %d", key, k.stamps, k.ban)
		for _, name := range slices.Sorted(maps.Keys(k.holds)) {
			fmt.Fprintf(&b, " %s@%d", name, k.holds[name])
		}
		b.WriteByte(';')
	}
	return b.String()
}

// linResHeld is a reservation a client made and has not settled.
type linResHeld struct{ name, key, id string }

// linResClient is one node of a reservation history: it reserves, fails,
// cancels and checks on the keys through thr at the shared clock, settling
// (or leaking) its own reservations.
func linResClient(thr *ithrottle.Throttle, clock *linClock, n int) func(*linClient, *rand.Rand) {
	return func(c *linClient, rng *rand.Rand) {
		var mine []linResHeld
		for i := range n {
			in := linResIn{key: linResKeys[rng.IntN(len(linResKeys))], now: uint64(clock.next(rng))}
			id := ""
			switch r := rng.IntN(20); {
			case r < 8:
				in.op, in.held, in.name = "reserve", uint64(rng.IntN(4)/3), fmt.Sprintf("c%d.%d", c.id, i)
			case r < 15 && len(mine) > 0:
				j := rng.IntN(len(mine))
				in.op, in.key, in.name, id = "fail", mine[j].key, mine[j].name, mine[j].id
				if r >= 12 {
					in.op = "cancel"
				}
				mine = slices.Delete(mine, j, j+1)
			case r < 16:
				in.op = "fail"
			default:
				in.op = "check"
			}
			var made string
			linDo(c, in, func() string {
				out, got := linResCall(thr, in, id)
				made = got
				return out
			})
			if made != "" {
				mine = append(mine, linResHeld{name: in.name, key: in.key, id: made})
			}
			if rng.IntN(3) == 0 {
				runtime.Gosched()
			}
		}
	}
}

// linResCall runs in on thr (id: the reservation fail and cancel settle)
// and renders its result as linResModel does; for a reserve, it also
// returns the id made ("" when none).
func linResCall(thr *ithrottle.Throttle, in linResIn, id string) (string, string) {
	render := func(d ithrottle.Decision) string {
		if d.Verdict == ithrottle.Banned {
			return fmt.Sprintf("banned %d", d.Until)
		}
		return fmt.Sprintf("%s %d", d.Verdict, d.Remaining)
	}
	var d ithrottle.Decision
	var err error
	switch in.op {
	case "check":
		return render(thr.Check(in.key, in.now)), ""
	case "reserve":
		r, err := thr.Reserve(in.key, in.now, in.held)
		if err != nil {
			return "error " + err.Error(), ""
		}
		return fmt.Sprintf("%s held %d made %v", render(r.Decision), r.Held, r.ID != ""), r.ID
	case "fail":
		d, err = thr.FailReserved(in.key, id, in.now)
	case "cancel":
		err = thr.CancelReserved(in.key, id)
		if err == nil {
			return "", ""
		}
	}
	if err != nil {
		return "error " + err.Error(), ""
	}
	return render(d), ""
}

// linResModelByKey is the reservation model, checked key by key: every
// operation touches one key.
func linResModelByKey() porcupine.Model {
	return linModel(newLinResModel, func(in linResIn) string { return in.key })
}

// linResVerdict tallies a reserve's outcome (made, busy, banned) from its
// output; other outputs are not counted.
func linResVerdict(out any) string {
	s := out.(string)
	switch {
	case !strings.Contains(s, " made "):
		return ""
	case strings.HasSuffix(s, "made true"):
		return "made"
	case strings.HasPrefix(s, "banned"):
		return "banned"
	}
	return "busy"
}

// TestLinReserveOverOneMemStoreIsLinearizable checks that concurrent
// histories of four throttles ("nodes") over one MemStore, reserving,
// failing, cancelling (or leaking) reservations and checking two keys at a
// clock that also steps back, are linearizable with respect to
// linResModel, key by key: Reserve is one atomic check-and-reserve,
// FailReserved one atomic settle. The histories must reserve, refuse as
// busy and as banned.
func TestLinReserveOverOneMemStoreIsLinearizable(t *testing.T) {
	seen := map[string]int{}
	for round := range *linRounds {
		mem, err := ithrottle.NewMemStore(ithrottle.MemConfig{StampsPerKey: 3})
		if err != nil {
			t.Fatal(err)
		}
		thrs := make([]*ithrottle.Throttle, linClients)
		for i := range thrs {
			if thrs[i], err = ithrottle.New(mem, linResConfig); err != nil {
				t.Fatal(err)
			}
		}
		clock := new(linClock)
		h := linRun(linClients, linSeed(t.Name(), round), func(c *linClient, rng *rand.Rand) {
			linResClient(thrs[c.id], clock, linOpsPerClient)(c, rng)
		})
		linRequire(t, linResModelByKey(), h, fmt.Sprintf("reservation history %d", round))
		linTally(seen, h, linResVerdict)
	}
	linRequireSeen(t, seen, "made", "busy", "banned")
}

// TestLinRedisReserveIsLinearizable is TestLinReserveOverOneMemStoreIsLinearizable
// over one redis-server: four nodes, each its own client and redisstore,
// one namespace. reserve.lua checks and reserves in one script, add.lua
// settles in one.
func TestLinRedisReserveIsLinearizable(t *testing.T) {
	srv, r := sharedRedis(t)
	clients := linRedisClients(t, srv.Addr())
	seen := map[string]int{}
	for round := range redisLinRounds() {
		ns := r.Namespace()
		thrs := make([]*ithrottle.Throttle, len(clients))
		for i, c := range clients {
			s, err := redisstore.New(redisstore.Config{Client: c, Namespace: ns, StampsPerKey: 3, TTL: subject.RedisTTL})
			if err != nil {
				t.Fatal(err)
			}
			if thrs[i], err = ithrottle.New(s, linResConfig); err != nil {
				t.Fatal(err)
			}
		}
		clock := new(linClock)
		h := linRun(linClients, linSeed(t.Name(), round), func(c *linClient, rng *rand.Rand) {
			linResClient(thrs[c.id], clock, linOpsPerClient)(c, rng)
		})
		linRequire(t, linResModelByKey(), h, fmt.Sprintf("reservation history %d", round))
		linTally(seen, h, linResVerdict)
	}
	linRequireSeen(t, seen, "made", "busy", "banned")
}
