// The README's commands run in the plain build (make test's cli check):
// they check what the README says, not limcheck's concurrency, and the
// race detector would triple their cost.

//go:build !race

package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/report"
)

// The command lines of the README and of docs/, run as a user runs them
// (TestReadmeCommandsRun), and their sample outputs compared with what
// the commands print, so that the documentation cannot drift from the tool
// again.

// readmePath is README.md from this package's directory.
const readmePath = "../../README.md"

// docsDir is docs/ from this package's directory.
const docsDir = "../../docs"

// updateDocs rewrites the sample outputs of README.md and docs/ with what
// their commands print now.
var updateDocs = flag.Bool("update", false, "rewrite the sample outputs of README.md and docs/*.md with what their commands print")

// readmeCommand is one command line of README.md or a page of docs/.
type readmeCommand struct {
	file   string  // the file, as a path from the repository root
	line   int     // its line number there
	text   string  // the command as written, less a trailing comment
	sample *string // in a ```console block, the output shown after it; nil elsewhere
	// session is the line of its ```sh session block, whose commands run
	// in order in one work directory, as a user types them; 0 for a
	// command that runs alone.
	session int
}

func (c readmeCommand) String() string { return fmt.Sprintf("%s:%d: %s", c.file, c.line, c.text) }

// readmeStatus is the exit status each command line of the README and
// docs/ must give when it runs (as written or as its substitution rewrites
// it), keyed by the command as written. A README command that is neither here
// nor replaced by a check in readmeSubstitutions fails the test, and so
// does an entry that names no README command.
var readmeStatus = map[string]int{
	// Getting started: the built-in default, all passed.
	"go run ./cmd/limcheck": report.ExitOK,
	// The commands: the Python reference port passes everything, and the
	// filter line matches cases (a filter that matches none is status 2).
	"limcheck run --port 'python3 driver.py'":                                                        report.ExitOK,
	"limcheck run --port 'python3 driver.py' --strict":                                               report.ExitOK,
	"limcheck run --port 'python3 driver.py' --component gate --case 'gate-retry-*' --clause DEC-13": report.ExitOK,
	"limcheck fuzz --port 'python3 driver.py' --duration 60s":                                        report.ExitOK,
	// The README's failing case: the port with retry_after_floor planted.
	"limcheck run --port 'LIMCHECK_MUTANT=retry_after_floor python3 driver.py' --case gate-retry-009": report.ExitFailed,
	// The counterexample was found in the port with readmeMutant planted
	// (readmeCounterexample); driver.py, the port without it, passes it.
	"limcheck replay --port 'python3 driver.py' limcheck-counterexample-gate-42.json": report.ExitOK,
	"limcheck vectors export ./vectors":                                               report.ExitOK,
	// Keeping a counterexample: the exported vectors with the replay's
	// counterexample added, which driver.py passes.
	"cp limcheck-counterexample-gate-42.json vectors/gate/gate-fuzz-510756.json": report.ExitOK,
	"limcheck run --port 'python3 driver.py' --vectors ./vectors":                report.ExitOK,
	// Streaming and several ports: the three reference ports pass.
	"limcheck list --clause 'GATE-1?'": report.ExitOK,
	"limcheck version":                 report.ExitOK,
	readmeSideBySide:                   report.ExitOK,
	readmeSideBySide + " -q":           report.ExitOK,
	"limcheck coverage":                report.ExitOK,
	// The CI reports: a summary of the mutant's failures (the last command
	// of the line, cat, gives the status), and the badge of a passing run.
	"limcheck run --port 'LIMCHECK_MUTANT=retry_after_floor python3 driver.py' --case 'gate-retry-*' --summary summary.md >/dev/null; cat summary.md": report.ExitOK,
	"limcheck run --port 'python3 driver.py' -q --badge badge.json && cat badge.json":                                                                 report.ExitOK,
	// The CI workflow: limcheck-known-failures.txt lists no case, and the
	// port has no divergence to find.
	"limcheck run --port 'python3 driver.py' --strict --junit limcheck.xml --expect-fail limcheck-known-failures.txt":   report.ExitOK,
	"limcheck fuzz --port 'python3 driver.py' --seed ${{ github.run_number }} --duration 60s --out counterexample.json": report.ExitOK,
}

