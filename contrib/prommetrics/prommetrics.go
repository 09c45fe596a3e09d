package prommetrics

import (
	"fmt"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/prometheus/client_golang/prometheus"
)

// series names one policy's counters: its name and whether it is a shadow.
type series struct {
	policy string
	shadow bool
}

// counters are one series' counters by result: the known results' are
// made with the series, another's is nil (counted on a slower path).
type counters [256]prometheus.Counter

// Metrics is an [httplimit.Metrics] over Prometheus collectors. Build one
// with [New]; give it to httplimit.WithMetrics and LoginConfig.Metrics.
// Safe for concurrent use.
type Metrics struct {
	requests *prometheus.CounterVec
	inFlight prometheus.Gauge
	alarms   *prometheus.CounterVec

	mu       sync.Mutex // serialises adding a series or an alarm kind
	series   atomic.Pointer[map[series]*counters]
	alarmsBy atomic.Pointer[map[httplimit.AlarmKind]prometheus.Counter]
}

var _ httplimit.Metrics = (*Metrics)(nil)

// New returns Metrics whose collectors are registered on reg (for example
// prometheus.DefaultRegisterer or a prometheus.NewRegistry()), or the
// registration's error, e.g. when reg already holds them.
func New(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "httplimit_requests_total",
			Help: "Decisions of the httplimit middleware's limits, by policy, result (passed, limited, shed, invalid, allowed) and shadow.",
		}, []string{"policy", "result", "shadow"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "httplimit_requests_in_flight",
			Help: "Requests holding a place of the httplimit middleware's in-flight gate.",
		}),
		alarms: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "httplimit_login_alarms_total",
			Help: "Alarms of the httplimit login guard, by kind (unavailable, kept, pending_full).",
		}, []string{"kind"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.inFlight, m.alarms} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("prommetrics: %w", err)
		}
	}
	m.series.Store(&map[series]*counters{})
	alarms := map[httplimit.AlarmKind]prometheus.Counter{}
	for _, k := range httplimit.AlarmKinds {
		alarms[k] = m.alarms.WithLabelValues(string(k))
	}
	m.alarmsBy.Store(&alarms)
	return m, nil
}

// Decision counts result r of policy.
func (m *Metrics) Decision(policy string, r httplimit.Result, shadow bool) {
	s := series{policy, shadow}
	cs, ok := (*m.series.Load())[s]
	if !ok {
		cs = lookup(&m.mu, &m.series, s, func() *counters { return m.newCounters(s) })
	}
	if c := cs[r]; c != nil {
		c.Inc()
		return
	}
	m.requests.WithLabelValues(policy, r.String(), strconv.FormatBool(shadow)).Inc() // a result of a later httplimit
}

// newCounters makes the counters of every known result of s, at 0.
func (m *Metrics) newCounters(s series) *counters {
	cs := new(counters)
	for _, r := range httplimit.Results {
		cs[r] = m.requests.WithLabelValues(s.policy, r.String(), strconv.FormatBool(s.shadow))
	}
	return cs
}

// InFlight adds delta to the in-flight gauge.
func (m *Metrics) InFlight(delta int) { m.inFlight.Add(float64(delta)) }

// LoginAlarm counts an alarm of kind.
func (m *Metrics) LoginAlarm(kind httplimit.AlarmKind) {
	c, ok := (*m.alarmsBy.Load())[kind]
	if !ok { // a kind of a later httplimit
		c = lookup(&m.mu, &m.alarmsBy, kind, func() prometheus.Counter { return m.alarms.WithLabelValues(string(kind)) })
	}
	c.Inc()
}

// lookup returns key's value in the map p points to, first storing a copy
// of the map with newV()'s value for key when it has none. Under mu: a map
// is never written once stored, so readers load it without a lock.
func lookup[K comparable, V any](mu *sync.Mutex, p *atomic.Pointer[map[K]V], key K, newV func() V) V {
	mu.Lock()
	defer mu.Unlock()
	old := *p.Load()
	if v, ok := old[key]; ok {
		return v
	}
	next := maps.Clone(old)
	v := newV()
	next[key] = v
	p.Store(&next)
	return v
}
