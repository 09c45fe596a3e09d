package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/limcheck/limcheck/conformance"
	ithrottle "github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/limcheck/limcheck/internal/slowdown"
	"github.com/limcheck/limcheck/internal/subject"
	"github.com/limcheck/limcheck/oracle"
)

// TestMain makes the test binary double as the commands the scripts run:
// limcheck (the real CLI) and fakeport (a misbehaving port, fakeport_test.go).
//
// As the test binary (not as one of the commands) it unsets
// GITHUB_STEP_SUMMARY: a test that runs the CLI in process (cliRun) must
// not append its summaries to the page of the CI job that runs the tests.
func TestMain(m *testing.M) {
	commands := map[string]func(){
		"limcheck":        main,
		"fakeport":        fakeportMain,
		"limcheck-maxrss": maxrssMain,
	}
	if _, command := commands[filepath.Base(os.Args[0])]; !command {
		os.Unsetenv(stepSummaryEnv) //nolint:errcheck // fails only on an invalid name
	}
	testscript.Main(m, commands)
}

// TestScripts runs testdata/script/*.txtar: the CLI end to end, as a
// user runs it, against ports that pass, fail and break the protocol.
// Each script runs in one build: raceScripts under the race detector, the
// others in the plain one (scriptsFor).
//
// The scripts see NCASES and NCORE, the numbers of built-in vectors and of
// core ones, and NIMPL and NIMPLSKIP, how many of them the bundled Go
// implementation runs and how many it skips (a config past its limits:
// more gate ways than subject.MaxGateSlots, a threshold over 16384),
// and NREDIS and NREDISSKIP the same for limcheck serve -redis (a threshold
// over 16384), counted from the vectors this binary embeds, so that they
// state exact counts without going stale when a vector is added; and WAIT
// and LONG, the generous handshake/request and whole-run time limits every
// run against a port passes (a minute and ten, times
// LIMCHECK_TEST_SLOWDOWN), so that a healthy port on a busy machine never
// counts as hung; and BUDGET (15 s, scaled), a whole-run --timeout that a
// script means to run out while a port hangs, after work a busy machine
// must still have time for. A script that checks hang detection sets its
// own short limit for the wait it means to exhaust.
// openErr is the error with which the bundled implementation opens tr's
// config.
func openErr(tr oracle.Trace) error {
	_, _, err := subject.Impl{}.Open(tr.Component, tr.Config)
	return err
}

func TestScripts(t *testing.T) {
	all, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatal(err)
	}
	core, implSkips, redisSkips := 0, 0, 0
	for _, c := range all {
		if c.Level != conformance.Strict {
			core++
		}
		if tr := c.Trace(); errors.Is(openErr(tr), oracle.ErrUnsupported) {
			implSkips++
		}
		if th := c.Trace().Config.Throttle; th != nil {
			if n, ok := th.Threshold.Uint64(); ok && n > ithrottle.MaxStampsPerKey {
				redisSkips++ // the Redis store keeps impl's limit on stamps per key
			}
		}
	}
	files, err := scriptsFor(raceEnabled)
	if err != nil {
		t.Fatal(err)
	}
	path := shimFreePath(t)
	testscript.Run(t, testscript.Params{
		Files:               files,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", path)
			env.Setenv("NCASES", strconv.Itoa(len(all)))
			env.Setenv("NCORE", strconv.Itoa(core))
			env.Setenv("NIMPL", strconv.Itoa(len(all)-implSkips))
			env.Setenv("NIMPLSKIP", strconv.Itoa(implSkips))
			env.Setenv("NREDIS", strconv.Itoa(len(all)-redisSkips))
			env.Setenv("NREDISSKIP", strconv.Itoa(redisSkips))
			env.Setenv("WAIT", slowdown.Scale(time.Minute).String())
			env.Setenv("LONG", slowdown.Scale(10*time.Minute).String())
			env.Setenv("BUDGET", slowdown.Scale(15*time.Second).String())
			// Under -race every process sleeps 1s at exit by default; the
			// scripts start hundreds of them (limcheck and its ports).
			env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"waitfile":      cmdWaitFile,
			"gone":          cmdGone,
			"status":        cmdStatus,
			"validjson":     cmdValidJSON,
			"gonegroup":     cmdGoneGroup,
			"signal":        cmdSignal,
			"byteclean":     cmdByteClean,
			"schema":        cmdSchema,
			"samereport":    cmdSameReport,
			"redis":         cmdRedis,
			"rediscluster":  cmdRedisCluster,
			"redissentinel": cmdRedisSentinel,
		},
	})
}

// raceScripts are the scripts that exercise limcheck's own concurrency:
// the client's reader, writer and stderr goroutines against a port that
// breaks, hangs or floods, the deadlines, the signal handler and the
// killing of process groups, and fuzz's shrinking and deadlines when the
// port dies or stalls under it. They run in the race-detector build (make test's gotest);
// every other script runs in the plain build (make test's cli check),
// where it costs a third of the CPU: so each script runs once.
var raceScripts = map[string]bool{
	"broken": true, "broken_nohello": true, "protocol_breaks": true,
	"interrupt": true, "lifetime_group": true, "lifetime_signals": true,
	"timeout": true, "stderr": true, "fuzz_survive": true, "fuzz_time": true,
	"fuzz_signal": true, "multi_signal": true,
}

