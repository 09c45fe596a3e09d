package fuzz

import (
	"encoding/binary"
	"encoding/hex"
	"math"

	"github.com/limcheck/limcheck/model/lim"
	"github.com/limcheck/limcheck/oracle"
	"github.com/limcheck/limcheck/oracle/gen"
)

// The byte decoder of FuzzLim, FuzzGate, FuzzThrottle and FuzzThrottleFaults
// reads any byte string as a trace, so that go test -fuzz explores traces
// byte by byte, and a short input already means a short trace at the edges.
//
//	input  = header op*
//	value  = tag            tag != 0xFF: edges[tag mod len(edges)]
//	       | 0xFF b1..b8    a literal, big-endian, as an int64 or a uint64
//	string = tag            tag != 0xFF: pool[tag mod len(pool)]
//	       | 0xFF n b1..bn  a literal of n bytes
//	op     = kind args      kind mod 8 selects the op, below
//
// Reading past the end gives 0 bytes, so every input decodes; an op is
// decoded while a byte is left at its start, at most maxOps of them. Each
// value's edge list depends on the trace so far (the bucket the last take
// returned, the previous time, a slot's first admit, a failure's window
// end, a ban's end), so that tag 0 is the natural next value and small tags
// sit on step, window and ban boundaries; the decoder learns results from
// the model (observe).
//
// lim: header cap refil ivl maxif; the bucket starts born full at tick 0.
//
//	kind 0-3  lim_take now cost (the current config and bucket; the bucket
//	          is then the take's result)
//	kind 4    set the config: cap refil ivl maxif (no op)
//	kind 5    set the bucket: tks last (no op)
//	kind 6    sub: even lim_acq n maxif; odd lim_rel n
//	kind 7    sub mod 4: lim_cfg cap refil ivl maxif | lim_bkt_new cap now |
//	          lim_ip_key ip | lim_resp_503 retry
//
// gate: header cap refil ivl maxif sets ways tick_nanos seed (a literal sets
// or ways above 4096 is reduced to 1 + (n-1) mod 4096: impl preallocates;
// seed = tag, one of fuzzSeeds, or 0xFF b1..b16, a literal seed).
//
//	kind 0-4  admit ip now
//	kind 5-6  release
//	kind 7    sub: even in_flight; odd bucket slot
//
// throttle, throttle_faults: header threshold window_secs ban_secs (a
// literal threshold above 16384 is reduced mod 16385).
//
//	kind 0    check key now
//	kind 1    check_any n (byte mod 5; 0xFF: the next byte) key*n now
//	kind 2-3  record_failure key now
//	kind 4    record_success key
//	kind 5    reset key
//	kind 6    purge_expired now
//	kind 7    throttle_faults: set_faults n (byte mod 4) rule*n, a rule being
//	          op (byte mod 7, oracle.StoreOps order) m (byte mod 3) key*m;
//	          throttle: record_failure key now
const (
	literal = 0xFF
	maxOps  = 256
)

// reader reads an input; past its end it reads zeros.
type reader struct {
	data []byte
	pos  int
}

func (r *reader) more() bool { return r.pos < len(r.data) }

func (r *reader) byte() byte {
	r.pos++
	if r.pos > len(r.data) {
		return 0
	}
	return r.data[r.pos-1]
}

func (r *reader) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = r.byte()
	}
	return b
}

// value reads a tag; it reports a literal's bits, or the edge index.
func (r *reader) value(n int) (lit uint64, edge int, isLit bool) {
	tag := r.byte()
	if tag == literal {
		return binary.BigEndian.Uint64(r.bytes(8)), 0, true
	}
	return 0, int(tag) % n, false
}

func (r *reader) i64(edges ...int64) int64 {
	lit, i, isLit := r.value(len(edges))
	if isLit {
		return int64(lit)
	}
	return edges[i]
}

func (r *reader) u64(edges ...uint64) uint64 {
	lit, i, isLit := r.value(len(edges))
	if isLit {
		return lit
	}
	return edges[i]
}

