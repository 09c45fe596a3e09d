//go:build !unix

package httplimit_test

// cpuSeconds is 0 where getrusage is missing: cpu-ns/op then reads 0.
func cpuSeconds() float64 { return 0 }
