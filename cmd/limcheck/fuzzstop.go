package main

import (
	"fmt"
	"sync"
	"syscall"
	"time"
)

// fuzzing is the fuzz run a signal stops, if one is going on: stop
// hands it the signal (stopFuzz) rather than exit at once, so that a
// divergence found is written and printed before limcheck exits (docs/commands.md:
// "A divergence is never lost").
var fuzzing struct {
	sync.Mutex
	stop chan struct{}  // closed on the signal; nil when no fuzz run is going on
	done chan struct{}  // closed when the run has written and printed what it found
	sig  syscall.Signal // the signal, once one came
}

// fuzzGrace is the longest stop waits for a fuzz run to write and print
// what it found once its port is killed: it needs the model and the disk,
// not the port, so this is only a bound on a bug.
const fuzzGrace = 10 * time.Second

// startFuzzStop registers a fuzz run for stopFuzz and returns the channel
// a signal closes (search.FuzzOptions.Stop). endFuzzStop ends it.
func startFuzzStop() <-chan struct{} {
	fuzzing.Lock()
	defer fuzzing.Unlock()
	fuzzing.stop, fuzzing.done, fuzzing.sig = make(chan struct{}), make(chan struct{}), 0
	return fuzzing.stop
}

// fuzzStoppedBy says which signal stopped the fuzz run, "" when none did:
// "limcheck was stopped (interrupt)".
func fuzzStoppedBy() string {
	fuzzing.Lock()
	defer fuzzing.Unlock()
	if fuzzing.sig == 0 {
		return ""
	}
	return fmt.Sprintf("limcheck was stopped (%v)", fuzzing.sig)
}

// endFuzzStop ends the fuzz run startFuzzStop registered, its report
// printed, and returns the status it exits with: 128 + the signal's
// number when one stopped it, st otherwise. stop, waiting, exits next.
func endFuzzStop(st int) int {
	fuzzing.Lock()
	defer fuzzing.Unlock()
	if fuzzing.sig != 0 {
		st = 128 + int(fuzzing.sig)
	}
	if fuzzing.done != nil {
		close(fuzzing.done)
	}
	fuzzing.stop, fuzzing.done = nil, nil
	return st
}

// stopFuzz tells the fuzz run going on, if any, that sig stops it, before
// stop kills its port (the run then takes the break for the stop), and
// returns the channel closed when the run has printed what it found; nil
// when no fuzz run is going on, or for SIGPIPE, which pipeGuard sends
// from the run's own goroutine, its output gone.
func stopFuzz(sig syscall.Signal) <-chan struct{} {
	fuzzing.Lock()
	defer fuzzing.Unlock()
	if fuzzing.stop == nil || sig == syscall.SIGPIPE {
		return nil
	}
	fuzzing.sig = sig
	close(fuzzing.stop)
	return fuzzing.done
}

// waitFuzz waits for the fuzz run stopFuzz stopped to print what it
// found, at most fuzzGrace; done nil: no run, no wait.
func waitFuzz(done <-chan struct{}) {
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-time.After(fuzzGrace):
	}
}
