package oracle

import (
	"errors"
	"fmt"

	"github.com/limcheck/limcheck/model/gate"
	"github.com/limcheck/limcheck/model/lim"
	"github.com/limcheck/limcheck/model/throttle"
)

// Model is the reference [Subject]: model/ behind the oracle's vocabulary.
// It implements every component. The zero Model is ready to use.
type Model struct{}

// Name implements Subject.
func (Model) Name() string { return "model" }

// Implements implements Subject: the model implements everything.
func (Model) Implements(Component) bool { return true }

// Open implements Subject.
func (Model) Open(c Component, cfg Config) (Instance, ErrorClass, error) {
	switch c {
	case Lim:
		return modelLim{}, "", nil
	case Gate:
		return openModelGate(cfg)
	case Throttle, ThrottleFaults:
		return openModelThrottle(cfg, c == ThrottleFaults)
	}
	return nil, "", fmt.Errorf("%w: %q", ErrUnsupported, c)
}

// modelLim applies lim's pure functions.
type modelLim struct{}

func (modelLim) Do(op Op) (Result, error) {
	a, err := op.Lim()
	if err != nil {
		return Result{}, err
	}
	switch op.Kind {
	case LimCfg:
		c := lim.NewConfig(a.Cap, a.Refil, a.Ivl, a.Maxif)
		return Result{OK: I(c.OK), Err: I(c.Err), Cap: I(c.Cap), Refil: I(c.Refil), Ivl: I(c.Ivl), Maxif: I(c.Maxif)}, nil
	case LimBktNew:
		b := lim.NewBucket(a.Cap, a.Now)
		return Result{Tks: I(b.Tks), Last: I(b.Last)}, nil
	case LimTake:
		t := lim.Take(lim.MakeBucket(a.Tks, a.Last), lim.NewConfig(a.Cap, a.Refil, a.Ivl, a.Maxif), a.Now, a.Cost)
		return Result{OK: I(t.OK), Retry: I(t.Retry), Tks: I(t.Tks), Last: I(t.Last)}, nil
	case LimAcq:
		r := lim.Acquire(a.N, a.Maxif)
		return Result{OK: I(r.OK), N: I(r.N)}, nil
	case LimRel:
		return Result{N: I(lim.Release(a.N))}, nil
	case LimIPKey:
		return Result{Key: I(lim.IPKey(a.IP))}, nil
	}
	resp := Bytes(lim.Response503(a.Retry)) // LimResp503: op.Lim() refused every other kind
	return Result{Response: &resp}, nil
}

// modelGate is a model gate.
type modelGate struct{ g *gate.Gate }

func openModelGate(cfg Config) (Instance, ErrorClass, error) {
	cap, refil, ivl, maxif, sets, ways, tick, err := cfg.GateConfig()
	if err != nil {
		return nil, "", err
	}
	seed, err := cfg.GateSeed()
	if err != nil {
		return nil, "", err
	}
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(cap, refil, ivl, maxif), Sets: sets, Ways: ways, TickNanos: tick, Seed: seed})
	if errors.Is(err, gate.ErrConfig) {
		return nil, ErrConfig, nil
	}
	return modelGate{g}, "", err
}

func (m modelGate) Do(op Op) (Result, error) {
	a, err := op.Gate()
	if err != nil {
		return Result{}, err
	}
	switch op.Kind {
	case Admit:
		return GateDecision(m.g.Admit(a.IP, a.Now)), nil
	case Release:
		m.g.Release()
		return Result{}, nil
	case InFlight:
		return Result{N: I(m.g.InFlight())}, nil
	}
	b, ok := m.g.Bucket(a.IP, a.Now) // Bucket: op.Gate() refused every other kind
	return BucketResult(ok, b.Tks, b.Last), nil
}

// GateDecision is the Result of a model gate decision.
func GateDecision(d gate.Decision) Result {
	return GateResult(string(d.Verdict), d.Set, d.Way, d.Retry, d.RetryAfter, Bytes(d.Response))
}

