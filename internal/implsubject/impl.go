package implsubject

import (
	"fmt"

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

// MaxGateSlots is the largest gate this adapter opens: 2^20 ways, 16 MiB
// preallocated. impl allows gate.MaxSlots (2^28, 4 GiB), but the fuzz
// generators draw slot counts at every power of two up to 2^63, and a run
// that opens thousands of gates must not zero gigabytes for each of the few
// that go that far: beyond MaxGateSlots a config is unsupported, and the
// trace skipped.
const MaxGateSlots = 1 << 20

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

// openGate declines every gate config on branch gate2: impl/gate is still
// spec 1.x's shared slots (gatefast rewrites it on 2.0 in parallel and
// restores this adapter), so comparing it with the 2.0 model would only
// report the change of spec. A declined config is a skip (VEC-12), never a
// pass.
func openGate(cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	if _, _, _, _, _, _, _, err := cfg.GateConfig(); err != nil {
		return nil, "", err
	}
	return nil, "", fmt.Errorf("%w: impl/gate is on spec 1.x slots until its 2.0 rewrite (gatefast)", oracle.ErrUnsupported)
}
