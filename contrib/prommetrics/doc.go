// Package prommetrics reports what impl/httplimit's middleware and login
// guard do as Prometheus metrics: an [httplimit.Metrics] over
// github.com/prometheus/client_golang. It lives in the contrib module so
// that limcheck's own module does not require client_golang.
//
// [New] registers three collectors:
//
//	httplimit_requests_total{policy, result, shadow}  counter: each decision of a limit
//	        (result: passed, limited, shed, invalid, allowed; shadow: true for a shadow
//	        policy's, whose limited requests were not refused)
//	httplimit_requests_in_flight                      gauge: the requests holding a place
//	        of the in-flight gate
//	httplimit_login_alarms_total{kind}                counter: the login guard's alarms
//	        (kind: unavailable, kept, pending_full)
//
// A policy's series appear, every result at 0, at its first decision. A
// decision costs a lookup of its policy's counters in a map read through an
// atomic pointer (copied on write when a policy is first seen) and an
// atomic add, and allocates nothing; BENCHMARKS.md gives the figures.
//
// Imports: the standard library, impl/httplimit and client_golang.
package prommetrics
