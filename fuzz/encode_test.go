package fuzz

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/limcheck/limcheck/oracle"
	"github.com/limcheck/limcheck/oracle/gen"
)

// encodeTrace is the inverse of decodeTrace: it writes tr in the decoder's
// format with every value a literal, so that decodeTrace(c, encodeTrace(tr))
// has tr's config and ops. It writes a lim take as set-config, set-bucket,
// take. It is how the seed corpus carries exact counterexamples.
func encodeTrace(tr oracle.Trace) []byte {
	w := &writer{}
	switch tr.Component {
	case oracle.Lim:
		w.nums(oracle.I(1), oracle.I(1), oracle.I(1), oracle.I(1)) // header; every take sets its own config
		for _, op := range tr.Ops {
			w.limOp(op)
		}
	case oracle.Gate:
		g := tr.Config.Gate
		w.nums(g.Cap, g.Refil, g.Ivl, g.Maxif, g.Sets, g.Ways, g.TickNanos)
		w.seed(g.Seed)
		for _, op := range tr.Ops {
			w.gateOp(op)
		}
	default:
		th := tr.Config.Throttle
		w.nums(th.Threshold, th.WindowSecs, th.BanSecs)
		for _, op := range tr.Ops {
			w.throttleOp(op)
		}
	}
	return w.b
}

// writer writes the decoder's format.
type writer struct{ b []byte }

func (w *writer) byte(b byte) { w.b = append(w.b, b) }

// nums writes each value as a literal: an int64's or a uint64's bits.
func (w *writer) nums(ns ...oracle.Num) {
	for _, n := range ns {
		v, ok := n.Uint64()
		if !ok {
			i, _ := n.Int64()
			v = uint64(i)
		}
		w.byte(literal)
		w.b = binary.BigEndian.AppendUint64(w.b, v)
	}
}

// seed writes a gate seed as a literal of its 16 bytes; a seed that is not
// 32 hex digits is a bug in the trace, and panics.
func (w *writer) seed(text string) {
	b, err := hex.DecodeString(text)
	if err != nil || len(b) != 16 {
		panic(fmt.Sprintf("encodeTrace: seed %q is not 32 hex digits", text))
	}
	w.byte(literal)
	w.b = append(w.b, b...)
}

// str writes a literal string of at most 255 bytes, or a longer one of
// pool (the decoder's pool at that place) by its index.
func (w *writer) str(b *oracle.Bytes, pool []string) {
	s := string(*b)
	if len(s) > 255 {
		i := slices.Index(pool, s)
		if i < 0 || i >= literal {
			panic(fmt.Sprintf("encodeTrace: string of %d bytes off the pool, the format carries 255", len(s)))
		}
		w.byte(byte(i))
		return
	}
	w.byte(literal)
	w.byte(byte(len(s)))
	w.b = append(w.b, s...)
}

func (w *writer) limOp(op oracle.Op) {
	switch op.Kind {
	case oracle.LimTake:
		w.byte(4)
		w.nums(op.Cap, op.Refil, op.Ivl, op.Maxif)
		w.byte(5)
		w.nums(op.Tks, op.Last)
		w.byte(0)
		w.nums(op.Now, op.Cost)
	case oracle.LimAcq:
		w.b = append(w.b, 6, 0)
		w.nums(op.N, op.Maxif)
	case oracle.LimRel:
		w.b = append(w.b, 6, 1)
		w.nums(op.N)
	case oracle.LimCfg:
		w.b = append(w.b, 7, 0)
		w.nums(op.Cap, op.Refil, op.Ivl, op.Maxif)
	case oracle.LimBktNew:
		w.b = append(w.b, 7, 1)
		w.nums(op.Cap, op.Now)
	case oracle.LimIPKey:
		w.b = append(w.b, 7, 2)
		w.str(op.IP, gen.EdgeIPs())
	case oracle.LimResp503:
		w.b = append(w.b, 7, 3)
		w.nums(op.Retry)
	}
}

func (w *writer) gateOp(op oracle.Op) {
	switch op.Kind {
	case oracle.Admit:
		w.byte(0)
		w.str(op.IP, gen.EdgeIPs())
		w.nums(op.Now)
	case oracle.Release:
		w.byte(5)
	case oracle.InFlight:
		w.b = append(w.b, 7, 0)
	case oracle.Bucket:
		w.b = append(w.b, 7, 1)
		w.str(op.IP, gen.EdgeIPs())
		w.nums(op.Now)
	}
}

func (w *writer) throttleOp(op oracle.Op) {
	switch op.Kind {
	case oracle.Check:
		w.byte(0)
		w.str(op.Key, gen.ThrottleKeys())
		w.nums(op.Now)
	case oracle.CheckAny:
		w.byte(1)
		if len(op.Keys) > 4 {
			w.byte(literal) // a literal count follows
		}
		w.byte(byte(len(op.Keys)))
		w.keys(op.Keys)
		w.nums(op.Now)
	case oracle.RecordFailure:
		w.byte(2)
		w.str(op.Key, gen.ThrottleKeys())
		w.nums(op.Now)
	case oracle.RecordSuccess:
		w.byte(4)
		w.str(op.Key, gen.ThrottleKeys())
	case oracle.Reset:
		w.byte(5)
		w.str(op.Key, gen.ThrottleKeys())
	case oracle.PurgeExpired:
		w.byte(6)
		w.nums(op.Now)
	case oracle.SetFaults:
		w.b = append(w.b, 7, byte(len(op.Faults)))
		for _, f := range op.Faults {
			w.b = append(w.b, byte(slices.Index(oracle.StoreOps(), f.Op)), byte(len(f.Keys)))
			w.keys(f.Keys)
		}
	}
}

func (w *writer) keys(ks []oracle.Bytes) {
	for i := range ks {
		w.str(&ks[i], gen.ThrottleKeys())
	}
}
