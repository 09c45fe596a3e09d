// Package bench measures impl/ side by side with the anchors a Go service
// would otherwise use: golang.org/x/time/rate, the common
// map[string]*rate.Limiter behind a mutex, sync.Map, and a naive sliding log;
// and impl/httplimit's middleware beside go-chi/httprate and tollbooth
// (middleware_test.go).
// It is a separate module so that the anchors stay out of limcheck's own
// dependencies. BENCHMARKS.md gives the command and the figures.
package bench