// substitution rewrites a README command that cannot run verbatim in a
// test: into run, a command line run instead, or into check, a Go check
// that stands in for running it.
type substitution struct {
	readme string             // the command exactly as README.md writes it, less its comment
	run    string             // the command line run instead (sh -c), or ""
	check  func(string) error // with run "": checks what the command relies on
	why    string
}

// readmeSubstitutions is the table of README commands that do not run as
// written. Each entry must match a README command.
var readmeSubstitutions = []substitution{
	{
		readme: "go run ./cmd/limcheck",
		run:    "limcheck",
		why:    "go run builds and runs cmd/limcheck's main; this test binary is that main, installed as limcheck by TestMain, so a second build would only cost time",
	},
	{
		readme: "make test",
		check:  ciRunsMakeTest,
		why:    "make test runs go test ./..., this test among them, so it would recurse; CI runs .ci/run, which must call it",
	},
	{
		readme: "go install ./cmd/limcheck",
		check:  installsThisCommand,
		why:    "go install builds cmd/limcheck from the checkout; this test binary is that main, installed as limcheck by TestMain, so a second build would only cost time",
	},
	{
		readme: "go -C .limcheck install ./cmd/limcheck",
		check:  installsThisCommand,
		why:    "the workflow checks this repository out into .limcheck and builds cmd/limcheck there; the test is in that package already",
	},
	{
		readme: "limcheck fuzz --port 'python3 driver.py' --duration 60s",
		run:    "limcheck fuzz --port 'python3 driver.py' --ops 2000",
		why:    "a minute is past this test's budget; --ops bounds the same run",
	},
	{
		readme: "limcheck fuzz --port 'python3 driver.py' --seed ${{ github.run_number }} --duration 60s --out counterexample.json",
		run:    "limcheck fuzz --port 'python3 driver.py' --seed 1 --ops 2000 --out counterexample.json",
		why:    "${{ github.run_number }} is GitHub Actions' expression, filled in before sh sees the line (sh calls it a bad substitution); a minute is past this test's budget",
	},
	{
		readme: readmeSideBySide,
		run:    `limcheck run --port "python3 $PORTS/python/driver.py" --port "node $PORTS/js/driver.js" --port 'limcheck serve' --clause 'GATE-1?'`,
		why:    "the docs run it from a checkout; the work directory is not one, so the ports are named by their path in this repository ($PORTS)",
	},
	{
		readme: readmeSideBySide + " -q",
		run:    `limcheck run --port "python3 $PORTS/python/driver.py" --port "node $PORTS/js/driver.js" --port 'limcheck serve' --clause 'GATE-1?' -q`,
		why:    "as the line without -q: the ports are named by their path in this repository ($PORTS)",
	},
}

// readmeSideBySide is docs/commands.md's run of the three reference ports.
const readmeSideBySide = "limcheck run --port 'python3 ports/python/driver.py' --port 'node ports/js/driver.js' --port 'limcheck serve' --clause 'GATE-1?'"

// readmeMutant is the bug planted in the Python port to find the
// counterexample the README's replay line reads (ports/mutants.json): a
// gate bug, as the file's name says.
const readmeMutant = "retry_after_floor"

// TestReadmeCommandsRun runs every command line of README.md and docs/*.md:
// each line of their ```sh blocks, each run: of their ```yaml blocks and
// each $ line of their ```console blocks, in a work directory where
// driver.py is the Python reference port, with sh -c as a user's shell
// would, and checks its exit status (readmeStatus) and, in a console
// block, that it prints the output shown (-update rewrites it). The
// commands that cannot run verbatim go through readmeSubstitutions.
func TestReadmeCommandsRun(t *testing.T) {
	cmds := readReadmeCommands(t)
	steps := readmeSteps(t, cmds)
	counterexample := readmeCounterexample(t)
	dir := t.TempDir()
	scripts := map[string]string{}
	for i, s := range steps {
		name := fmt.Sprintf("readme-%03d.txtar", i)
		if s.cmd.session != 0 {
			name = fmt.Sprintf("session-%s-%03d.txtar", strings.TrimSuffix(filepath.Base(s.cmd.file), ".md"), s.cmd.session)
		}
		scripts[name] += fmt.Sprintf("# %s\n# runs: %s\nreadme %d\n", s.cmd, s.run, i)
	}
	for name, script := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := &samples{out: map[readmeCommand]string{}}
	if *updateDocs {
		t.Cleanup(func() { rewriteSamples(t, got) })
	}
	path := shimFreePath(t)
	testscript.Run(t, testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", path)
			return prepareReadmeWork(env, counterexample)
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"readme": func(ts *testscript.TestScript, neg bool, args []string) { runReadmeStep(ts, steps, got, args) },
		},
	})
}

