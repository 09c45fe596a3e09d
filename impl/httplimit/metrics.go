package httplimit

import "github.com/limcheck/limcheck/impl/gate"

// Results lists every [Result], in order: for an adapter of [Metrics] that
// makes its series ahead of the first request.
var Results = [...]Result{Passed, Limited, Shed, Invalid, Allowed}

// AlarmKinds lists every [AlarmKind], for the same use.
var AlarmKinds = [...]AlarmKind{AlarmUnavailable, AlarmKept, AlarmPendingFull}

// Metrics receives what the middleware and the login guard do, for
// counters and gauges (the repository's contrib module adapts it to
// Prometheus and to OpenTelemetry). Give it to a [Limiter] with
// [WithMetrics] (its policies report through it too) and to a [LoginGuard]
// with [LoginConfig].Metrics; without one nothing is called and nothing is
// spent.
//
//   - Decision is called once per limit a request meets (the Limiter's
//     gate, named by [WithPolicyName], and each [Policy] of its route),
//     with the limit's name, what it decided and whether it is a shadow
//     policy (a shadow's Limited was not enforced). The [WithOnDecision]
//     hook sees the same decisions, with more.
//   - InFlight is called with +1 when a request takes a place of the
//     Limiter's in-flight gate and its handler is about to run, and with
//     -1 when that handler returns (or panics): the sum is the requests
//     holding a place, as the gate counts them (an allowlisted request
//     that skips the gate holds none).
//   - LoginAlarm is called for every login guard [Alarm], after the
//     guard's own count ([LoginStats]) and before its OnAlarm hook.
//
// Every method is called on the request's goroutine, so an implementation
// must be safe for concurrent use, and fast: it runs on every request (an
// atomic add per call is the budget, and the middleware's "no allocation
// per request" holds only if it allocates nothing either).
type Metrics interface {
	Decision(policy string, r Result, shadow bool)
	InFlight(delta int)
	LoginAlarm(kind AlarmKind)
}

// WithMetrics reports every decision of the Limiter and of its policies,
// and the requests holding its in-flight places, to m. A nil m reports
// nothing (the default). Unlike [WithOnDecision] it keeps the address path
// as it is: reporting adds an interface call per decision and two per pass.
func WithMetrics(m Metrics) Option { return func(s *settings) { s.metrics = m } }

// count reports the gate's decision r on the address path; nothing
// without metrics.
func (l *Limiter) count(r Result) {
	if m := l.x.metrics; m != nil {
		m.Decision(l.x.name, r, false)
	}
}

// entered reports an in-flight place taken for a request whose handler
// is about to run; release reports it given back.
func (l *Limiter) entered() {
	if m := l.x.metrics; m != nil {
		m.InFlight(1)
	}
}

// left reports a place given back (release calls it).
func (l *Limiter) left() {
	if m := l.x.metrics; m != nil {
		m.InFlight(-1)
	}
}

// resultOf is the Result of a gate's rejection: Limited or Shed.
func resultOf(v gate.Verdict) Result {
	if v == gate.Limited {
		return Limited
	}
	return Shed
}
