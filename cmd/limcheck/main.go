package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/conformance/report"
	"github.com/limcheck/limcheck/internal/subject"
)

func main() {
	stopOnSignals()
	status := cli{stdin: os.Stdin, stdout: pipeGuard{os.Stdout}, stderr: pipeGuard{os.Stderr}, tty: isTerminal(os.Stderr)}.main(os.Args[1:])
	protocol.KillAll() // whatever a path left running
	os.Exit(status)
}

// stopOnSignals makes every signal that ends limcheck (SIGHUP, SIGINT,
// SIGQUIT, SIGTERM) stop it through stop. SIGPIPE is caught too, so that
// a write to limcheck's own closed stdout or stderr fails (pipeGuard
// stops limcheck then) rather than kill it outright; one that comes from
// a port's closed stdin is the protocol's news, and is ignored here.
func stopOnSignals() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGPIPE)
	go func() {
		for sig := range ch {
			if sig != syscall.SIGPIPE {
				stop(sig.(syscall.Signal))
			}
		}
	}()
}

// stopping is held by the goroutine that stops limcheck, for good;
// exiting is set then, so that a write of the partial report that fails
// does not stop limcheck again (pipeGuard).
var (
	stopping sync.Mutex
	exiting  atomic.Bool
)

// stop ends limcheck on sig: it kills the process group of every port it
// started (each runs in its own, PROTO-1, so a terminal's signals never
// reach it, and a hung one would outlive limcheck), says so, and exits
// with 128 + the signal's number, as a shell reports a process the signal
// killed; a closed output with no port to stop (limcheck coverage | head)
// ends it silently, as SIGPIPE does. A SIGINT or SIGTERM during a run
// prints the run's partial report first (live.partial); any of the four
// during fuzz lets it write and print what it found (stopFuzz). It never
// returns.
func stop(sig syscall.Signal) {
	stopping.Lock()
	exiting.Store(true)
	lv := freeze(sig)
	fz := stopFuzz(sig) // before its port is killed
	msg := fmt.Sprintf("\nlimcheck: %v", sig)
	switch n := protocol.KillAll(); {
	case n == 1:
		msg += ": stopped the port"
	case n > 1:
		msg += fmt.Sprintf(": stopped %d ports", n)
	case sig == syscall.SIGPIPE:
		msg = ""
	}
	if msg != "" {
		fmt.Fprintln(os.Stderr, msg)
	}
	if lv != nil {
		lv.partial(sig)
	}
	waitFuzz(fz) // a divergence found is written and printed
	os.Exit(128 + int(sig))
}

// pipeGuard is limcheck's own stdout or stderr: a write that fails
// because its reader is gone (limcheck run | head -1) stops limcheck as
// SIGPIPE would, once the ports are killed.
type pipeGuard struct{ f *os.File }

func (g pipeGuard) Write(b []byte) (int, error) {
	n, err := g.f.Write(b)
	if errors.Is(err, syscall.EPIPE) && !exiting.Load() {
		stop(syscall.SIGPIPE)
	}
	return n, err
}

// run is main without the process, for tests: no stdin, no terminal.
func run(args []string, stdout, stderr io.Writer) int {
	return cli{stdin: strings.NewReader(""), stdout: stdout, stderr: stderr}.main(args)
}

// cli is one invocation's streams.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	tty            bool // stderr is a terminal: fuzz shows progress there
}

const usage = `usage:
  limcheck                      the built-in default: the bundled Go implementation
                                against every vector, a short differential fuzz and
                                spec.md's worked example
  limcheck run [flags]          every vector against a port (PASS / FAIL / SKIP per case),
                                or against several side by side (--port A --port B)
  limcheck fuzz [flags]         differential random testing of a port against the model;
                                a divergence is shrunk and written as a vector file
  limcheck replay [flags] FILE  one vector file (a case or a fuzz counterexample)
  limcheck vectors export DIR   write the conformance vectors and the schemas to DIR
  limcheck coverage             spec.md's clauses by the vectors that check them
  limcheck serve [-model]       be a port: the bundled Go implementation on stdin/stdout
                                (-redis ADDR: the Redis-backed gate and store instead;
                                -redis-cluster SEEDS, -redis-sentinel MASTER@ADDRS)
  limcheck walk [-q]            spec.md's worked example and findings through the model
  limcheck list [flags]         the cases run would run (ID, level, component, clauses)
  limcheck version              limcheck's, the spec's, the protocol's and the formats' versions

A port is a program speaking the protocol of spec.md (PROTO-1..11) on its
stdin and stdout, given as --port 'COMMAND ARGS' (run by sh -c). Without
--port, run, fuzz and replay check the bundled Go implementation in process.
'limcheck COMMAND -h' lists a command's flags.

Exit status (run, fuzz, replay and the default):
  0  every case passed (or was skipped, or failed as --expect-fail lists)
  1  some case failed, fuzz found a divergence, or a listed failure passed
  2  usage or input error: a bad flag, an unreadable or malformed vector
  3  the port broke the protocol: bad hello, crash, hang, non-JSON output,
     replies out of order or with an unknown seq, early exit
  4  incomplete: nothing was checked (the port skipped every case, or claims
     none of their components; --allow-empty makes that 0), or the run's
     --timeout passed before it finished
A signal that ends limcheck (SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM) kills
every port's process group and exits with 128 + its number (130 for SIGINT).
`