func (r *reader) str(pool []string) string {
	tag := r.byte()
	if tag == literal {
		return string(r.bytes(int(r.byte())))
	}
	return pool[int(tag)%len(pool)]
}

func (r *reader) bytesArg(pool []string) *oracle.Bytes {
	b := oracle.Bytes(r.str(pool))
	return &b
}

// decoder decodes one component's trace.
type decoder interface {
	config() oracle.Config
	// next decodes the next op, or reports the end of the trace.
	next() (oracle.Op, bool)
	// observe feeds the model's result of the op next returned.
	observe(op oracle.Op, res oracle.Result)
}

func newDecoder(c oracle.Component, data []byte) decoder {
	r := &reader{data: data}
	switch c {
	case oracle.Lim:
		return newLimDecoder(r)
	case oracle.Gate:
		return newGateDecoder(r)
	}
	return newThrottleDecoder(r, c == oracle.ThrottleFaults)
}

// decodeTrace decodes data into a trace, learning results from the model.
func decodeTrace(c oracle.Component, data []byte) oracle.Trace {
	dec := newDecoder(c, data)
	tr := oracle.Trace{Component: c, Config: dec.config(), Ops: []oracle.Op{}}
	inst, _, _ := oracle.Model{}.Open(c, tr.Config)
	for op, ok := dec.next(); ok; op, ok = dec.next() {
		tr.Ops = append(tr.Ops, op)
		if inst != nil {
			res, _ := inst.Do(op)
			dec.observe(op, res)
		}
	}
	return tr
}

// ops counts the ops a decoder returned and stops it at the input's end.
type ops struct {
	r *reader
	n int
}

func (o *ops) more() bool {
	if !o.r.more() || o.n >= maxOps {
		return false
	}
	o.n++
	return true
}

// Edge lists shared by the decoders.
var (
	positives = []int64{1, 2, 3, 10, 1000, math.MaxInt64, math.MaxInt64 - 1, 1 << 32, 0, -1, math.MinInt64}
	anyInt64s = []int64{1, 0, -1, 2, 10, math.MaxInt64, math.MinInt64, 1 << 32}
	retries   = []int64{0, 1, -1, 9, 10, 99, 100, 999_999_999_999_999_999, 1_000_000_000_000_000_000, math.MaxInt64, math.MinInt64}
)

// limDecoder decodes a lim trace.
type limDecoder struct {
	r                      *reader
	ops                    ops
	cap, refil, ivl, maxif int64
	tks, last, now, n      int64
}

func newLimDecoder(r *reader) *limDecoder {
	d := &limDecoder{r: r, ops: ops{r: r}}
	d.setConfig()
	d.tks = d.cap
	return d
}

func (d *limDecoder) config() oracle.Config { return oracle.Config{} }

func (d *limDecoder) setConfig() {
	d.cap, d.refil, d.ivl, d.maxif = d.r.i64(positives...), d.r.i64(positives...), d.r.i64(positives...), d.r.i64(positives...)
}

// times lists the edges of a time: the previous time, the bucket's last
// and whole steps +-1 from both, a step back, the domain's ends.
func (d *limDecoder) times() []int64 {
	ivl, last, prev := max(d.ivl, 1), d.last, d.now
	return []int64{prev, sat(last, ivl), sat(last, ivl-1), sat(sat(last, ivl), 1), last, sat(last, -1), sat(prev, 1), sat(prev, ivl),
		sat(last, sat(ivl, ivl)), 0, 1, -1, math.MinInt64, math.MinInt64 + 1, math.MaxInt64 - 1, math.MaxInt64}
}

