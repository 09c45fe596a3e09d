package metricsbench

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/limcheck/limcheck/contrib/otelmetrics"
	"github.com/limcheck/limcheck/contrib/prommetrics"
	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/lim"
	"github.com/prometheus/client_golang/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// nop is a handler that writes nothing: the figures are the middleware's.
var nop = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})

// adapters are the metrics each benchmark runs with: none, and each adapter.
func adapters(tb testing.TB) []struct {
	name string
	m    httplimit.Metrics
} {
	pm, err := prommetrics.New(prometheus.NewRegistry())
	if err != nil {
		tb.Fatal(err)
	}
	om, err := otelmetrics.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())))
	if err != nil {
		tb.Fatal(err)
	}
	return []struct {
		name string
		m    httplimit.Metrics
	}{{"metrics=off", nil}, {"metrics=prometheus", pm}, {"metrics=otel", om}}
}

// TestAdaptersAllocateNothing checks that no adapter adds an allocation
// to the middleware's pass or limited 503: with metrics on, as off, a
// request allocates nothing (the first request of a policy makes its
// counters, before the runs counted).
func TestAdaptersAllocateNothing(t *testing.T) {
	for _, a := range adapters(t) {
		for _, c := range []struct {
			path     string
			cap, ivl int64
			want     int
		}{{"pass", 1 << 62, 1, 0}, {"limited", 1, 1 << 40, http.StatusServiceUnavailable}} {
			h, r := handler(t, a.m, c.cap, c.ivl, c.want)
			w := &writer{h: make(http.Header, 4)}
			allocs := testing.AllocsPerRun(100, func() {
				clear(w.h)
				h.ServeHTTP(w, r)
			})
			if allocs != 0 || w.code != c.want {
				t.Errorf("%s, %s: %v allocations per request, status %d; want 0, %d", a.name, c.path, allocs, w.code, c.want)
			}
		}
	}
}

// run serves r through a limiter over lim_cfg(cap, 1, ivl, 1<<20) at a
// fixed tick, reporting to m, into a reused writer; every response must
// have status want. Besides ns/op, cpu-ns/op is the CPU time of the
// benchmark's thread per request (threadCPU): on a shared machine it
// leaves out the time spent waiting for a core.
func run(b *testing.B, m httplimit.Metrics, cap, ivl int64, want int) {
	h, r := handler(b, m, cap, ivl, want)
	w := &writer{h: make(http.Header, 4)}
	b.ReportAllocs()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0, ok := threadCPU()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, r)
	}
	if cpu1, ok1 := threadCPU(); ok && ok1 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
	}
	if w.code != want {
		b.Fatalf("status %d, want %d", w.code, want)
	}
}

// handler is a limiter over lim_cfg(cap, 1, ivl, 1<<20) at a fixed tick,
// reporting to m, in front of a handler that writes nothing (status 0 on
// a pass), and a request from one IPv4 client, already sent once: when
// want is not 0 it spent the one token.
func handler(tb testing.TB, m httplimit.Metrics, cap, ivl int64, want int) (http.Handler, *http.Request) {
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(cap, 1, ivl, 1<<20), Sets: 256, Ways: 4, TickNanos: 1})
	if err != nil {
		tb.Fatal(err)
	}
	opts := []httplimit.Option{httplimit.WithClock(func() int64 { return 0 })}
	if m != nil {
		opts = append(opts, httplimit.WithMetrics(m))
	}
	l, err := httplimit.New(g, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	h := l.Wrap(nop)
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "192.0.2.1:1234"
	h.ServeHTTP(httptest.NewRecorder(), r) // the policy's first request; with cap 1, the one token
	return h, r
}

// BenchmarkPass is the pass path (Decision and two InFlight calls) of an
// IPv4 client, metrics off and with each adapter.
func BenchmarkPass(b *testing.B) {
	for _, a := range adapters(b) {
		b.Run(a.name, func(b *testing.B) { run(b, a.m, 1<<62, 1, 0) })
	}
}

// BenchmarkLimited is the 503 of a spent bucket (one Decision call).
func BenchmarkLimited(b *testing.B) {
	for _, a := range adapters(b) {
		b.Run(a.name, func(b *testing.B) { run(b, a.m, 1, 1<<40, http.StatusServiceUnavailable) })
	}
}

// writer is a ResponseWriter that keeps one header map and drops the body.
type writer struct {
	h    http.Header
	code int
}

func (w *writer) Header() http.Header         { return w.h }
func (w *writer) WriteHeader(code int)        { w.code = code }
func (w *writer) Write(p []byte) (int, error) { return len(p), nil }