func (c cli) main(args []string) int {
	if len(args) == 0 {
		return c.defaultRun()
	}
	switch args[0] {
	case "run":
		return c.runCmd(args[1:])
	case "fuzz":
		return c.fuzzCmd(args[1:])
	case "replay":
		return c.replayCmd(args[1:])
	case "vectors":
		return c.vectorsCmd(args[1:])
	case "coverage":
		return c.coverageCmd(args[1:])
	case "serve":
		return c.serveCmd(args[1:])
	case "walk":
		return c.walkCmd(args[1:])
	case "list":
		return c.listCmd(args[1:])
	case "version", "-version", "--version":
		return c.versionCmd(args[1:])
	case "help", "-h", "-help", "--help":
		out := bufio.NewWriter(c.stdout)
		fmt.Fprint(out, usage)
		return c.written("help", out, report.ExitOK)
	}
	fmt.Fprintf(c.stderr, "limcheck: unknown command %q\n\n%s", args[0], usage)
	return report.ExitUsage
}

// flags returns a flag set for command name whose usage prints summary
// and statuses, the command's exit statuses.
func (c cli) flags(name, synopsis, summary, statuses string) *flag.FlagSet {
	fs := flag.NewFlagSet("limcheck "+name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		fmt.Fprintf(c.stderr, "usage: limcheck %s %s\n\n%s\n\nFlags:\n", name, synopsis, summary)
		fs.PrintDefaults()
		fmt.Fprintf(c.stderr, "\nExit status: %s.\n", statuses)
	}
	return fs
}

// The exit statuses of the commands, for their usage texts.
const (
	checkStatuses = "0 passed (or skipped, or failed as -expect-fail lists), 1 a case failed or a listed\nfailure passed, 2 usage or input error, 3 the port broke the protocol, 4 nothing was\nchecked (every case skipped; -allow-empty makes that 0)"
	toolStatuses  = "0 done, 2 usage or input error, or output that cannot be written"
)

// proceed is parse's status when the command should run.
const proceed = -1

// parse parses args with fs, allowing minArgs to maxArgs positional ones.
// It returns the positional arguments and proceed, or the status to exit
// with after printing the problem (0 after -h).
func (c cli) parse(fs *flag.FlagSet, args []string, minArgs, maxArgs int) ([]string, int) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, report.ExitOK
		}
		return nil, report.ExitUsage
	}
	if fs.NArg() < minArgs || fs.NArg() > maxArgs {
		if late := lateFlag(fs, maxArgs); late != "" {
			pos := fs.Args()[:min(maxArgs, fs.NArg())]
			fmt.Fprintf(c.stderr, "%s: flag %s after the arguments: flags come first (put %s before %s)\n", fs.Name(), late, strings.Join(fs.Args()[len(pos):], " "), strings.Join(pos, " "))
		} else if fs.NArg() > maxArgs {
			fmt.Fprintf(c.stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(maxArgs))
		} else {
			fmt.Fprintf(c.stderr, "%s: missing argument\n", fs.Name())
		}
		fs.Usage()
		return nil, report.ExitUsage
	}
	return fs.Args(), proceed
}

// lateFlag is the first argument past the first n that names one of fs's
// flags (-name, --name, -name=value), as a user writes it when flags follow
// the file (flag stops at the first argument), or "".
func lateFlag(fs *flag.FlagSet, n int) string {
	for _, arg := range fs.Args()[min(n, fs.NArg()):] {
		name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if strings.HasPrefix(arg, "-") && fs.Lookup(name) != nil {
			return arg
		}
	}
	return ""
}

// portFlags are the flags naming and bounding a port.
type portFlags struct {
	command          string
	commands         commandList // run's --port, repeatable: several ports side by side
	requestTimeout   time.Duration
	handshakeTimeout time.Duration
	timeout          time.Duration
	deadline         time.Time // the end of the whole run: set by the first open, kept by the next
	one              bool      // --port may be given once (fuzz, replay): check refuses more
}

// register registers the flags of a command that checks one port (fuzz,
// replay): --port given twice is a usage error (check), never a run of
// the last one alone.
func (pf *portFlags) register(fs *flag.FlagSet, overall time.Duration) {
	pf.one = true
	fs.Var(&pf.commands, "port", "the port: a command line run by sh -c (default: the bundled Go implementation, in process); once")
	pf.registerRest(fs, overall)
}

