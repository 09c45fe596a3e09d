// Package otelmetrics reports what impl/httplimit's middleware and login
// guard do as OpenTelemetry metrics: an [httplimit.Metrics] over
// go.opentelemetry.io/otel/metric's API, for any MeterProvider (the SDK's,
// or a vendor's). It lives in the contrib module so that limcheck's own
// module does not require OpenTelemetry.
//
// [New] makes three asynchronous instruments on the meter named
// [ScopeName], reported by one callback at each collection:
//
//	httplimit.requests           Int64ObservableCounter {request}: each decision of a
//	                             limit, with the attributes httplimit.policy,
//	                             httplimit.result (passed, limited, shed, invalid, allowed)
//	                             and httplimit.shadow (true for a shadow policy's)
//	httplimit.requests.in_flight Int64ObservableUpDownCounter {request}: the requests
//	                             holding a place of the in-flight gate
//	httplimit.login.alarms       Int64ObservableCounter {alarm}: the login guard's alarms,
//	                             with the attribute httplimit.alarm (unavailable, kept,
//	                             pending_full)
//
// A decision only adds to an atomic counter (its policy's found in a map read
// through an atomic pointer, copied on write when a policy name is first
// seen); the SDK reads them when it collects. A synchronous instrument's Add
// would cost the SDK's aggregation on every request: about 100 to 190 ns of
// CPU each on the 2-core machine of BENCHMARKS.md, three per pass, where the
// counters cost a few ns. BENCHMARKS.md gives the figures.
//
// Imports: the standard library, impl/httplimit and OpenTelemetry's
// metric API.
package otelmetrics
