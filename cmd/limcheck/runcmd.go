package main

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/conformance/report"
)

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// reportFlags choose the report's forms.
type reportFlags struct {
	json       bool
	junit      string
	quiet      bool
	expectFail string
	allowEmpty bool
	failFast   bool
	html       string
	ci         ciFlags
}

func (rf *reportFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&rf.json, "json", false, "print the report as JSON on stdout instead of text")
	fs.StringVar(&rf.junit, "junit", "", "also write the report as JUnit XML to `FILE`")
	fs.BoolVar(&rf.quiet, "q", false, "print only the cases that did not pass or skip, and the closing line")
	fs.BoolVar(&rf.allowEmpty, "allow-empty", false, "exit 0, not 4, when nothing was checked (the port skipped every case)")
	fs.StringVar(&rf.html, "html", "", "also write the report as one self-contained HTML page to `FILE`")
	fs.BoolVar(&rf.failFast, "fail-fast", false, "stop at the first case that fails or breaks; the cases after it are NOT RUN")
	fs.StringVar(&rf.expectFail, "expect-fail", "", "`FILE` lists known-failing case IDs, one a line (# comments): they may fail; passing is reported")
	rf.ci.register(fs)
}

// runFlags are run's flags: its ports, its reports, the cases it selects
// and --alone.
type runFlags struct {
	pf    portFlags
	rf    reportFlags
	sel   selection
	alone int
}

func (f *runFlags) register(fs *flag.FlagSet) {
	f.pf.registerMany(fs, 10*time.Minute)
	f.rf.register(fs)
	f.sel.register(fs)
	fs.IntVar(&f.alone, "alone", report.DefaultAlone, "re-run the first `N` failing cases each alone in a fresh port, to show the stderr that is its own (0: none)")
}

// runCmd is `limcheck run`: the selected vectors on one port, or on
// several side by side.
func (c cli) runCmd(args []string) int {
	fs := c.flags("run", "[flags]", "Runs every conformance vector against a port and reports each case.\nBy default only core cases run; -strict adds the strict (out-of-contract) ones.", checkStatuses)
	var f runFlags
	f.register(fs)
	if _, st := c.parse(fs, args, 0, 0); st != proceed {
		return st
	}
	if !f.pf.check(c, fs) {
		return report.ExitUsage
	}
	if f.alone < 0 || f.alone > report.MaxAlone {
		fmt.Fprintf(c.stderr, "limcheck run: -alone %d is out of range: want 0 to %d\n", f.alone, report.MaxAlone)
		return report.ExitUsage
	}
	all, selected, err := f.sel.load(fs)
	if err != nil {
		fmt.Fprintf(c.stderr, "limcheck run: %v\n", err)
		return report.ExitUsage
	}
	j := checkJob{cmd: "run", pf: &f.pf, rf: &f.rf, selected: selected, alone: f.alone, stream: true}
	if len(f.pf.commands) > 1 {
		return c.checkMany(j, all)
	}
	return c.check(j, all)
}

// checkJob is one check of a port: the command it is for (run or replay,
// for messages), the port, the reports, the cases and how they run.
type checkJob struct {
	cmd      string
	pf       *portFlags
	rf       *reportFlags
	expected map[string]bool    // the IDs --expect-fail lists (check reads them)
	selected []conformance.Case // the cases to run, in order
	alone    int                // re-run the first alone failing cases alone in a fresh port (stderrAloneFor)
	stream   bool               // print the text report's cases as they finish
	onStop   func(*report.Run)  // when set, prints the report of a run a signal stops, instead of emit (live.partial)
}

// check runs j's cases (of all, for --expect-fail) on its port and
// reports. The first j.alone failing cases are re-run alone for their own
// stderr (stderrAloneFor).
func (c cli) check(j checkJob, all []conformance.Case) int {
	var err error
	if j.expected, err = readExpectFail(j.rf.expectFail, all); err != nil {
		fmt.Fprintf(c.stderr, "limcheck %s: %v\n", j.cmd, err)
		return report.ExitUsage
	}
	rep, st := c.checkPort(j)
	if rep == nil {
		return st
	}
	return c.emit(j.cmd, j.rf, rep)
}