// registerMany is register with a repeatable --port: run checks several
// ports side by side.
func (pf *portFlags) registerMany(fs *flag.FlagSet, overall time.Duration) {
	fs.Var(&pf.commands, "port", "the port: a command line run by sh -c (default: the bundled Go implementation, in process); repeat it to check several ports side by side")
	pf.registerRest(fs, overall)
}

// commandList is a repeatable flag of command lines, which may hold commas.
type commandList []string

func (l *commandList) String() string { return strings.Join(*l, " ") }

func (l *commandList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

func (pf *portFlags) registerRest(fs *flag.FlagSet, overall time.Duration) {
	fs.DurationVar(&pf.requestTimeout, "request-timeout", 10*time.Second, "the longest wait for one reply before the port counts as hung")
	fs.DurationVar(&pf.handshakeTimeout, "handshake-timeout", time.Minute, "the longest wait for the port's hello")
	fs.DurationVar(&pf.timeout, "timeout", overall, "the longest the whole run may take")
}

// check reports a flag value out of range, and a -port given but empty
// or blank: an unset variable in a CI script must not check the bundled
// implementation instead of the port and pass.
func (pf *portFlags) check(c cli, fs *flag.FlagSet) bool {
	if pf.one && len(pf.commands) > 1 {
		cmd := strings.TrimPrefix(fs.Name(), "limcheck ")
		fmt.Fprintf(c.stderr, "%s: -port given more than once: %s checks one port (limcheck run --port A --port B checks several side by side)\n", fs.Name(), cmd)
		return false
	}
	if len(pf.commands) == 1 {
		pf.command = pf.commands[0]
	}
	bad := pf.command
	if len(pf.commands) > 0 {
		bad = "x" // every command is checked: none is blank
	}
	if i := slices.IndexFunc(pf.commands, func(s string) bool { return strings.TrimSpace(s) == "" }); i >= 0 {
		bad = pf.commands[i]
	}
	switch {
	case given(fs, "port") && strings.TrimSpace(bad) == "":
		fmt.Fprintf(c.stderr, "%s: -port %q is empty: give the port's command line, or leave -port out to check the bundled implementation\n", fs.Name(), bad)
	case pf.requestTimeout <= 0:
		fmt.Fprintf(c.stderr, "%s: -request-timeout %v: must be positive\n", fs.Name(), pf.requestTimeout)
	case pf.handshakeTimeout <= 0:
		fmt.Fprintf(c.stderr, "%s: -handshake-timeout %v: must be positive\n", fs.Name(), pf.handshakeTimeout)
	case pf.timeout <= 0:
		fmt.Fprintf(c.stderr, "%s: -timeout %v: must be positive\n", fs.Name(), pf.timeout)
	default:
		return true
	}
	return false
}

// given reports whether the flag name was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// open starts the port, or the bundled implementation in process. Every
// port it starts shares the deadline the first one got.
func (pf *portFlags) open() (*protocol.Port, error) {
	if pf.deadline.IsZero() {
		pf.deadline = time.Now().Add(pf.timeout)
	}
	opt := protocol.PortOptions{RequestTimeout: pf.requestTimeout, HandshakeTimeout: pf.handshakeTimeout, Deadline: pf.deadline}
	if pf.command == "" {
		return bundled(opt)
	}
	return protocol.StartPort(pf.command, opt) // KillAll reaches it from its start
}

// bundled is the project's impl/ served in process through the protocol.
func bundled(opt protocol.PortOptions) (*protocol.Port, error) {
	return protocol.ServePipe(subject.Impl{}, bundledHello(), opt)
}

func bundledHello() protocol.Hello {
	return protocol.Hello{Name: "limcheck-go", Version: report.SpecVersion()}
}

// timedOut says that the run's --timeout passed after done of all cases.
func (pf *portFlags) timedOut(done, all int) string {
	return fmt.Sprintf("the run's --timeout (%v) passed after %d of %s", pf.timeout, done, report.Plural(all, "case"))
}

// fuzzGCPercent is the GC target of the commands that stream traces (fuzz,
// serve, the default run): they allocate many short-lived small objects
// over a small live heap, and a GC every 100% of growth costs them about a
// third of their throughput (BENCHMARKS.md). A GOGC the user sets wins.
const fuzzGCPercent = 400

// tuneGC sets fuzzGCPercent unless GOGC is set.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(fuzzGCPercent)
	}
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// written writes out, a command's buffered stdout, and returns the
// command's status; when out cannot be written, it prints why and returns
// 2 unless the status is worse.
//
// spec PROTO-10: "When a report cannot be written, the write error is printed, the rest of the report still is, and a status of 1, 3 or 4 wins over 2"
func (c cli) written(cmd string, out *bufio.Writer, status int) int {
	if err := out.Flush(); err != nil {
		fmt.Fprintf(c.stderr, "limcheck %s: write the output: %v\n", cmd, err)
		return report.Worse(status, report.ExitUsage)
	}
	return status
}