func (d *limDecoder) next() (oracle.Op, bool) {
	for d.ops.more() {
		switch k := d.r.byte() % 8; k {
		case 0, 1, 2, 3:
			return d.take(), true
		case 4:
			d.setConfig()
		case 5:
			d.tks = d.r.i64(d.cap, 0, 1, sat(d.cap, -1), sat(d.cap, 1), math.MaxInt64, -1, math.MinInt64)
			d.last = d.r.i64(d.times()...)
		case 6:
			return d.acqRel(), true
		default:
			return d.pure(), true
		}
	}
	return oracle.Op{}, false
}

func (d *limDecoder) take() oracle.Op {
	now := d.r.i64(d.times()...)
	cost := d.r.i64(1, d.cap, sat(d.cap, 1), 2, math.MaxInt64, 0, -1, math.MinInt64)
	I := oracle.I
	return oracle.Op{Kind: oracle.LimTake, Tks: I(d.tks), Last: I(d.last), Cap: I(d.cap), Refil: I(d.refil), Ivl: I(d.ivl),
		Maxif: I(d.maxif), Now: I(now), Cost: I(cost)}
}

func (d *limDecoder) acqRel() oracle.Op {
	sub := d.r.byte()
	n := d.r.i64(d.n, 0, 1, sat(d.maxif, -1), d.maxif, -1, math.MaxInt64, math.MinInt64)
	if sub%2 == 1 {
		return oracle.Op{Kind: oracle.LimRel, N: oracle.I(n)}
	}
	return oracle.Op{Kind: oracle.LimAcq, N: oracle.I(n), Maxif: oracle.I(d.r.i64(d.maxif, 1, 0, -1, math.MaxInt64))}
}

func (d *limDecoder) pure() oracle.Op {
	I := oracle.I
	switch d.r.byte() % 4 {
	case 0:
		return oracle.Op{Kind: oracle.LimCfg, Cap: I(d.r.i64(anyInt64s...)), Refil: I(d.r.i64(anyInt64s...)),
			Ivl: I(d.r.i64(anyInt64s...)), Maxif: I(d.r.i64(anyInt64s...))}
	case 1:
		return oracle.Op{Kind: oracle.LimBktNew, Cap: I(d.r.i64(anyInt64s...)), Now: I(d.r.i64(d.times()...))}
	case 2:
		return oracle.Op{Kind: oracle.LimIPKey, IP: d.r.bytesArg(gen.EdgeIPs())}
	}
	return oracle.Op{Kind: oracle.LimResp503, Retry: I(d.r.i64(retries...))}
}

func (d *limDecoder) observe(op oracle.Op, res oracle.Result) {
	switch op.Kind {
	case oracle.LimTake:
		d.tks, d.last, d.now = num(res.Tks), num(res.Last), num(op.Now)
	case oracle.LimAcq, oracle.LimRel:
		d.n = num(res.N)
	}
}

// gateDecoder decodes a gate trace.
type gateDecoder struct {
	r       *reader
	ops     ops
	cfg     oracle.GateConfig
	ivl     int64
	now     int64
	born    map[int64]int64 // a key's first admit time
	touched []string        // the addresses admits touched, in order
	seen    map[string]bool
}

func newGateDecoder(r *reader) *gateDecoder {
	v := []int64{r.i64(positives...), r.i64(positives...), r.i64(positives...), r.i64(positives...),
		gateSize(r.i64(1, 2, 3, 64, 4096, 0, -1, math.MinInt64)), gateSize(r.i64(1, 2, 3, 4, 0, -1, math.MinInt64)),
		r.i64(1, 1_000_000, 1_000_000_000, 1<<62, math.MaxInt64, 0, -1)}
	I := oracle.I
	return &gateDecoder{r: r, ops: ops{r: r}, ivl: max(v[2], 1), born: map[int64]int64{}, seen: map[string]bool{},
		cfg: oracle.GateConfig{Cap: I(v[0]), Refil: I(v[1]), Ivl: I(v[2]), Maxif: I(v[3]), Sets: I(v[4]), Ways: I(v[5]), TickNanos: I(v[6]),
			Seed: r.seed()}}
}

