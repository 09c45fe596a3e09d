package oracle

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/limcheck/limcheck/model/lim"
	"pgregory.net/rapid"
)

// GenGateConfig draws a gate config: lim parameters at 1, small, at a
// power of two +-1 and at the extremes, maxif 1..4 3 times in 4 (so that the
// in-flight gate sheds), sets 1, 2, 3, 64 or 4096 (or any up to 4096), and
// 1 time in 16 at a width's edge up to MaxInt64 (gateSets), ways 1..4 most
// often (a set fills and evicts within a short trace), else up to 16 or at a
// width's edge up to MaxInt64 (gateWays), tick_nanos 1, 1e6, 1e9 or huge; 1
// time in 16 one field is < 1, a config every subject refuses (GATE-1).
func GenGateConfig() *rapid.Generator[GateConfig] { return custom(genGateConfig) }

// genGateConfig is GenGateConfig's draw.
func genGateConfig(t src) GateConfig {
	v := []int64{
		genPositive(t), genPositive(t), genPositive(t),
		gateMaxif(t), gateSets(t), gateWays(t), gateTick(t),
	}
	if rare(t, "invalid gate config", 4) {
		v[t.intRange(0, 6, "invalid field")] = pick(t, "invalid value", int64(0), -1, math.MinInt64)
	}
	return GateConfig{Cap: I(v[0]), Refil: I(v[1]), Ivl: I(v[2]), Maxif: I(v[3]), Sets: I(v[4]), Ways: I(v[5]), TickNanos: I(v[6])}
}

// gateMaxif draws maxif: 1..4 3 times in 4 (the gate sheds), else any.
func gateMaxif(t src) int64 {
	if !rare(t, "any maxif", 2) {
		return t.int64Range(1, 4, "small maxif")
	}
	return genPositive(t)
}

// gateSets draws sets: 1, 2, 3, 64 or 4096 3 times in 4; 1 time in 16 a
// size at a width's edge (2^e+-1 for e in 3..62, MaxInt64: a table capped
// or a count kept in 16 or 32 bits), where impl's preallocated table may
// be beyond its limit (then the trace is skipped); else 1..4096.
func gateSets(t src) int64 {
	if !rare(t, "any sets", 2) {
		return pick(t, "sets", int64(1), 2, 3, 64, 4096)
	}
	if rare(t, "sets at a width's edge", 2) {
		return pow2EdgePositive(t)
	}
	return t.int64Range(1, 4096, "any sets")
}

// gateWays draws ways: 1, 2, 3 or 4 3 times in 4, so that the pool's set
// mates (more than ways of them) fill a set and evict; 1 time in 64 a size
// at a width's edge up to MaxInt64 (sets 1, ways MaxInt64 never evicts;
// rarer than sets' edges, so that tables past impl's limits stay rare);
// else 1..16.
func gateWays(t src) int64 {
	if !rare(t, "any ways", 2) {
		return pick(t, "ways", int64(1), 2, 3, 4)
	}
	if rare(t, "ways at a width's edge", 4) {
		return pow2EdgePositive(t)
	}
	return t.int64Range(1, 16, "any ways")
}

// gateTick draws tick_nanos: 1, 1e6, 1e9, 2^62 or MaxInt64 3 times in 4,
// else any positive.
func gateTick(t src) int64 {
	if !rare(t, "any tick_nanos", 2) {
		return pick(t, "tick_nanos", int64(1), 1_000_000, 1_000_000_000, 1<<62, math.MaxInt64)
	}
	return genPositive(t)
}

// EdgeIPs returns the addresses GenIP favours: the FIND-2 colliding pair,
// FIND-3's two spellings of ::1, FIND-12's leading-NUL twins, the empty
// string, non-ASCII text, invalid UTF-8 and two long strings that share
// their first 900 bytes (longKeys).
func EdgeIPs() []string { return slices.Clone(edgeIPs) }

// edgeIPs is what EdgeIPs returns, built once: never write to it.
var edgeIPs = []string{
	"10.17.102.130", "10.23.191.7", // FIND-2: one key
	"a", "\x00a", "\x00\x00a", // FIND-12: one key
	"::1", "0:0:0:0:0:0:0:1", // FIND-3: two keys
	"", "h\u00e9llo", "\u65e5\u672c", "\xff\xfe", "\xc3\x28", "192.168.1.1", "10.0.0.1",
	longKeys[0], longKeys[1], // a key hashed over a prefix only
}

