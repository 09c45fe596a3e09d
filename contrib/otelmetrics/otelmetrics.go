package otelmetrics

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/limcheck/limcheck/impl/httplimit"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// ScopeName is the instrumentation scope of the meter New uses.
const ScopeName = "github.com/limcheck/limcheck/impl/httplimit"

// The attribute keys.
const (
	PolicyKey = attribute.Key("httplimit.policy")
	ResultKey = attribute.Key("httplimit.result")
	ShadowKey = attribute.Key("httplimit.shadow")
	AlarmKey  = attribute.Key("httplimit.alarm")
)

// series names one policy's counts: its name and whether it is a shadow.
type series struct {
	policy string
	shadow bool
}

// counts are one series' decisions by result: every uint8 has a place, so
// a result of a later httplimit is counted too.
type counts [256]atomic.Int64

// Metrics is an [httplimit.Metrics] over OpenTelemetry's asynchronous
// instruments, fed from atomic counters. Build one with [New]; give it to
// httplimit.WithMetrics and LoginConfig.Metrics. Safe for concurrent use.
type Metrics struct {
	inFlight atomic.Int64

	mu     sync.Mutex // serialises adding a series or an alarm kind
	series atomic.Pointer[map[series]*counts]
	alarms atomic.Pointer[map[httplimit.AlarmKind]*atomic.Int64]
}

var _ httplimit.Metrics = (*Metrics)(nil)

// New returns Metrics whose instruments come from mp's meter [ScopeName],
// or the error of making one or of registering the callback that reports
// them.
func New(mp metric.MeterProvider) (*Metrics, error) {
	meter := mp.Meter(ScopeName)
	m := &Metrics{}
	m.series.Store(&map[series]*counts{})
	alarms := map[httplimit.AlarmKind]*atomic.Int64{}
	for _, k := range httplimit.AlarmKinds {
		alarms[k] = new(atomic.Int64)
	}
	m.alarms.Store(&alarms)
	requests, err1 := meter.Int64ObservableCounter("httplimit.requests", metric.WithUnit("{request}"),
		metric.WithDescription("Decisions of the httplimit middleware's limits, by policy, result (passed, limited, shed, invalid, allowed) and shadow."))
	inFlight, err2 := meter.Int64ObservableUpDownCounter("httplimit.requests.in_flight", metric.WithUnit("{request}"),
		metric.WithDescription("Requests holding a place of the httplimit middleware's in-flight gate."))
	alarmsC, err3 := meter.Int64ObservableCounter("httplimit.login.alarms", metric.WithUnit("{alarm}"),
		metric.WithDescription("Alarms of the httplimit login guard, by kind (unavailable, kept, pending_full)."))
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			return nil, fmt.Errorf("otelmetrics: %w", err)
		}
	}
	_, err := meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		m.observe(o, requests, inFlight, alarmsC)
		return nil
	}, requests, inFlight, alarmsC)
	if err != nil {
		return nil, fmt.Errorf("otelmetrics: %w", err)
	}
	return m, nil
}

// observe reports the counts: every known result of each series seen (0
// included), any other result once counted, the in-flight sum and every
// alarm kind.
func (m *Metrics) observe(o metric.Observer, requests, inFlight, alarms metric.Int64Observable) {
	for s, cs := range *m.series.Load() {
		for i := range cs {
			r := httplimit.Result(i)
			n := cs[i].Load()
			if n == 0 && !known(r) {
				continue
			}
			o.ObserveInt64(requests, n, metric.WithAttributes(
				PolicyKey.String(s.policy), ResultKey.String(r.String()), ShadowKey.Bool(s.shadow)))
		}
	}
	o.ObserveInt64(inFlight, m.inFlight.Load())
	for k, n := range *m.alarms.Load() {
		o.ObserveInt64(alarms, n.Load(), metric.WithAttributes(AlarmKey.String(string(k))))
	}
}

// known reports whether r is one of httplimit.Results.
func known(r httplimit.Result) bool {
	for _, k := range httplimit.Results {
		if r == k {
			return true
		}
	}
	return false
}

// Decision counts result r of policy.
func (m *Metrics) Decision(policy string, r httplimit.Result, shadow bool) {
	s := series{policy, shadow}
	cs, ok := (*m.series.Load())[s]
	if !ok {
		cs = addKey(&m.mu, &m.series, s)
	}
	cs[r].Add(1)
}

// InFlight adds delta to the in-flight sum.
func (m *Metrics) InFlight(delta int) { m.inFlight.Add(int64(delta)) }

// LoginAlarm counts an alarm of kind.
func (m *Metrics) LoginAlarm(kind httplimit.AlarmKind) {
	n, ok := (*m.alarms.Load())[kind]
	if !ok { // a kind of a later httplimit
		n = addKey(&m.mu, &m.alarms, kind)
	}
	n.Add(1)
}

// addKey returns key's value in the map p points to, first storing a copy
// of the map with a new zero value for key when it has none. Under mu: a
// map is never written once stored, so readers load it without a lock.
func addKey[K comparable, V any](mu *sync.Mutex, p *atomic.Pointer[map[K]*V], key K) *V {
	mu.Lock()
	defer mu.Unlock()
	old := *p.Load()
	if v, ok := old[key]; ok {
		return v
	}
	next := maps.Clone(old)
	v := new(V)
	next[key] = v
	p.Store(&next)
	return v
}
