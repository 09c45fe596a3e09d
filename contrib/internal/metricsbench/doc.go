// Package metricsbench holds no code: its test file measures the
// middleware's cost per request with metrics off and with each adapter of
// the contrib module (prommetrics, otelmetrics), side by side in one run.
// BENCHMARKS.md gives the command and the figures.
package metricsbench