// scriptsFor lists the scripts of testdata/script for the race build
// (race) or the plain one, and fails when raceScripts names a script
// that is not there.
func scriptsFor(race bool) ([]string, error) {
	all, err := filepath.Glob("testdata/script/*.txtar")
	if err != nil {
		return nil, err
	}
	var files []string
	seen := 0
	for _, f := range all {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		if raceScripts[name] {
			seen++
		}
		if raceScripts[name] == race {
			files = append(files, f)
		}
	}
	if seen != len(raceScripts) {
		return nil, fmt.Errorf("raceScripts names %d scripts, testdata/script has %d of them", len(raceScripts), seen)
	}
	return files, nil
}

// cmdWaitFile is `waitfile FILE [REGEXP]`: it waits up to a minute
// (scaled) for FILE to exist and be non-empty, or to have a line that
// matches REGEXP (a background process's sign that it got somewhere).
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile FILE [REGEXP]")
	}
	re := regexp.MustCompile("(?m).")
	if len(args) == 2 {
		var err error
		if re, err = regexp.Compile("(?m)" + args[1]); err != nil {
			ts.Fatalf("waitfile: %v", err)
		}
	}
	limit := slowdown.Scale(time.Minute)
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if data, err := os.ReadFile(ts.MkAbs(args[0])); err == nil && re.Match(data) {
			return
		}
	}
	ts.Fatalf("%s did not appear (or match %q) within %v", args[0], re, limit)
}

// cmdGone is `gone PIDFILE`: it fails unless every process whose pid
// PIDFILE lists (one or more, separated by white space; FAKEPORT_PIDS
// collects them one a line) is gone within 30s (scaled; signal 0 finds no
// such process), and unless it lists at least one. The
// processes it waits for were killed, so only a machine too busy to reap
// them takes that long.
// cmdRedis is `redis VAR`: it starts a redis-server of the script's own
// (internal/redistest: a random loopback port, a directory in the script's
// work dir, no fsync, since no script restarts it, killed by its PID when
// the script ends) and sets VAR to its
// host:port. It fails the script, never skips it, when none can start.
func cmdRedis(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: redis VAR")
	}
	dir := ts.MkAbs("redis-data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		ts.Fatalf("%v", err)
	}
	srv, err := redistest.StartDir(dir, redistest.NoFsync()...)
	if err != nil {
		ts.Fatalf("redis: %v", err)
	}
	ts.Defer(srv.Kill)
	ts.Setenv(args[0], srv.Addr())
}

// cmdRedisCluster is `rediscluster VAR`: it starts a Redis Cluster of the
// script's own (internal/redistest: three primaries on random loopback
// ports, joined with redis-cli --cluster create, in the script's work dir,
// killed by their PIDs when the script ends) and sets VAR to its seed
// nodes, host:port,host:port,host:port. It fails the script, never skips
// it, when the cluster cannot start.
func cmdRedisCluster(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: rediscluster VAR")
	}
	c, err := redistest.NewCluster(ts.MkAbs("redis-cluster"), 0)
	if err != nil {
		ts.Fatalf("rediscluster: %v", err)
	}
	ts.Defer(c.Kill)
	ts.Setenv(args[0], strings.Join(c.Seeds(), ","))
}

// cmdRedisSentinel is `redissentinel VAR`: it starts a primary, its replica
// and a Sentinel of the script's own (internal/redistest, as redis does)
// and sets VAR to MASTER@SENTINEL, the -redis-sentinel syntax, and
// VAR_ADDRS to the Sentinel's host:port alone.
func cmdRedisSentinel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: redissentinel VAR")
	}
	s, err := redistest.NewSentinels(ts.MkAbs("redis-sentinel"))
	if err != nil {
		ts.Fatalf("redissentinel: %v", err)
	}
	ts.Defer(s.Kill)
	ts.Setenv(args[0], redistest.MasterName+"@"+strings.Join(s.Addrs(), ","))
	ts.Setenv(args[0]+"_ADDRS", strings.Join(s.Addrs(), ","))
}

func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gone PIDFILE")
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

// cmdStatus is `status N COMMAND [ARGS...]`: it runs COMMAND as exec does
// (its stdout and stderr are then what stdout and stderr match) and fails
// unless it exits with status N. exec only tells zero from non-zero;
// limcheck's statuses 1, 2 and 3 mean different things (PROTO-10).
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! status (status N states the outcome)")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: status N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil || want < 0 || want > 255 {
		ts.Fatalf("status: %q is not an exit status", args[0])
	}
	got, err := exitStatus(ts.Exec(args[1], args[2:]...))
	if err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// exitStatus is the exit status of a command that ended with err (from
// ts.Exec), or err when the command did not run or did not exit.
func exitStatus(err error) (int, error) {
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exit) && exit.Exited():
		return exit.ExitCode(), nil
	}
	return 0, err
}

// cmdValidJSON is `validjson FILE`: it fails unless FILE (or stdout, the
// last command's) is one JSON document.
func cmdValidJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: validjson FILE")
	}
	if ok := json.Valid([]byte(ts.ReadFile(args[0]))); ok == neg {
		ts.Fatalf("%s: JSON valid %v, want %v", args[0], ok, !neg)
	}
}