// GenIP draws an address: one of EdgeIPs 4 times in 5, else any bytes, any
// UTF-8 text or a dotted quad.
func GenIP() *rapid.Generator[string] { return custom(genIP) }

// genIP is GenIP's draw.
func genIP(t src) string {
	switch t.intRange(0, 7, "ip source") {
	case 0:
		return randomBytes(t, 24, "ip bytes")
	case 1:
		return t.text(12, "ip text")
	case 2:
		var q [4]int
		for i := range q {
			q[i] = t.intRange(0, 255, "ipv4")
		}
		return fmt.Sprintf("%d.%d.%d.%d", q[0], q[1], q[2], q[3])
	}
	return pick(t, "edge ip", edgeIPs...)
}

// gateState is what a gate OpGen remembers: the config, the address pool
// (EdgeIPs and set mates: more addresses of one set than it has ways, up to
// maxMates), the addresses admitted and the times of recent admits.
type gateState struct {
	ivl     int64
	ips     []string
	mates   []string // addresses of the set of 10.0.0.1: a flood of one set
	touched []string
	seen    map[string]bool
	times   []int64 // the last admits' times, at most maxTimes
	nowSet  bool
	now     int64
}

// maxMates bounds the set mates of the pool: ways+1 of them up to 4 ways.
const maxMates = 5

const maxTimes = 8

// newGateState reads what the draws need from cfg (ivl 1 and one set of
// one way when cfg is invalid).
func newGateState(cfg Config) gateState {
	_, _, ivl, _, sets, ways, _, err := cfg.GateConfig()
	if err != nil || sets < 1 || ways < 1 {
		ivl, sets, ways = 1, 1, 1
	}
	mates := append([]string{"10.0.0.1"}, slotSharers("10.0.0.1", sets, int(min(ways, maxMates-1)))...)
	return gateState{ivl: max(ivl, 1), ips: append(EdgeIPs(), mates...), mates: mates, seen: map[string]bool{}}
}

// sharers caches slotSharers by its arguments: a search costs up to a few
// milliseconds, and a run draws the same few slot counts again and again.
var sharers sync.Map // map[int64][]string

// slotSharers returns up to n dotted quads 10.0.x.y whose set among slots
// sets is the set of ip (GATE-13): addresses that compete for its ways.
func slotSharers(ip string, slots int64, n int) []string {
	type key struct {
		ip    string
		slots int64
		n     int
	}
	k := key{ip, slots, n}
	if v, ok := sharers.Load(k); ok {
		return v.([]string)
	}
	out := searchSharers(ip, slots, n)
	sharers.Store(k, out)
	return out
}

// searchSharers is slotSharers without the cache: the first n quads
// 10.0.x.y (i = x<<8|y from 1 up, ip excepted) whose set is ip's. It reads
// the candidates' keys from quadKeys, computed once, so a slot count costs
// no hashing: a scan of the keys up to the n-th sharer, or, where that is
// longer, a lookup of each key that is ip's set (want, want+slots, ...,
// below KeyPrime: one for a slot count past every key). Either way the
// result is the same; the scan ran up to 65,535 times a slot count, the
// fuzzer's hottest path, when slot counts are drawn from the whole domain
// and a run meets many.
func searchSharers(ip string, slots int64, n int) []string {
	q := quadKeys()
	want := lim.IPKey(ip) % slots
	sets := (lim.KeyPrime-1-want)/slots + 1 // keys in ip's set: want + k*slots < KeyPrime
	scan := int64(len(q.keys))              // the candidates a scan reads: to the n+1-th sharer (ip may be one), about slots apart
	if slots < scan {
		scan = min(scan, slots*int64(n+1))
	}
	var idx []int
	if sets*16 >= scan { // a lookup costs about 16 steps of a scan
		for i := 1; i < len(q.keys) && len(idx) <= n; i++ {
			if int64(q.keys[i])%slots == want {
				idx = append(idx, i)
			}
		}
	} else {
		for k := want; k < lim.KeyPrime; k += slots {
			idx = q.lookup(uint32(k), idx)
			if k > lim.KeyPrime-slots {
				break // the next k overflows or passes KeyPrime
			}
		}
		slices.Sort(idx)
	}
	var out []string
	for _, i := range idx {
		if cand := quad(i); cand != ip && len(out) < n {
			out = append(out, cand)
		}
	}
	return out
}

