package fuzz

import (
	"errors"
	"reflect"

	"github.com/google/go-cmp/cmp"
	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/internal/subject"
	"github.com/limcheck/limcheck/oracle"
	"github.com/limcheck/limcheck/oracle/gen"
)

// tb is what the differential harness needs of a *testing.T or *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
}

// differential is a model instance and an impl instance opened with one
// config, the ops applied to both so far (the trace a report prints), and
// a gen.Ops fed the model's results: it draws the next ops of a state
// machine and remembers what the state checks read (touched slots, the
// latest throttle time).
type differential struct {
	trace       oracle.Trace
	model, impl oracle.Instance
	gen         *gen.Ops
}

// openDifferential opens the model and impl on cfg. Both must refuse the
// same configs (ErrConfig); it returns nil when both did. It skips the test
// when impl does not support cfg (ErrUnsupported).
func openDifferential(t tb, c oracle.Component, cfg oracle.Config) *differential {
	t.Helper()
	return openDifferentialOn(t, subject.Impl{}, c, cfg)
}

// openDifferentialOn is openDifferential with another subject in impl's
// place (the Redis-backed one).
func openDifferentialOn(t tb, subject oracle.Subject, c oracle.Component, cfg oracle.Config) *differential {
	t.Helper()
	d := &differential{trace: oracle.Trace{Component: c, Config: cfg}, gen: gen.NewOps(c, cfg)}
	m, mclass, err := oracle.Model{}.Open(c, cfg)
	if err != nil {
		t.Fatalf("Model{}.Open(%s, config) = %v", c, err)
	}
	i, iclass, err := subject.Open(c, cfg)
	if errors.Is(err, oracle.ErrUnsupported) {
		t.Skipf("impl does not support this config: %v", err)
	}
	if err != nil {
		t.Fatalf("%s.Open(%s, config) = %v", subject.Name(), c, err)
	}
	if mclass != iclass {
		t.Fatalf("Open(%s, config) refused differently (-model +impl):\n%s%s", c, conformance.Context(d.trace, -1), cmp.Diff(mclass, iclass))
	}
	if mclass != "" {
		return nil
	}
	d.model, d.impl = m, i
	return d
}

// step applies op to both, compares the results with cmp.Diff (-model
// +impl), records op and feeds the model's result to the gen.Ops.
func (d *differential) step(t tb, op oracle.Op) oracle.Result {
	t.Helper()
	d.trace.Ops = append(d.trace.Ops, op)
	r := d.compare(t, op, d.trace)
	d.gen.Observe(op, r)
	return r
}

// probe applies a read-only op to both and compares the results, without
// recording it in the history; a report shows it as the last op.
func (d *differential) probe(t tb, op oracle.Op) {
	t.Helper()
	tr := d.trace
	tr.Ops = append(tr.Ops[:len(tr.Ops):len(tr.Ops)], op)
	d.compare(t, op, tr)
}

// compare applies op, the last op of tr, to both and fails with the
// divergence report when the results differ.
func (d *differential) compare(t tb, op oracle.Op, tr oracle.Trace) oracle.Result {
	t.Helper()
	want, err := d.model.Do(op)
	if err != nil {
		t.Fatalf("model Do(%+v) = %v", op, err)
	}
	got, err := d.impl.Do(op)
	if err != nil {
		t.Fatalf("impl Do(%+v) = %v", op, err)
	}
	if reflect.DeepEqual(want, got) { // the fast path: cmp.Diff reflects on every field
		return want
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("impl differs from the model (-model +impl):\n%s%s", conformance.Context(tr, len(tr.Ops)-1), diff)
	}
	return want
}

// checkState compares the observable state of both instances: for a gate,
// in-flight and the bucket of every address admitted so far, at the latest
// admit's time; for a throttle,
// check of every pool key at the latest time (reads only). lim has no
// state: its last op is applied again and must give the same result (the
// functions are pure, whatever impl caches).
func (d *differential) checkState(t tb) {
	t.Helper()
	switch d.trace.Component {
	case oracle.Lim:
		if n := len(d.trace.Ops); n > 0 {
			d.probe(t, d.trace.Ops[n-1])
		}
	case oracle.Gate:
		d.probe(t, oracle.Op{Kind: oracle.InFlight})
		for _, ip := range d.gen.Touched() {
			b := oracle.Bytes(ip)
			d.probe(t, oracle.Op{Kind: oracle.Bucket, IP: &b, Now: oracle.I(d.gen.GateNow())})
		}
	default:
		for _, k := range d.gen.Keys() {
			key := oracle.Bytes(k)
			d.probe(t, oracle.Op{Kind: oracle.Check, Key: &key, Now: oracle.U(d.gen.ThrottleNow())})
		}
	}
}

// checkTrace runs tr through the model and impl with oracle.Run and fails
// with the first divergence oracle.Compare finds. It skips traces whose
// config impl does not support.
func checkTrace(t tb, tr oracle.Trace) {
	t.Helper()
	want, err := oracle.Run(oracle.Model{}, tr)
	if err != nil {
		t.Fatalf("Run(Model{}, trace) = %v", err)
	}
	got, err := oracle.Run(subject.Impl{}, tr)
	if errors.Is(err, oracle.ErrUnsupported) {
		t.Skipf("impl does not support this config: %v", err)
	}
	if err != nil {
		t.Fatalf("Run(Impl{}, trace) = %v", err)
	}
	if div := oracle.Compare(tr, want, got); div != nil {
		t.Fatalf("impl differs from the model:\n%s", conformance.Differ(tr, div).Text("model", "impl"))
	}
}