// fuzzSeeds are the gate seeds a seed tag selects (spec GATE-18): the
// generators' favourites, the zero seed, the check-value seed, all 0xff
// and one with no pattern.
var fuzzSeeds = gen.GateSeeds()

// seed reads a gate seed: a tag selects one of fuzzSeeds, a literal gives
// its 16 bytes; the text form is 32 lowercase hex digits.
func (r *reader) seed() string {
	tag := r.byte()
	if tag == literal {
		return hex.EncodeToString(r.bytes(16))
	}
	return fuzzSeeds[int(tag)%len(fuzzSeeds)]
}

// gateSize keeps a set or way count within 4096, so that a table stays
// within what an implementation preallocates (at most 2^24 ways).
func gateSize(v int64) int64 {
	if v > 4096 {
		return 1 + (v-1)%4096
	}
	return v
}

func (d *gateDecoder) config() oracle.Config { cfg := d.cfg; return oracle.Config{Gate: &cfg} }

func (d *gateDecoder) next() (oracle.Op, bool) {
	if !d.ops.more() {
		return oracle.Op{}, false
	}
	switch d.r.byte() % 8 {
	case 0, 1, 2, 3, 4:
		ip := d.r.str(gen.EdgeIPs())
		b := oracle.Bytes(ip)
		return oracle.Op{Kind: oracle.Admit, IP: &b, Now: oracle.I(d.r.i64(d.times(ip)...))}, true
	case 5, 6:
		return oracle.Op{Kind: oracle.Release}, true
	}
	if d.r.byte()%2 == 0 {
		return oracle.Op{Kind: oracle.InFlight}, true
	}
	ip := d.r.str(append(gen.EdgeIPs(), d.touched...)) // EdgeIPs first: their indices are stable
	b := oracle.Bytes(ip)
	return oracle.Op{Kind: oracle.Bucket, IP: &b, Now: oracle.I(d.r.i64(d.times(ip)...))}, true
}

// times lists the edges of an admit or read time: the previous time, whole
// steps +-1 from it and from the first admit of ip's key, a step back, the
// domain's ends.
func (d *gateDecoder) times(ip string) []int64 {
	prev, ivl := d.now, d.ivl
	born, ok := d.born[lim.IPKey(ip)]
	if !ok {
		born = prev
	}
	return []int64{prev, sat(prev, 1), sat(born, ivl), sat(born, ivl-1), sat(sat(born, ivl), 1), sat(prev, ivl), sat(prev, -1), born,
		sat(born, sat(ivl, ivl)), 0, 1, -1, math.MinInt64, math.MaxInt64}
}

func (d *gateDecoder) observe(op oracle.Op, res oracle.Result) {
	if op.Kind != oracle.Admit {
		return
	}
	d.now = num(op.Now)
	if res.Verdict == oracle.VerdictShed {
		return
	}
	ip := string(*op.IP)
	if _, ok := d.born[lim.IPKey(ip)]; !ok {
		d.born[lim.IPKey(ip)] = d.now
	}
	if !d.seen[ip] {
		d.seen[ip] = true
		d.touched = append(d.touched, ip)
	}
}

// throttleDecoder decodes a throttle or throttle_faults trace.
type throttleDecoder struct {
	r                  *reader
	ops                ops
	faults             bool
	cfg                oracle.ThrottleConfig
	window, ban        uint64
	now                uint64
	first, last, until uint64
	haveStamp, haveBan bool
}

func newThrottleDecoder(r *reader, faults bool) *throttleDecoder {
	durations := []uint64{1, 2, 10, 900, 100, math.MaxUint64, math.MaxUint64 - 1, 1 << 63, 0}
	th := r.u64(1, 2, 3, 5, 6, 4, 1<<14, 0)
	if th > 1<<14 {
		th %= 1<<14 + 1
	}
	window, ban := r.u64(durations...), r.u64(durations...)
	cfg := oracle.ThrottleConfig{Threshold: oracle.U(th), WindowSecs: oracle.U(window), BanSecs: oracle.U(ban)}
	return &throttleDecoder{r: r, ops: ops{r: r}, faults: faults, cfg: cfg, window: window, ban: ban}
}