// GateResult is the Result of a gate decision given by its parts, for any
// implementation's decision: verdict is "pass", "shed" or "limited"; the
// way is kept unless the request was shed or way is gate.NoWay (a limited
// whose eviction the set's budget refused), the response unless it passed.
func GateResult(verdict string, set, way, retry, retryAfter int64, response Bytes) Result {
	r := Result{Verdict: verdict, Set: I(set), Retry: I(retry), RetryAfter: I(retryAfter)}
	// spec GATE-17: "A refused eviction names the set only: no way holds k after it."
	if verdict != string(gate.Shed) && way != gate.NoWay {
		r.Way = I(way)
	}
	if verdict != string(gate.Pass) {
		r.Response = &response
	}
	return r
}

// BucketResult is the Result of a bucket read: tks and last only when touched.
func BucketResult(touched bool, tks, last int64) Result {
	if !touched {
		return Result{Touched: &touched}
	}
	return Result{Touched: &touched, Tks: I(tks), Last: I(last)}
}

// modelThrottle is a model throttle over an exact store, wrapped in a fault
// store (whose rules stay empty unless the component is throttle_faults).
type modelThrottle struct {
	t      *throttle.Throttle
	store  *throttle.FaultStore
	faults bool
}

func openModelThrottle(cfg Config, faults bool) (Instance, ErrorClass, error) {
	threshold, window, ban, err := cfg.ThrottleConfig()
	if err != nil {
		return nil, "", err
	}
	store := throttle.NewFaultStore(throttle.NewMemStore())
	t, err := throttle.New(store, throttle.Config{Threshold: threshold, WindowSecs: window, BanSecs: ban})
	if errors.Is(err, throttle.ErrConfig) {
		return nil, ErrConfig, nil
	}
	return modelThrottle{t: t, store: store, faults: faults}, "", err
}

func (m modelThrottle) Do(op Op) (Result, error) {
	a, err := op.Throttle(m.faults)
	if err != nil {
		return Result{}, err
	}
	switch op.Kind {
	case Check:
		return ThrottleDecision(m.t.Check(a.Key, a.Now), nil), nil
	case CheckAny:
		return ThrottleDecision(m.t.CheckAny(a.Keys, a.Now), nil), nil
	case RecordFailure:
		return ThrottleDecision(m.t.RecordFailure(a.Key, a.Now)), nil
	case RecordSuccess:
		return StoreResult(m.t.RecordSuccess(a.Key)), nil
	case Reset:
		return StoreResult(m.t.Reset(a.Key)), nil
	case PurgeExpired:
		n, err := m.t.PurgeExpired(a.Now)
		if err != nil {
			return StoreResult(err), nil
		}
		return Result{Count: U(n)}, nil
	}
	m.store.SetFaults(modelFaults(a.Faults)...) // SetFaults: op.Throttle() refused every other kind
	return Result{}, nil
}

// ThrottleDecision is the Result of a throttle decision, or of its store error.
func ThrottleDecision(d throttle.Decision, err error) Result {
	if err != nil {
		return Result{Error: ErrStore}
	}
	r := Result{Verdict: string(d.Verdict)}
	switch d.Verdict {
	case throttle.Allow:
		r.Remaining = U(d.Remaining)
	case throttle.Banned:
		r.Until = U(d.Until)
	}
	return r
}

// StoreResult is the Result of an operation that returns only an error.
func StoreResult(err error) Result {
	if err != nil {
		return Result{Error: ErrStore}
	}
	return Result{}
}

func modelFaults(fs []Fault) []throttle.Fault {
	out := make([]throttle.Fault, len(fs))
	for i, f := range fs {
		out[i] = throttle.Fault{Op: throttle.Op(f.Op), Keys: FaultKeys(f)}
	}
	return out
}

// FaultKeys returns a fault rule's keys as strings.
func FaultKeys(f Fault) []string {
	keys := make([]string, len(f.Keys))
	for i, k := range f.Keys {
		keys[i] = string(k)
	}
	return keys
}