// readmeStep is a README command as the test runs it.
type readmeStep struct {
	cmd    readmeCommand
	run    string // the command line run by sh -c
	status int    // its expected exit status
}

// samples collects what the console commands printed, for -update.
type samples struct {
	mu  sync.Mutex
	out map[readmeCommand]string
}

// readmeSteps pairs each README command with what runs and the status it
// must give; Go checks (substitutions without run) run here, as subtests.
// It fails on a command the tables do not know and on a stale entry.
func readmeSteps(t *testing.T, cmds []readmeCommand) []readmeStep {
	t.Helper()
	var steps []readmeStep
	for _, c := range cmds {
		sub, substituted := findSubstitution(c.text)
		if substituted && sub.run == "" {
			t.Run(fmt.Sprintf("check-%s-%03d", filepath.Base(c.file), c.line), func(t *testing.T) {
				if err := sub.check(c.text); err != nil {
					t.Errorf("%s: checked instead of run (%s): %v", c, sub.why, err)
				}
			})
			continue
		}
		status, ok := readmeStatus[c.text]
		if !ok {
			t.Errorf("%s: neither run nor substituted: give it an expected status in readmeStatus (and a substitution if it cannot run verbatim)", c)
			continue
		}
		run := c.text
		if substituted {
			run = sub.run
		}
		steps = append(steps, readmeStep{cmd: c, run: run, status: status})
	}
	checkStale(t, cmds)
	return steps
}

// findSubstitution returns the substitution of the README command text.
func findSubstitution(text string) (substitution, bool) {
	for _, s := range readmeSubstitutions {
		if s.readme == text {
			return s, true
		}
	}
	return substitution{}, false
}

// checkStale fails on a table entry that names no README command.
func checkStale(t *testing.T, cmds []readmeCommand) {
	t.Helper()
	shown := map[string]bool{}
	for _, c := range cmds {
		shown[c.text] = true
	}
	for _, s := range readmeSubstitutions {
		if s.why == "" || (s.run == "") == (s.check == nil) {
			t.Errorf("readmeSubstitutions: %q needs a why and exactly one of run and check", s.readme)
		}
		if !shown[s.readme] {
			t.Errorf("readmeSubstitutions: %q matches no command line of README.md: update or remove the entry", s.readme)
		}
	}
	for text := range readmeStatus {
		if !shown[text] {
			t.Errorf("readmeStatus: %q matches no command line of README.md: update or remove the entry", text)
		}
	}
}

// runReadmeStep is the script command `readme N`: it runs step N with sh -c
// and checks its exit status and, for a console sample, its output.
func runReadmeStep(ts *testscript.TestScript, steps []readmeStep, got *samples, args []string) {
	n, err := strconv.Atoi(args[0])
	if len(args) != 1 || err != nil || n < 0 || n >= len(steps) {
		ts.Fatalf("usage: readme N (a step of the README's and docs' commands)")
	}
	s := steps[n]
	status, err := exitStatus(ts.Exec("sh", "-c", s.run))
	if err != nil {
		ts.Fatalf("%s: %v", s.cmd, err)
	}
	if status != s.status {
		ts.Fatalf("%s\n(ran %s): exit status %d, want %d", s.cmd, s.run, status, s.status)
	}
	if s.cmd.sample == nil {
		return
	}
	out := ts.ReadFile("stdout")
	got.mu.Lock()
	got.out[s.cmd] = out
	got.mu.Unlock()
	if !*updateDocs && normalizeSample(out) != normalizeSample(*s.cmd.sample) {
		ts.Fatalf("%s: the sample output differs from what the command prints (go test -run TestReadmeCommandsRun -update rewrites it):\n%s", s.cmd, cmp.Diff(*s.cmd.sample, out))
	}
}

