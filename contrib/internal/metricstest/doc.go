// Package metricstest drives an [httplimit.Metrics] through a real
// loopback server so that each adapter's test reads its own counters back
// after the same requests. It imports the standard library and
// impl/httplimit, impl/gate, impl/lim and impl/throttle.
package metricstest