// checkPort runs j's cases on the port j.pf names and returns its report,
// or nil and the exit status when the port cannot run at all.
func (c cli) checkPort(j checkJob) (*report.Run, int) {
	pf, selected, expected := j.pf, j.selected, j.expected
	start := time.Now()
	port, err := c.openWatched(j, start)
	var (
		broken *judge.BrokenError
		late   *judge.DeadlineError
	)
	if errors.As(err, &broken) || errors.As(err, &late) { // no hello: every case is not run
		results := make([]judge.CaseResult, len(selected))
		for i, cs := range selected {
			results[i] = judge.CaseResult{Case: cs, Verdict: judge.NotRun}
		}
		rep := report.New(protocol.Hello{Name: pf.command}, results, expected, time.Since(start))
		if broken != nil {
			rep.Breaks(report.AtHandshake, "handshake: "+broken.What, broken.Stderr)
		} else {
			rep.Incomplete, rep.TimedOut = pf.timedOut(0, len(selected))+", waiting for the port's hello", true
		}
		report.PortProblem(c.stderr, pf.command, pf.timeout, err)
		return rep, rep.ExitStatus()
	}
	if err != nil {
		return nil, report.PortProblem(c.stderr, pf.command, pf.timeout, err)
	}
	rep := report.Start(port.Hello(), expected)
	lv := c.newLive(j, rep, start)
	runErr := lv.RunInBatches(port, selected)
	closeErr := port.Close()
	lv.Lock()
	defer lv.Unlock()
	// A port that wrote no stderr has none to attribute. Only now, after
	// Close, is all it wrote counted: decided while the run went on, it
	// would depend on how soon the stderr reader ran.
	if lv.Held && port.WroteStderr() {
		if why := stderrAloneFor(j, rep, time.Since(start)); why != "" {
			fmt.Fprintf(c.stderr, "limcheck %s: %s\n", j.cmd, why)
		}
	}
	lv.Held = false
	rep.Finish(time.Since(start))
	switch done := len(selected) - rep.Summary.NotRun; {
	case errors.As(runErr, &broken):
		rep.Breaks(report.AtRun, broken.What, "")
	case errors.As(runErr, &late):
		rep.Incomplete, rep.TimedOut = pf.timedOut(done, len(selected)), true
	case runErr != nil:
		rep.Breaks(report.AtRun, runErr.Error(), "")
	case errors.As(closeErr, &broken):
		rep.Breaks(report.AtShutdown, broken.What, broken.Stderr)
	case errors.As(closeErr, &late):
		rep.Incomplete, rep.TimedOut = pf.timedOut(done, len(selected))+", waiting for the port to exit", true
	}
	lv.end()
	return rep, rep.ExitStatus()
}

// openWatched is j.pf.open. Side by side (j.onStop set), a signal during
// the handshake prints the report of the ports so far, this one's every
// case NOT RUN, as one during its run does: the live report of its run is
// registered from before the port starts.
func (c cli) openWatched(j checkJob, start time.Time) (*protocol.Port, error) {
	if j.onStop == nil {
		return j.pf.open()
	}
	j.alone, j.stream = 0, false
	lv := c.newLive(j, report.Start(protocol.Hello{Name: j.pf.command}, j.expected), start)
	port, err := j.pf.open()
	lv.Lock() // a signal that froze lv holds it: limcheck exits with lv's report
	defer lv.Unlock()
	lv.end()
	return port, err
}

// aloneFloor is the least time the re-runs alone of a run get together:
// they get as long as the run itself took, and at least this and the
// handshake timeout (each re-run starts a port, and a machine slow enough
// to need a long handshake timeout is slow at starting ports too).
const aloneFloor = 15 * time.Second

// aloneTime is the time the re-runs alone of a run that took ran get.
func aloneTime(pf *portFlags, ran time.Duration) time.Duration {
	return max(ran, aloneFloor, pf.handshakeTimeout)
}

// stderrAloneFor re-runs each of the first most failing cases of rep
// (of cases, in the same order) alone in a fresh port, within the run's
// deadline, and shows under it the stderr of that run: in the run, what
// the port wrote while a case ran may be its neighbours'. The other
// failing cases keep the stderr of their window, so labelled.
//
// The report waits for the re-runs, so they are bounded: together they
// take at most as long as the run took (ran), or aloneFloor or the
// handshake timeout if longer, and they
// stop at the first that cannot start or hangs (a port that hangs when
// restarted does so every time). Then stderrAloneFor returns why, for
// the user who waited; else "".
func stderrAloneFor(j checkJob, rep *report.Run, ran time.Duration) string {
	pf, cases, most := j.pf, j.selected, j.alone
	budget, given := *pf, aloneTime(pf, ran)
	budget.deadline = time.Now().Add(given)
	if pf.deadline.Before(budget.deadline) {
		budget.deadline = pf.deadline
	}
	n, done := 0, 0
	for i := range rep.Cases {
		cr := &rep.Cases[i]
		if cr.Verdict != string(judge.Fail) {
			continue
		}
		if n++; n > most || time.Now().After(pf.deadline) {
			return ""
		}
		stderr, verdict, err := runAlone(&budget, cases[i])
		if err != nil {
			return fmt.Sprintf("re-running failing cases alone for their own stderr stopped at %s, after %d: the port, restarted, %s; the other failing cases show the stderr of their window (--alone 0 skips re-runs)", cr.ID, done, restartProblem(err, pf, &budget, given))
		}
		done++
		alone := ""
		if verdict != judge.Fail {
			alone = strings.ToUpper(string(verdict))
		}
		rep.SetStderr(cr, report.StderrAlone, stderr, alone)
	}
	return ""
}