func (d *throttleDecoder) config() oracle.Config { cfg := d.cfg; return oracle.Config{Throttle: &cfg} }

func (d *throttleDecoder) next() (oracle.Op, bool) {
	if !d.ops.more() {
		return oracle.Op{}, false
	}
	keys := gen.ThrottleKeys()
	switch k := d.r.byte() % 8; {
	case k == 0:
		return oracle.Op{Kind: oracle.Check, Key: d.r.bytesArg(keys), Now: d.time()}, true
	case k == 1:
		n := d.r.byte()
		if n == literal {
			n = d.r.byte()
		} else {
			n %= 5
		}
		return oracle.Op{Kind: oracle.CheckAny, Keys: d.keys(int(n)), Now: d.time()}, true
	case k == 4:
		return oracle.Op{Kind: oracle.RecordSuccess, Key: d.r.bytesArg(keys)}, true
	case k == 5:
		return oracle.Op{Kind: oracle.Reset, Key: d.r.bytesArg(keys)}, true
	case k == 6:
		return oracle.Op{Kind: oracle.PurgeExpired, Now: d.time()}, true
	case k == 7 && d.faults:
		return oracle.Op{Kind: oracle.SetFaults, Faults: d.rules()}, true
	}
	return oracle.Op{Kind: oracle.RecordFailure, Key: d.r.bytesArg(keys), Now: d.time()}, true
}

func (d *throttleDecoder) keys(n int) []oracle.Bytes {
	out := make([]oracle.Bytes, n)
	for i := range out {
		out[i] = oracle.Bytes(d.r.str(gen.ThrottleKeys()))
	}
	return out
}

func (d *throttleDecoder) rules() []oracle.Fault {
	out := make([]oracle.Fault, d.r.byte()%4)
	for i := range out {
		out[i].Op = oracle.StoreOps()[d.r.byte()%7]
		if m := int(d.r.byte() % 3); m > 0 {
			out[i].Keys = d.keys(m)
		}
	}
	return out
}

// time decodes a throttle time: the previous time, +1, the window ends of
// the first and the latest recorded failure -1, +0, +1 (THR-4), the latest
// ban's end -1, +0, +1 (THR-5), a step back, the domain's ends and where
// now + ban_secs saturates (THR-3).
func (d *throttleDecoder) time() oracle.Num {
	prev, w := d.now, d.window
	first, last, until := prev, prev, prev
	if d.haveStamp {
		first, last = d.first, d.last
	}
	if d.haveBan {
		until = d.until
	}
	return oracle.U(d.r.u64(prev, satU(prev, 1), pred(satU(first, w)), satU(first, w), satU(satU(first, w), 1),
		pred(satU(last, w)), satU(last, w), pred(until), until, satU(until, 1), pred(prev),
		0, 1, math.MaxUint64, math.MaxUint64-1, math.MaxUint64-d.ban))
}

func (d *throttleDecoder) observe(op oracle.Op, res oracle.Result) {
	if !op.Now.IsZero() {
		d.now, _ = op.Now.Uint64()
	}
	if op.Kind == oracle.RecordFailure && res.Error == "" {
		if !d.haveStamp {
			d.first = d.now
		}
		d.last, d.haveStamp = d.now, true
	}
	if res.Verdict == oracle.VerdictBanned {
		d.until, _ = res.Until.Uint64()
		d.haveBan = true
	}
}

// sat returns a + b saturated to the int64 range.
func sat(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// satU returns a + b saturated at MaxUint64.
func satU(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxUint64
}

// pred returns a - 1 floored at 0.
func pred(a uint64) uint64 { return a - min(a, 1) }

func num(n oracle.Num) int64 { v, _ := n.Int64(); return v }
