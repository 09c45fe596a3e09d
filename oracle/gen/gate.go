package gen

import (
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/limcheck/limcheck/model/gate"
	"github.com/limcheck/limcheck/model/lim"
	"github.com/limcheck/limcheck/oracle"
	"pgregory.net/rapid"
)

// GateConfig draws a gate config: lim parameters at 1, small, at a
// power of two +-1 and at the extremes, maxif 1..4 3 times in 4 (so that the
// in-flight gate sheds), sets 1, 2, 3, 64 or 4096 (or any up to 4096), and
// 1 time in 16 at a width's edge up to MaxInt64 (gateSets), ways 1..4 most
// often (a set fills and evicts within a short trace), else up to 16 or at a
// width's edge up to MaxInt64 (gateWays), tick_nanos 1, 1e6, 1e9 or huge; 1
// time in 16 one field is < 1, a config every subject refuses (GATE-1); and
// a seed (gateSeed).
func GateConfig() *rapid.Generator[oracle.GateConfig] { return custom(genGateConfig) }

// genGateConfig is GateConfig's draw.
func genGateConfig(t src) oracle.GateConfig {
	v := []int64{
		genPositive(t), genPositive(t), genPositive(t),
		gateMaxif(t), gateSets(t), gateWays(t), gateTick(t),
	}
	if rare(t, "invalid gate config", 4) {
		v[t.intRange(0, 6, "invalid field")] = pick(t, "invalid value", int64(0), -1, math.MinInt64)
	}
	return oracle.GateConfig{Cap: oracle.I(v[0]), Refil: oracle.I(v[1]), Ivl: oracle.I(v[2]), Maxif: oracle.I(v[3]), Sets: oracle.I(v[4]), Ways: oracle.I(v[5]), TickNanos: oracle.I(v[6]),
		Seed: gateSeed(t)}
}

// GateSeeds returns the seeds GateConfig favours, as text (32 lowercase hex
// digits, spec VEC-9): the zero seed, the spec's check-value seed
// (GATE-18), all 0xff, and one with no pattern. The fuzz targets' decoder
// picks among them too.
func GateSeeds() []string { return slices.Clone(gateSeeds) }

// gateSeeds are the seeds gateSeed favours, as text: the zero seed, the
// spec's check-value seed (GATE-18), all 0xff, and one with no pattern. A
// port that ignores the seed, reads it or the key in another byte order or
// runs another SipHash places keys elsewhere under all but, at most, one.
var gateSeeds = []string{
	"00000000000000000000000000000000",
	"000102030405060708090a0b0c0d0e0f",
	"ffffffffffffffffffffffffffffffff",
	"8f3ac2105d7e9b64e1f0a7c35b2d9e48",
}

