package bench

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time (user and system) the calling OS thread has
// used, and true; lock the goroutine to its thread around the span
// measured. On a loaded machine it counts what the thread ran, not the
// time it waited for a core, which wall-clock ns/op includes.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