// durationRE matches a duration or a rate as limcheck prints them, which
// no two runs share.
var durationRE = regexp.MustCompile(`[0-9]+(\.[0-9]+)?(ns|µs|ms|s|m|h|ops/s)\b`)

// normalizeSample blanks the durations of out, so that a sample shows a
// real run's times and still matches the next run.
func normalizeSample(out string) string {
	return durationRE.ReplaceAllString(out, "<duration>")
}

// rewriteSamples writes what each console command printed in place of
// its sample, in README.md and docs/ (-update).
func rewriteSamples(t *testing.T, got *samples) {
	byFile := map[string][]readmeCommand{}
	for c := range got.out {
		byFile[c.file] = append(byFile[c.file], c)
	}
	for file, cmds := range byFile {
		path := "../../" + file
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		slices.SortFunc(cmds, func(a, b readmeCommand) int { return b.line - a.line }) // last first: lines shift below
		for _, c := range cmds {
			end := c.line + strings.Count(*c.sample, "\n")
			out := strings.Split(strings.TrimSuffix(got.out[c], "\n"), "\n")
			lines = slices.Concat(lines[:c.line], out, lines[end:])
		}
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("-update: rewrote %d sample outputs in %s", len(cmds), file)
	}
}

// readmeCounterexample is the file the README's replay line reads, found
// as the README says: limcheck fuzz, seed 42, gate only, here of the
// Python port with readmeMutant planted.
func readmeCounterexample(t *testing.T) []byte {
	t.Helper()
	port := portCommand(t, "python3", "../../ports/python/driver.py", readmeMutant)
	file := filepath.Join(t.TempDir(), "cx.json")
	status, out, errOut := cliRun("fuzz", "--port", port, "--seed", "42", "--component", "gate", "--ops", "20000", "--out", file)
	if status != report.ExitFailed {
		t.Fatalf("limcheck fuzz --port %q: status %d, want %d (a divergence to replay)\n%s%s", port, status, report.ExitFailed, out, errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// prepareReadmeWork lays out a script's work directory as the README
// assumes a user's: driver.py (the Python reference port, copied with its
// package), the counterexample the replay line reads, and an --expect-fail
// list that lists no case.
func prepareReadmeWork(env *testscript.Env, counterexample []byte) error {
	// Under -race every process sleeps 1s at exit by default.
	env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	if err := copyPythonPort(env.WorkDir); err != nil {
		return err
	}
	ports, err := filepath.Abs("../../ports")
	if err != nil {
		return err
	}
	env.Setenv("PORTS", ports)
	files := map[string][]byte{
		"limcheck-counterexample-gate-42.json": counterexample,
		"limcheck-known-failures.txt":          []byte("# cases this port is known to fail: none\n"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(env.WorkDir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// copyPythonPort copies the Python reference port's driver and its package
// into dir.
func copyPythonPort(dir string) error {
	src := "../../ports/python"
	files, err := filepath.Glob(filepath.Join(src, "limcheck_port", "*.py"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no Python port under %s: %v", src, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "limcheck_port"), 0o755); err != nil {
		return err
	}
	for _, f := range append(files, filepath.Join(src, "driver.py")) {
		rel, _ := filepath.Rel(src, f)
		data, err := os.ReadFile(f)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, rel), data, 0o644)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ciRunsMakeTest checks that CI's entry point, .ci/run, runs make test and
// that the Makefile has the target.
func ciRunsMakeTest(string) error {
	for file, want := range map[string]string{"../../.ci/run": "make test", "../../Makefile": "test:"} {
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(strings.Split(string(data), "\n"), func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), want) }) {
			return fmt.Errorf("%s has no line %q", file, want)
		}
	}
	return nil
}

// installsThisCommand checks that `go install ./cmd/limcheck` (or `go -C
// DIR install ./cmd/limcheck`, DIR a checkout of this repository) builds
// the package this test is in, and that a workflow which builds in DIR
// checks this repository out there.
func installsThisCommand(cmd string) error {
	rest, ok := strings.CutPrefix(cmd, "go ")
	if !ok {
		return fmt.Errorf("not a go command")
	}
	if after, ok := strings.CutPrefix(rest, "-C "); ok {
		dir, tail, _ := strings.Cut(after, " ")
		if err := checksOutInto(dir); err != nil {
			return err
		}
		rest = tail
	}
	if rest != "install ./cmd/limcheck" {
		return fmt.Errorf("not go install ./cmd/limcheck")
	}
	here, err := filepath.Abs(".")
	if err != nil {
		return err
	}
	there, err := filepath.Abs("../../cmd/limcheck")
	if err != nil || here != there {
		return fmt.Errorf("./cmd/limcheck from the repository root is %s, not this package (%s): %v", there, here, err)
	}
	return nil
}

// checksOutInto checks that docs/ci.md's workflow checks this repository
// (the module path's owner/name) out into dir.
func checksOutInto(dir string) error {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		return err
	}
	m := regexp.MustCompile(`(?m)^module\s+github\.com/(\S+)`).FindSubmatch(mod)
	ci, err := os.ReadFile(docsDir + "/ci.md")
	if err != nil || m == nil {
		return fmt.Errorf("go.mod's module path or docs/ci.md: %v", err)
	}
	want := regexp.MustCompile(`repository: ` + regexp.QuoteMeta(string(m[1])) + `\n(\s+\S.*\n)*?\s+path: ` + regexp.QuoteMeta(dir) + `\n`)
	if !want.Match(ci) {
		return fmt.Errorf("docs/ci.md does not check out %s into %s", m[1], dir)
	}
	return nil
}

// readReadmeCommands reads the command lines of README.md and docs/*.md.
func readReadmeCommands(t *testing.T) []readmeCommand {
	t.Helper()
	pages, err := filepath.Glob(docsDir + "/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in %s: %v", docsDir, err)
	}
	var all []readmeCommand
	for _, path := range append([]string{readmePath}, pages...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		file := strings.TrimPrefix(path, "../../")
		cmds, err := readmeCommands(string(data))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, c := range cmds {
			c.file = file
			all = append(all, c)
		}
	}
	if len(all) == 0 {
		t.Fatal("README.md and docs/: no command lines found (```sh blocks, run: lines of ```yaml blocks, $ lines of ```console blocks)")
	}
	return all
}

// yamlRun is a run: step of a workflow, its command in group 1.
var yamlRun = regexp.MustCompile(`^\s*(?:-\s+)?run:\s*(.*)$`)

// readmeCommands returns the command lines of a Markdown text: every line
// of its ```sh (```bash, ```shell) blocks that is not blank or a comment,
// a trailing comment cut, backslash continuations joined; the value of
// every run: of its ```yaml blocks; and every line of its ```console
// blocks that starts with "$ ", with the lines after it, up to the next
// such line or the block's end, as its sample output. The commands of a
// ```sh session block are one session (readmeCommand.session). A run: block scalar
// (| or >) is an error, not a silent skip, and so is a console block that
// does not start with a command.
func readmeCommands(md string) ([]readmeCommand, error) {
	var out []readmeCommand
	fence, pending := "", ""
	start, session := 0, 0
	var sample *string
	sc := bufio.NewScanner(strings.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if info, ok := strings.CutPrefix(strings.TrimSpace(line), "```"); ok {
			sample = nil
			if fence == "" {
				fence, session = strings.TrimSpace(info), 0
				if fence == "" {
					fence = "text"
				}
				if fence == "sh session" {
					fence, session = "sh", n
				}
			} else {
				fence = ""
			}
			continue
		}
		switch fence {
		case "sh", "bash", "shell":
			if pending == "" {
				start = n
			}
			joined, more := strings.CutSuffix(pending+line, `\`)
			if more {
				pending = joined
				continue
			}
			pending = ""
			if text := strings.TrimSpace(cutShellComment(joined)); text != "" {
				out = append(out, readmeCommand{line: start, text: text, session: session})
			}
		case "yaml", "yml":
			m := yamlRun.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			text := strings.TrimSpace(m[1])
			if text == "" || strings.ContainsAny(text[:1], `|>'"`) {
				return nil, fmt.Errorf("line %d: run: %q: only a plain one-line command can be checked", n, text)
			}
			out = append(out, readmeCommand{line: n, text: text})
		case "console":
			if text, ok := strings.CutPrefix(line, "$ "); ok {
				sample = new(string)
				out = append(out, readmeCommand{line: n, text: strings.TrimSpace(text), sample: sample})
				continue
			}
			if sample == nil {
				return nil, fmt.Errorf("line %d: a ```console block starts with a $ command line", n)
			}
			*sample += line + "\n"
		}
	}
	if fence != "" {
		return nil, fmt.Errorf("a ```%s block is not closed", fence)
	}
	return out, sc.Err()
}

// cutShellComment cuts a trailing sh comment: a # at the start of a word,
// outside quotes.
func cutShellComment(s string) string {
	var quote rune
	prev := ' '
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (prev == ' ' || prev == '\t'):
			return s[:i]
		}
		prev = r
	}
	return s
}

// TestReadmeCountsTheVectors checks the number of conformance cases
// docs/driver.md states against the vectors this binary embeds.
func TestReadmeCountsTheVectors(t *testing.T) {
	data, err := os.ReadFile(docsDir + "/driver.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`conformance/vectors/` holds (\\d+) JSON cases").FindSubmatch(data)
	if m == nil {
		t.Fatal("docs/driver.md: no \"`conformance/vectors/` holds N JSON cases\"")
	}
	all, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatal(err)
	}
	if got := strconv.Itoa(len(all)); string(m[1]) != got {
		t.Errorf("docs/driver.md says conformance/vectors/ holds %s JSON cases; it holds %s", m[1], got)
	}
}

