//go:build unix

package httplimit_test

import "syscall"

// cpuSeconds is the process's CPU time (user and system): a benchmark's
// cpu-ns/op counts less of other processes' load than its wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
