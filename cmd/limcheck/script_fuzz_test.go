package main

import (
	"errors"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/limcheck/limcheck/internal/slowdown"
)

// cmdAllGone is `allgone PIDFILE`: it fails unless every process whose
// pid PIDFILE lists, one a line (FAKEPORT_PIDS), is gone within 30s
// (scaled), as gone checks one; and unless it lists at least one.
func cmdAllGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: allgone PIDFILE")
	}
	var pids []int
	for _, f := range strings.Fields(ts.ReadFile(args[0])) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			ts.Fatalf("%s: %v", args[0], err)
		}
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		ts.Fatalf("%s lists no pid", args[0])
	}
	end := time.Now().Add(slowdown.Scale(30 * time.Second))
	for _, pid := range pids {
		for !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			if time.Now().After(end) {
				ts.Fatalf("process %d is still running", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