// restartProblem says what err, from runAlone under budget's deadline,
// was: the run's --timeout, the re-runs' time (given them: aloneTime of
// the run), or a port that broke (hung) or did not start.
func restartProblem(err error, pf, budget *portFlags, given time.Duration) string {
	var (
		late   *judge.DeadlineError
		broken *judge.BrokenError
	)
	switch {
	case errors.As(err, &late) && !budget.deadline.Before(pf.deadline):
		return fmt.Sprintf("was still in %s when the run's --timeout (%v) passed", late.During, pf.timeout)
	case errors.As(err, &late):
		return fmt.Sprintf("was still in %s when the re-runs' time was over (%v: as long as the run took, at least %v and the handshake timeout)", late.During, given.Round(time.Millisecond), aloneFloor)
	case errors.As(err, &broken):
		return "broke: " + report.Clean(broken.What)
	}
	return "did not start: " + report.Clean(err.Error())
}

// runAlone runs the case c alone in a fresh port and returns what the port
// wrote on stderr and the case's verdict. The error says why there is no
// verdict to show: the port did not start, or it hung (it broke after a
// wait of a second or more: no hello, no reply, no exit), or the deadline
// passed. A port that breaks at once (a crash on that case) gives the
// case's verdict alone, BROKEN, and no error.
func runAlone(pf *portFlags, c conformance.Case) (stderr string, verdict judge.Verdict, err error) {
	start := time.Now()
	port, err := pf.open()
	if err != nil {
		return "", "", err
	}
	results, err := judge.RunCases(port, []conformance.Case{c})
	err = cmp.Or(err, port.Close())
	var late *judge.DeadlineError
	if errors.As(err, &late) || (err != nil && time.Since(start) >= time.Second) {
		return "", "", err
	}
	return port.Stderr(), results[0].Verdict, nil
}

// emit writes rep in the forms rf asks for and returns its exit status.
// A form that cannot be written does not stop the others: its error is
// printed, and the status is the run's own unless that is 0, then 2.
//
// spec PROTO-10: "When a report cannot be written, the write error is printed, the rest of the report still is, and a status of 1, 3 or 4 wins over 2"
func (c cli) emit(cmd string, rf *reportFlags, rep *report.Run) int {
	rep.Command, rep.AllowEmpty = cmd, rf.allowEmpty
	rep.Status = rep.ExitStatus()
	status := rep.Status
	out := bufio.NewWriter(c.stdout)
	if rf.json {
		report.WriteJSON(out, rep) //nolint:errcheck // Flush returns the first write error
	} else {
		report.WriteText(out, rep, rf.quiet)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(c.stderr, "limcheck %s: write the report: %v\n", cmd, err)
		status = report.Worse(status, report.ExitUsage)
	}
	if rf.junit != "" {
		if err := report.WriteJUnit(rf.junit, rep); err != nil {
			fmt.Fprintf(c.stderr, "limcheck %s: %v\n", cmd, err)
			status = report.Worse(status, report.ExitUsage)
		}
	}
	if rf.html != "" {
		if err := report.WriteHTML(rf.html, rep); err != nil {
			fmt.Fprintf(c.stderr, "limcheck %s: %v\n", cmd, err)
			status = report.Worse(status, report.ExitUsage)
		}
	}
	if err := rf.ci.write(report.RunSummary(cmd, rep.Status, []*report.Run{rep}), report.RunBadge(rep.Status, []*report.Run{rep})); err != nil {
		fmt.Fprintf(c.stderr, "limcheck %s: %v\n", cmd, err)
		status = report.Worse(status, report.ExitUsage)
	}
	switch {
	case rep.Incomplete != "" && rf.allowEmpty:
		fmt.Fprintf(c.stderr, "limcheck %s: %s; --allow-empty accepts that\n", cmd, rep.Incomplete)
	case rep.Incomplete != "":
		fmt.Fprintf(c.stderr, "limcheck %s: %s\n", cmd, rep.Incomplete)
	}
	return status
}