// quadTable is the LIM-16 key of every quad 10.0.x.y (keys[i], i =
// x<<8|y; keys[0] unused), and the same indexed by key: byKey holds key<<16
// | i for every i >= 1, in order.
type quadTable struct {
	keys  []uint32
	byKey []uint64
}

var quadOnce = sync.OnceValue(newQuadTable)

// quadKeys returns the table, computing it on first use (65,535 keys).
func quadKeys() *quadTable { return quadOnce() }

func newQuadTable() *quadTable {
	q := &quadTable{keys: make([]uint32, 1<<16), byKey: make([]uint64, 0, 1<<16-1)}
	for i := 1; i < 1<<16; i++ {
		k := lim.IPKey(quad(i)) // < KeyPrime < 2^32
		q.keys[i] = uint32(k)
		q.byKey = append(q.byKey, uint64(k)<<16|uint64(i))
	}
	slices.Sort(q.byKey)
	return q
}

// lookup appends the index of every quad whose key is k to idx.
func (q *quadTable) lookup(k uint32, idx []int) []int {
	j, _ := slices.BinarySearch(q.byKey, uint64(k)<<16)
	for ; j < len(q.byKey) && uint32(q.byKey[j]>>16) == k; j++ {
		idx = append(idx, int(q.byKey[j]&0xffff))
	}
	return idx
}

// quad returns the dotted quad 10.0.x.y of i = x<<8|y.
func quad(i int) string {
	return "10.0." + strconv.Itoa(i>>8) + "." + strconv.Itoa(i&255)
}

// observe records an admit's time and the address it touched.
func (s *gateState) observe(op Op, r Result) {
	if op.Kind != Admit {
		return
	}
	s.now, _ = op.Now.Int64()
	s.nowSet = true
	s.times = append(s.times, s.now)
	if len(s.times) > maxTimes {
		s.times = s.times[1:]
	}
	if r.Verdict == VerdictPass || r.Verdict == VerdictLimited { // a shed touches nothing (GATE-4)
		if ip := string(*op.IP); !s.seen[ip] {
			s.seen[ip] = true
			s.touched = append(s.touched, ip)
		}
	}
}

// drawGate draws a gate op of kind k.
func (g *OpGen) drawGate(t src, k Kind) Op {
	s := &g.gate
	switch k {
	case Admit:
		return Op{Kind: k, IP: bytesOf(s.ip(t)), Now: I(s.time(t))}
	case Bucket:
		return Op{Kind: k, IP: bytesOf(s.readIP(t)), Now: I(s.time(t))}
	}
	return Op{Kind: k}
}

// ip draws a set mate 3 times in 8 (a flood of one set), else from the pool
// 7 times in 8, else any address.
func (s *gateState) ip(t src) string {
	if t.intRange(0, 7, "ip from") < 3 {
		return pick(t, "set mate", s.mates...)
	}
	if !rare(t, "ip off the pool", 3) {
		return pick(t, "pool ip", s.ips...)
	}
	return genIP(t)
}

// time draws an admit time: whole steps +-1 from the previous admit or an
// earlier one (a slot's birth: its refill boundaries), a step back, or an
// absolute edge.
func (s *gateState) time(t src) int64 {
	switch t.intRange(0, 9, "now from") {
	case 0, 1, 2, 3:
		if s.nowSet {
			return addSat(s.now, stepDelta(t, s.ivl))
		}
	case 4, 5, 6:
		if len(s.times) > 0 {
			return addSat(pick(t, "earlier admit", s.times...), stepDelta(t, s.ivl))
		}
	}
	return absInt64Time(t)
}

// readIP draws an address to read: an admitted one mostly (held, evicted or
// full by now), else one admits may draw.
func (s *gateState) readIP(t src) string {
	if t.intRange(0, 9, "read band") < 7 && len(s.touched) > 0 {
		return pick(t, "admitted ip", s.touched...)
	}
	return s.ip(t)
}
