package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/limcheck/limcheck/internal/slowdown"
)

// Script commands that check what becomes of the processes limcheck
// starts (lifetime_*.txtar): every way limcheck ends kills the whole
// process group of every port it started.

// cmdGoneGroup is `gonegroup PGIDFILE`: it fails unless every process of
// the process group whose id PGIDFILE holds is gone within 30s (scaled).
// A zombie counts as gone: it has ended, and only its parent's wait is
// left (an orphan's parent is whatever reaps orphans here, maybe slowly).
// The processes it waits for were killed, so only a machine too busy to
// deliver a SIGKILL takes that long.
func cmdGoneGroup(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gonegroup PGIDFILE")
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(ts.ReadFile(args[0])))
	if err != nil || pgid <= 1 {
		ts.Fatalf("%s: not a process group id: %v", args[0], err)
	}
	var left []string
	for end := time.Now().Add(slowdown.Scale(30 * time.Second)); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if left = groupMembers(pgid); len(left) == 0 {
			return
		}
	}
	ts.Fatalf("process group %d still has %s", pgid, strings.Join(left, ", "))
}

// groupMembers lists the live processes of process group pgid, from
// /proc where there is one (zombies left out), or says that signal 0
// still finds some.
func groupMembers(pgid int) []string {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
			return nil
		}
		return []string{"a process signal 0 finds"}
	}
	var left []string
	for _, f := range stats {
		b, err := os.ReadFile(f)
		i := bytes.LastIndexByte(b, ')')
		if err != nil || i < 0 {
			continue // gone meanwhile
		}
		// after the command's name: state ppid pgrp ...
		fields := strings.Fields(string(b[i+1:]))
		if len(fields) < 3 || fields[0] == "Z" || fields[2] != strconv.Itoa(pgid) {
			continue
		}
		left = append(left, fmt.Sprintf("%s %s (state %s)", filepath.Base(filepath.Dir(f)), b[bytes.IndexByte(b, '('):i+1], fields[0]))
	}
	return left
}

// cmdSignal is `signal NAME PIDFILE`: it sends the signal NAME (HUP, INT,
// QUIT, PIPE, TERM) to the process whose pid PIDFILE holds. testscript's
// own kill knows only INT and KILL.
func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	sigs := map[string]syscall.Signal{"HUP": syscall.SIGHUP, "INT": syscall.SIGINT, "QUIT": syscall.SIGQUIT, "PIPE": syscall.SIGPIPE, "TERM": syscall.SIGTERM}
	if neg || len(args) != 2 || sigs[args[0]] == 0 {
		ts.Fatalf("usage: signal HUP|INT|QUIT|PIPE|TERM PIDFILE")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(ts.ReadFile(args[1])))
	if err != nil || pid <= 1 {
		ts.Fatalf("%s: not a pid: %v", args[1], err)
	}
	if err := syscall.Kill(pid, sigs[args[0]]); err != nil {
		ts.Fatalf("kill -%s %d: %v", args[0], pid, err)
	}
}