// loadVectors loads the built-in vectors, or those of dir.
func loadVectors(dir string) ([]conformance.Case, error) {
	var fsys fs.FS = conformance.Vectors
	if dir != "" {
		st, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("-vectors %s: %w", dir, errors.Unwrap(err))
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("-vectors %s: not a directory (replay runs one file)", dir)
		}
		fsys = os.DirFS(dir)
	}
	cases, err := conformance.Load(fsys)
	if err != nil && dir != "" {
		return nil, fmt.Errorf("-vectors %s: %w", dir, err)
	}
	if err == nil && len(cases) == 0 {
		err = fmt.Errorf("-vectors %s: no case files (want <component>/<id>.json)", dir)
	}
	return cases, err
}

// selection is the flags that choose the cases: the vector set and the
// filters of run and list.
type selection struct {
	vectors                     string
	strict                      bool
	cases, clauses, comps, lvls listFlag
}

func (sel *selection) register(fs *flag.FlagSet) {
	fs.StringVar(&sel.vectors, "vectors", "", "read the vectors from `DIR` (laid out as conformance/vectors) instead of the built-in set")
	fs.BoolVar(&sel.strict, "strict", false, "also run the strict cases (out-of-contract input, spec.md VEC-5): -level core,strict")
	fs.Var(&sel.cases, "case", "run only cases whose ID matches `PATTERN` (a glob: gate-retry-*; repeatable, comma-separated)")
	fs.Var(&sel.clauses, "clause", "run only cases that list a spec clause matching `PATTERN` (LIM-7, a glob: 'GATE-*'; repeatable, comma-separated)")
	fs.Var(&sel.comps, "component", "run only cases of `COMPONENT` (lim, gate, throttle, throttle_faults; repeatable)")
	fs.Var(&sel.lvls, "level", "run only cases of `LEVEL`: core, strict (repeatable, comma-separated; default core)")
}

// load loads the vector set and selects its cases: all of them, for
// --expect-fail, and those the filters choose.
func (sel *selection) load(fs *flag.FlagSet) (all, selected []conformance.Case, err error) {
	levels := []string(sel.lvls)
	switch {
	case sel.strict && given(fs, "level"):
		return nil, nil, errors.New("-strict and -level: give one (-strict is -level core,strict)")
	case sel.strict:
		levels = []string{string(conformance.Core), string(conformance.Strict)}
	}
	if all, err = loadVectors(sel.vectors); err != nil {
		return nil, nil, err
	}
	selected, err = selectCases(all, conformance.Filter{IDs: sel.cases, Clauses: sel.clauses, Components: sel.comps, Levels: levels})
	return all, selected, err
}

// selectCases is conformance.Select, its errors worded for the flags.
func selectCases(all []conformance.Case, f conformance.Filter) ([]conformance.Case, error) {
	out, err := conformance.Select(all, f)
	var bad *conformance.FilterError
	switch {
	case errors.As(err, &bad):
		return nil, fmt.Errorf("-%s %q: %s", bad.Filter, bad.Value, bad.Why)
	case errors.Is(err, conformance.ErrNoMatch):
		return nil, errors.New("no case matches the filters (strict cases run only with -strict or -level strict)")
	}
	return out, err
}

// readInput reads the file name, a case or an -expect-fail list: a
// regular file of at most conformance.MaxFileSize bytes. Anything else is
// refused before a read: a FIFO would block it forever. The file is
// opened without blocking, and checked once open, so what is checked is
// what is read.
func readInput(name string) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s: not a regular file", name)
	case st.Size() > conformance.MaxFileSize:
		return nil, inputTooBig(name, st.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, conformance.MaxFileSize+1))
	if err == nil && len(data) > conformance.MaxFileSize {
		err = inputTooBig(name, int64(len(data)))
	}
	return data, err
}

// inputTooBig is the error of a file of size bytes given to readInput.
func inputTooBig(name string, size int64) error {
	return fmt.Errorf("%s: %d bytes: over the limit of %d MiB per file", name, size, conformance.MaxFileSize>>20)
}

// readExpectFail reads the IDs file names; an ID that names no case is an
// error.
func readExpectFail(file string, all []conformance.Case) (map[string]bool, error) {
	out := map[string]bool{}
	if file == "" {
		return out, nil
	}
	data, err := readInput(file)
	if err != nil {
		return nil, fmt.Errorf("-expect-fail: %w", err)
	}
	known := map[string]bool{}
	for _, c := range all {
		known[c.ID] = true
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if !known[fields[0]] {
			return nil, fmt.Errorf("-expect-fail %s:%d: %q names no case", file, n, fields[0])
		}
		out[fields[0]] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("-expect-fail %s: %w", file, err)
	}
	return out, nil
}