// gateSeed draws a seed: one of gateSeeds 15 times in 16 (their set mates
// are found once, seedQuads), else any 16 bytes.
func gateSeed(t src) string {
	if !rare(t, "any seed", 4) {
		return pick(t, "seed", gateSeeds...)
	}
	var b [16]byte
	for i := range b {
		b[i] = byte(t.intRange(0, 255, "seed byte"))
	}
	return hex.EncodeToString(b[:])
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

// EdgeIPs returns the addresses IP favours: the FIND-2 colliding pair,
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

// IP draws an address: one of EdgeIPs 4 times in 5, else any bytes, any
// UTF-8 text or a dotted quad.
func IP() *rapid.Generator[string] { return custom(genIP) }

// genIP is IP's draw.
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

// gateState is what a gate Ops remembers: the config, the address pool
// (EdgeIPs and set mates: more addresses of one set than it has ways, up to
// maxMates), the addresses admitted and the times of recent admits.
type gateState struct {
	ivl     int64
	ips     []string
	mates   []string // addresses of the set of 10.0.0.1 under the seed: a flood of one set
	touched []string
	seen    map[string]bool
	times   []int64 // the last admits' times, at most maxTimes
	nowSet  bool
	now     int64
}

// maxMates bounds the set mates of the pool: ways+1 of them up to 4 ways.
const maxMates = 5

const maxTimes = 8

// mateIP is the address whose set the pool's set mates share.
const mateIP = "10.0.0.1"

// newGateState reads what the draws need from cfg (ivl 1 and one set of
// one way when cfg is invalid).
func newGateState(cfg oracle.Config) gateState {
	_, _, ivl, _, sets, ways, _, err := cfg.GateConfig()
	if err != nil || sets < 1 || ways < 1 {
		ivl, sets, ways = 1, 1, 1
	}
	var mates []string
	if seed, err := cfg.GateSeed(); err == nil {
		mates = setSharers(seed, sets)
	}
	mates = append([]string{mateIP}, mates[:min(len(mates), int(min(ways, maxMates-1)))]...)
	return gateState{ivl: max(ivl, 1), ips: append(EdgeIPs(), mates...), mates: mates, seen: map[string]bool{}}
}

// sharers caches setSharers of gateSeeds by seed and set count: a scan
// costs up to a fraction of a millisecond, and a run draws the same few
// set counts again and again.
var sharers sync.Map // map[sharersKey][]string

type sharersKey struct {
	seed gate.Seed
	sets int64
}

// setSharers returns up to maxMates-1 dotted quads 10.0.x.y (i = x<<8|y
// from 1 up, mateIP excepted), the first whose set among sets sets under
// seed is the set of mateIP (GATE-13, GATE-18): addresses that compete for
// its ways. For gateSeeds it reads the quads' hashes from seedQuads,
// computed once a seed, and caches its answer; for another seed it hashes
// the first randomQuads quads only, so that a trace of a random seed costs
// little and finds mates where sets are few.
func setSharers(seed gate.Seed, sets int64) []string {
	k := sharersKey{seed, sets}
	if v, ok := sharers.Load(k); ok {
		return v.([]string)
	}
	hashes, cached := seedQuads(seed)
	if !cached {
		hashes = make([]uint64, min(randomQuads, 1<<16))
		for i := 1; i < len(hashes); i++ {
			hashes[i] = gate.SipHash(seed, uint64(quadKeys().keys[i]))
		}
	}
	out := searchSharers(hashes, gate.SipHash(seed, uint64(lim.IPKey(mateIP)))%uint64(sets), uint64(sets), maxMates-1)
	if cached {
		sharers.Store(k, out)
	}
	return out
}

// randomQuads is how many quads setSharers hashes for a seed not among
// gateSeeds: about 50 microseconds.
const randomQuads = 4096

// searchSharers returns the first n quads i >= 1 (mateIP excepted) of
// hashes[i] mod sets = want.
func searchSharers(hashes []uint64, want, sets uint64, n int) []string {
	var out []string
	for i := 1; i < len(hashes) && len(out) < n; i++ {
		if hashes[i]%sets == want {
			if cand := quad(i); cand != mateIP {
				out = append(out, cand)
			}
		}
	}
	return out
}

// seedHashes holds, for each of gateSeeds, the SipHash under it of the
// LIM-16 key of every quad 10.0.x.y (index i = x<<8|y; 0 unused).
var seedHashes = sync.OnceValue(func() map[gate.Seed][]uint64 {
	m := map[gate.Seed][]uint64{}
	for _, text := range gateSeeds {
		seed, _ := oracle.ParseSeed(text) // well formed
		h := make([]uint64, 1<<16)
		for i := 1; i < len(h); i++ {
			h[i] = gate.SipHash(seed, uint64(quadKeys().keys[i]))
		}
		m[seed] = h
	}
	return m
})

// seedQuads returns seedHashes' hashes of seed, and whether it has them.
func seedQuads(seed gate.Seed) ([]uint64, bool) {
	h, ok := seedHashes()[seed]
	return h, ok
}

// quadTable is the LIM-16 key of every quad 10.0.x.y (keys[i], i =
// x<<8|y; keys[0] unused).
type quadTable struct {
	keys []uint32
}

var quadOnce = sync.OnceValue(newQuadTable)

// quadKeys returns the table, computing it on first use (65,535 keys).
func quadKeys() *quadTable { return quadOnce() }

func newQuadTable() *quadTable {
	q := &quadTable{keys: make([]uint32, 1<<16)}
	for i := 1; i < 1<<16; i++ {
		q.keys[i] = uint32(lim.IPKey(quad(i))) // < KeyPrime < 2^32
	}
	return q
}

// quad returns the dotted quad 10.0.x.y of i = x<<8|y.
func quad(i int) string {
	return "10.0." + strconv.Itoa(i>>8) + "." + strconv.Itoa(i&255)
}

// observe records an admit's time and the address it touched.
func (s *gateState) observe(op oracle.Op, r oracle.Result) {
	if op.Kind != oracle.Admit {
		return
	}
	s.now, _ = op.Now.Int64()
	s.nowSet = true
	s.times = append(s.times, s.now)
	if len(s.times) > maxTimes {
		s.times = s.times[1:]
	}
	if r.Verdict == oracle.VerdictPass || r.Verdict == oracle.VerdictLimited { // a shed touches nothing (GATE-4)
		if ip := string(*op.IP); !s.seen[ip] {
			s.seen[ip] = true
			s.touched = append(s.touched, ip)
		}
	}
}

// drawGate draws a gate op of kind k.
func (g *Ops) drawGate(t src, k oracle.Kind) oracle.Op {
	s := &g.gate
	switch k {
	case oracle.Admit:
		return oracle.Op{Kind: k, IP: bytesOf(s.ip(t)), Now: oracle.I(s.time(t))}
	case oracle.Bucket:
		return oracle.Op{Kind: k, IP: bytesOf(s.readIP(t)), Now: oracle.I(s.time(t))}
	}
	return oracle.Op{Kind: k}
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
