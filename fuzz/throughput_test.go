package fuzz

import (
	"testing"

	"github.com/limcheck/limcheck/oracle"
	"github.com/limcheck/limcheck/oracle/gen"
)

// benchTraces is how many generated traces a differential benchmark cycles
// through: drawn before the timer starts, from fixed seeds.
const benchTraces = 256

// BenchmarkDifferentialLim measures lim ops per second through the model
// and impl together (each op applied to both and compared, as the state
// machines and fuzz targets do) over generated traces.
func BenchmarkDifferentialLim(b *testing.B) { benchDifferential(b, oracle.Lim) }

// BenchmarkDifferentialGate measures gate ops per second through the model
// and impl together over generated traces, opening both per trace.
func BenchmarkDifferentialGate(b *testing.B) { benchDifferential(b, oracle.Gate) }

// BenchmarkDifferentialThrottle measures throttle ops per second through
// the model and impl together over generated traces, opening both per trace.
func BenchmarkDifferentialThrottle(b *testing.B) { benchDifferential(b, oracle.Throttle) }

func benchDifferential(b *testing.B, c oracle.Component) {
	traces := make([]oracle.Trace, benchTraces)
	for seed := range traces {
		traces[seed] = gen.Trace(c).Example(seed)
	}
	ops := 0
	for i := 0; b.Loop(); i++ {
		tr := traces[i%len(traces)]
		d := openDifferential(b, c, tr.Config)
		if d == nil {
			continue // both refused the config
		}
		for _, op := range tr.Ops {
			d.step(b, op)
		}
		ops += len(tr.Ops)
	}
	b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "ops/s")
}
