package subject

import (
	"errors"
	"fmt"

	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/oracle"
)

// implThrottle is an impl throttle. For component throttle it runs over a
// MemStore, so the fused fast paths are the ones checked; for
// throttle_faults over a FaultStore wrapping one, which takes the seven-op
// path with faults.
type implThrottle struct {
	t      *throttle.Throttle
	faults *throttle.FaultStore // nil for component throttle
}

func openThrottle(cfg oracle.Config, faults bool) (oracle.Instance, oracle.ErrorClass, error) {
	return openThrottleOver(cfg, faults, func(k uint64) (throttle.Store, error) {
		return throttle.NewMemStore(throttle.MemConfig{StampsPerKey: k})
	})
}

// openThrottleOver opens a throttle instance of cfg over the store newStore
// returns for k = the threshold stamps per key: component throttle uses the
// store as it is (its fused paths when it has them), throttle_faults wraps
// it in a FaultStore (the seven-op path, faults checked before the store is
// called). The Redis subject opens its store through it.
func openThrottleOver(cfg oracle.Config, faults bool, newStore func(k uint64) (throttle.Store, error)) (oracle.Instance, oracle.ErrorClass, error) {
	threshold, window, ban, err := cfg.ThrottleConfig()
	if err != nil {
		return nil, "", err
	}
	tc := throttle.Config{Threshold: threshold, WindowSecs: window, BanSecs: ban}
	if tc.Validate() != nil {
		return nil, oracle.ErrConfig, nil
	}
	if threshold > throttle.MaxStampsPerKey {
		return nil, "", fmt.Errorf("%w: impl keeps at most %d stamps per key, threshold %d", oracle.ErrUnsupported, throttle.MaxStampsPerKey, threshold)
	}
	store, err := newStore(threshold)
	if err != nil {
		return nil, "", err
	}
	it := &implThrottle{}
	if faults {
		it.faults = throttle.NewFaultStore(store)
		store = it.faults
	}
	if it.t, err = throttle.New(store, tc); errors.Is(err, throttle.ErrConfig) {
		return nil, oracle.ErrConfig, nil
	}
	return it, "", err
}

func (m *implThrottle) Do(op oracle.Op) (oracle.Result, error) {
	a, err := op.Throttle(m.faults != nil)
	if err != nil {
		return oracle.Result{}, err
	}
	switch op.Kind {
	case oracle.Check:
		return decision3(m.t.Check(a.Key, a.Now), nil), nil
	case oracle.CheckAny:
		return decision3(m.t.CheckAny(a.Keys, a.Now), nil), nil
	case oracle.RecordFailure:
		return decision3(m.t.RecordFailure(a.Key, a.Now)), nil
	case oracle.RecordSuccess:
		return oracle.StoreResult(m.t.RecordSuccess(a.Key)), nil
	case oracle.Reset:
		return oracle.StoreResult(m.t.Reset(a.Key)), nil
	case oracle.PurgeExpired:
		n, err := m.t.PurgeExpired(a.Now)
		if err != nil {
			return oracle.StoreResult(err), nil
		}
		return oracle.Result{Count: oracle.U(n)}, nil
	}
	m.faults.SetFaults(implFaults(a.Faults)...)
	return oracle.Result{}, nil
}

// decision3 is the Result of an impl throttle decision or its store error.
func decision3(d throttle.Decision, err error) oracle.Result {
	if err != nil {
		return oracle.Result{Error: oracle.ErrStore}
	}
	r := oracle.Result{Verdict: string(d.Verdict)}
	switch d.Verdict {
	case throttle.Allow:
		r.Remaining = oracle.U(d.Remaining)
	case throttle.Banned:
		r.Until = oracle.U(d.Until)
	}
	return r
}

func implFaults(fs []oracle.Fault) []throttle.Fault {
	out := make([]throttle.Fault, len(fs))
	for i, f := range fs {
		out[i] = throttle.Fault{Op: throttle.Op(f.Op), Keys: oracle.FaultKeys(f)}
	}
	return out
}