// TestReadmeStatesTheKillRate checks the README's line on the planted
// bugs against ports/mutants.json: the vectors alone kill every one (the
// mutant matrix fails on any they miss, and logs the rate), and fuzz
// finds every one without a fuzz_gap.
func TestReadmeStatesTheKillRate(t *testing.T) {
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`The vectors alone kill (\d+) of the (\d+) planted bugs of\s+\S+ in each reference port \((\d+)%\), and ` + "`fuzz`" + ` finds\s+(\d+) of them`)
	m := re.FindSubmatch(data)
	if m == nil {
		t.Fatalf("README.md: no line %q", re)
	}
	all := loadMutants(t)
	found := 0
	for _, mu := range all {
		if mu.FuzzGap == "" {
			found++
		}
	}
	want := []string{strconv.Itoa(len(all)), strconv.Itoa(len(all)), "100", strconv.Itoa(found)}
	if got := []string{string(m[1]), string(m[2]), string(m[3]), string(m[4])}; !slices.Equal(got, want) {
		t.Errorf("README.md says the vectors kill %s of %s planted bugs (%s%%) and fuzz finds %s; ports/mutants.json gives %s of %s (%s%%) and %s (those without a fuzz_gap)",
			got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3])
	}
}

// TestReadmeCommandsParse checks what readmeCommands takes for a command
// line and what it leaves.
func TestReadmeCommandsParse(t *testing.T) {
	md := "text `limcheck inline`\n" +
		"```sh\n" +
		"# a comment line\n" +
		"limcheck run --port 'a # b'   # a trailing comment\n" +
		"\n" +
		"limcheck fuzz \\\n" +
		"  --ops 10\n" +
		"echo a#b\n" +
		"```\n" +
		"```go\n" +
		"run: not yaml\n" +
		"```\n" +
		"```yaml\n" +
		"steps:\n" +
		"  - run: limcheck coverage\n" +
		"  - uses: actions/checkout@v4\n" +
		"```\n" +
		"```console\n" +
		"$ limcheck version\n" +
		"limcheck 1\n" +
		"\n" +
		"$ limcheck list\n" +
		"```\n" +
		"```sh session\n" +
		"limcheck a\n" +
		"limcheck b\n" +
		"```\n"
	got, err := readmeCommands(md)
	want := []string{
		"4 limcheck run --port 'a # b' <nil>",      // # inside quotes is not a comment
		"6 limcheck fuzz   --ops 10 <nil>",         // a continuation joins its lines
		"8 echo a#b <nil>",                         // # inside a word is not a comment
		"15 limcheck coverage <nil>",               // a workflow's run:
		"19 limcheck version \"limcheck 1\\n\\n\"", // a console command and its output
		"22 limcheck list \"\"",                    // one with none
		"25 limcheck a <nil> session 24",           // a session's commands
		"26 limcheck b <nil> session 24",
	}
	var gotText []string
	for _, c := range got {
		out := "<nil>"
		if c.sample != nil {
			out = strconv.Quote(*c.sample)
		}
		if c.session != 0 {
			out += fmt.Sprintf(" session %d", c.session)
		}
		gotText = append(gotText, fmt.Sprintf("%d %s %s", c.line, c.text, out))
	}
	if err != nil || !slices.Equal(gotText, want) {
		t.Errorf("readmeCommands = %q, %v\nwant %q", gotText, err, want)
	}
	for _, bad := range []string{"```yaml\n- run: |\n    make\n```\n", "```sh\nmake\n", "```console\nno command\n```\n"} {
		if _, err := readmeCommands(bad); err == nil {
			t.Errorf("readmeCommands(%q): no error, want one (a block scalar, an open fence)", bad)
		}
	}
	for _, bad := range []string{"go install example.com/other/cmd/limcheck@latest", "go -C elsewhere install ./cmd/limcheck", "go install ./cmd/other"} {
		if err := installsThisCommand(bad); err == nil {
			t.Errorf("installsThisCommand(%q): no error", bad)
		}
	}
}

