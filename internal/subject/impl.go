package subject

import (
	"errors"
	"fmt"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/oracle"
)

// Impl is impl/ as an [oracle.Subject]. The zero Impl is ready to use.
type Impl struct{}

// Name implements oracle.Subject.
func (Impl) Name() string { return "impl" }

// Implements implements oracle.Subject: impl implements every component.
func (Impl) Implements(oracle.Component) bool { return true }

// Open implements oracle.Subject.
func (Impl) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	switch c {
	case oracle.Lim:
		return implLim{}, "", nil
	case oracle.Gate:
		return openGate(cfg)
	case oracle.Throttle, oracle.ThrottleFaults:
		return openThrottle(cfg, c == oracle.ThrottleFaults)
	}
	return nil, "", fmt.Errorf("%w: %q", oracle.ErrUnsupported, c)
}

type implLim struct{}

func (implLim) Do(op oracle.Op) (oracle.Result, error) {
	a, err := op.Lim()
	if err != nil {
		return oracle.Result{}, err
	}
	I := oracle.I
	switch op.Kind {
	case oracle.LimCfg:
		c := lim.NewConfig(a.Cap, a.Refil, a.Ivl, a.Maxif)
		return oracle.Result{OK: I(c.OK()), Err: I(c.Err()), Cap: I(c.Cap()), Refil: I(c.Refil()), Ivl: I(c.Ivl()), Maxif: I(c.Maxif())}, nil
	case oracle.LimBktNew:
		b := lim.NewBucket(a.Cap, a.Now)
		return oracle.Result{Tks: I(b.Tks), Last: I(b.Last)}, nil
	case oracle.LimTake:
		c := lim.NewConfig(a.Cap, a.Refil, a.Ivl, a.Maxif)
		t := c.Take(lim.MakeBucket(a.Tks, a.Last), a.Now, a.Cost)
		return oracle.Result{OK: I(t.OK), Retry: I(t.Retry), Tks: I(t.Tks), Last: I(t.Last)}, nil
	case oracle.LimAcq:
		r := lim.Acquire(a.N, a.Maxif)
		return oracle.Result{OK: I(r.OK), N: I(r.N)}, nil
	case oracle.LimRel:
		return oracle.Result{N: I(lim.Release(a.N))}, nil
	case oracle.LimIPKey:
		return oracle.Result{Key: I(lim.IPKey(a.IP))}, nil
	}
	resp := oracle.Bytes(lim.Response503(a.Retry))
	return oracle.Result{Response: &resp}, nil
}

// MaxGateSlots is the largest gate this adapter opens: 2^20 ways (sets*ways),
// 16 MiB preallocated. impl allows gate.MaxWays (2^28, 4 GiB), but the fuzz
// generators draw sets and ways at every power of two up to 2^63, and a run
// that opens thousands of gates must not zero gigabytes for each of the few
// that go that far: beyond MaxGateSlots a config is unsupported, and the
// trace skipped.
const MaxGateSlots = 1 << 20

// implGate is an impl gate; last is the last Pass, whose place Release gives
// back (any decision gives an exact count; this one takes the fast path).
type implGate struct {
	g    *gate.Gate
	last *gate.Decision
}

func openGate(cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	cap, refil, ivl, maxif, sets, ways, tick, err := cfg.GateConfig()
	if err != nil {
		return nil, "", err
	}
	lc := lim.NewConfig(cap, refil, ivl, maxif)
	if lc.Valid() && sets >= 1 && ways >= 1 && tick >= 1 && sets > MaxGateSlots/ways { // an invalid config is refused by New, as GATE-1 says
		return nil, "", fmt.Errorf("%w: impl preallocates its ways; this adapter opens at most %d, not %d sets of %d",
			oracle.ErrUnsupported, MaxGateSlots, sets, ways)
	}
	seed, err := cfg.GateSeed()
	if err != nil {
		return nil, "", err
	}
	// spec GATE-18: "a vector gives it": the case's seed, never impl's random default.
	s16 := [16]byte(seed)
	g, err := gate.New(gate.Config{Lim: lc, Sets: sets, Ways: ways, TickNanos: tick, Seed: &s16})
	if errors.Is(err, gate.ErrConfig) {
		return nil, oracle.ErrConfig, nil
	}
	return &implGate{g: g, last: new(gate.Decision)}, "", err
}

func (m *implGate) Do(op oracle.Op) (oracle.Result, error) {
	a, err := op.Gate()
	if err != nil {
		return oracle.Result{}, err
	}
	switch op.Kind {
	case oracle.Admit:
		d := m.g.Admit(a.IP, a.Now)
		if d.Verdict == gate.Pass {
			*m.last = d
		}
		return decision(d), nil
	case oracle.Release:
		m.g.Release(*m.last)
		return oracle.Result{}, nil
	case oracle.InFlight:
		return oracle.Result{N: oracle.I(m.g.InFlight())}, nil
	}
	b, ok := m.g.Bucket(a.IP, a.Now)
	return oracle.BucketResult(ok, b.Tks, b.Last), nil
}

func decision(d gate.Decision) oracle.Result {
	return oracle.GateResult(d.Verdict.String(), d.Set, d.Way, d.Retry, d.RetryAfter, oracle.Bytes(d.AppendResponse(nil)))
}