// TestWhatIsHere checks docs/development.md's "What is here" table against
// `go list ./...`: every package of the module is named in the table's
// first column (as its path from the root, `.` for the root), and every
// path named there is a package or a folder of the repository.
func TestWhatIsHere(t *testing.T) {
	list, err := exec.Command("go", "list", "-f", "{{.Dir}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	named := whatIsHere(t)
	for _, dir := range strings.Fields(string(list)) {
		rel, err := filepath.Rel(root, dir)
		if err != nil || !named[filepath.ToSlash(rel)] {
			t.Errorf("docs/development.md, What is here: package %s has no row: name it in a row's first column", filepath.ToSlash(rel))
		}
		delete(named, filepath.ToSlash(rel))
	}
	for path := range named {
		if fi, err := os.Stat(filepath.Join(root, path)); err != nil || !fi.IsDir() {
			t.Errorf("docs/development.md, What is here: %s is neither a package nor a folder of the repository", path)
		}
	}
}

// whatIsHere returns the paths docs/development.md's "What is here" table
// names in its first column, each without a trailing slash.
func whatIsHere(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(docsDir + "/development.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "## What is here\n")
	section, _, _ = strings.Cut(section, "\n## ")
	named := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cells[1], -1) {
			named[strings.TrimSuffix(m[1], "/")] = true
		}
	}
	if !ok || len(named) == 0 {
		t.Fatal("docs/development.md: no \"## What is here\" table")
	}
	return named
}

// TestDocLinks checks that every relative link of README.md and docs/*.md
// names a file of the repository, and that a link to a heading of a
// Markdown file names a heading it has.
func TestDocLinks(t *testing.T) {
	pages, _ := filepath.Glob(docsDir + "/*.md")
	link := regexp.MustCompile(`\]\(([^)#\s]*)(#[^)\s]*)?\)`)
	for _, page := range append([]string{readmePath}, pages...) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target, anchor := m[1], strings.TrimPrefix(m[2], "#")
			if strings.Contains(target, "://") {
				continue
			}
			path := filepath.Join(filepath.Dir(page), target)
			if target == "" {
				path = page
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: %v", page, m[0], err)
				continue
			}
			if anchor != "" && !slices.Contains(anchors(t, path), anchor) {
				t.Errorf("%s: link %s: %s has no heading #%s", page, m[0], target, anchor)
			}
		}
	}
}

// anchors returns the anchors of the headings of the Markdown file path,
// as GitHub makes them (slug).
func anchors(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "#") {
			out = append(out, report.Slug(line))
		}
	}
	return out
}

// maxReadme is the most README.md may weigh: a front door a newcomer reads
// in five minutes. The reference belongs in docs/.
const maxReadme = 12 << 10

// TestReadmeSize keeps README.md within maxReadme bytes.
func TestReadmeSize(t *testing.T) {
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > maxReadme {
		t.Errorf("README.md is %d bytes, over %d: move reference material to docs/ and link it", len(data), maxReadme)
	}
}
