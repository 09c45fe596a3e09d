// The README's commands run in the plain build (make test's cli check):
// they check what the README says, not limcheck's concurrency, and the
// race detector would triple their cost.

//go:build !race

package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/limcheck/limcheck/conformance"
)

// The README's command lines, run as a user runs them (TestReadmeCommandsRun),
// so that the README cannot drift from the tool again.

// readmePath is README.md from this package's directory.
const readmePath = "../../README.md"

// readmeCommand is one command line of README.md.
type readmeCommand struct {
	line int    // README.md's line number
	text string // the command as written, less a trailing comment
}

func (c readmeCommand) String() string { return fmt.Sprintf("README.md:%d: %s", c.line, c.text) }

// readmeStatus is the exit status each README command line must give when
// it runs (as written or as its substitution rewrites it), keyed by the
// command as README.md writes it. A README command that is neither here
// nor replaced by a check in readmeSubstitutions fails the test, and so
// does an entry that names no README command.
var readmeStatus = map[string]int{
	// Getting started: the built-in default, all passed.
	"go run ./cmd/limcheck": exitOK,
	// Running it: the Python reference port passes everything, and the
	// filter line matches cases (a filter that matches none is status 2).
	"limcheck run --port 'python3 driver.py'":                                                        exitOK,
	"limcheck run --port 'python3 driver.py' --strict":                                               exitOK,
	"limcheck run --port 'python3 driver.py' --component gate --case 'gate-retry-*' --clause DEC-13": exitOK,
	"limcheck fuzz --port 'python3 driver.py' --duration 60s":                                        exitOK,
	// The counterexample was found in the port with readmeMutant planted
	// (readmeCounterexample); driver.py, the port without it, passes it.
	"limcheck replay --port 'python3 driver.py' limcheck-counterexample-gate-42.json": exitOK,
	"limcheck vectors export ./vectors":                                               exitOK,
	// Streaming and several ports: the three reference ports pass.
	"limcheck list --clause 'GATE-1?'": exitOK,
	"limcheck version":                 exitOK,
	"limcheck run --port 'python3 ports/python/driver.py' --port 'node ports/js/driver.js' --port 'limcheck serve' --clause 'GATE-1?'": exitOK,
	"limcheck coverage": exitOK,
	// The CI workflow: limcheck-known-failures.txt lists no case, and the
	// port has no divergence to find.
	"limcheck run --port 'python3 driver.py' --strict --junit limcheck.xml --expect-fail limcheck-known-failures.txt":   exitOK,
	"limcheck fuzz --port 'python3 driver.py' --seed ${{ github.run_number }} --duration 60s --out counterexample.json": exitOK,
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
		readme: "go install github.com/limcheck/limcheck/cmd/limcheck@latest",
		check:  installsThisCommand,
		why:    "@latest fetches the published module from the network; the path it installs must be this module's cmd/limcheck, the main this test runs as limcheck",
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
		why:    "the README runs it from a checkout; the work directory is not one, so the ports are named by their path in this repository ($PORTS)",
	},
}

// readmeSideBySide is the README's run of the three reference ports.
const readmeSideBySide = "limcheck run --port 'python3 ports/python/driver.py' --port 'node ports/js/driver.js' --port 'limcheck serve' --clause 'GATE-1?'"

// readmeMutant is the bug planted in the Python port to find the
// counterexample the README's replay line reads (ports/mutants.json): a
// gate bug, as the file's name says.
const readmeMutant = "retry_after_floor"

// TestReadmeCommandsRun runs every command line of README.md: each line of
// its ```sh blocks and each run: of its ```yaml block, in a work directory
// where driver.py is the Python reference port, with sh -c as a user's
// shell would, and checks its exit status (readmeStatus). The commands
// that cannot run verbatim go through readmeSubstitutions.
func TestReadmeCommandsRun(t *testing.T) {
	cmds := readReadmeCommands(t)
	steps := readmeSteps(t, cmds)
	counterexample := readmeCounterexample(t)
	dir := t.TempDir()
	for _, s := range steps {
		script := fmt.Sprintf("# %s\n# runs: %s\nreadme %d\n", s.cmd, s.run, s.cmd.line)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("readme-%03d.txtar", s.cmd.line)), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	byLine := map[int]readmeStep{}
	for _, s := range steps {
		byLine[s.cmd.line] = s
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
			"readme": func(ts *testscript.TestScript, neg bool, args []string) { runReadmeStep(ts, byLine, args) },
		},
	})
}

// readmeStep is a README command as the test runs it.
type readmeStep struct {
	cmd    readmeCommand
	run    string // the command line run by sh -c
	status int    // its expected exit status
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
			t.Run(fmt.Sprintf("check-%03d", c.line), func(t *testing.T) {
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

// runReadmeStep is the script command `readme LINE`: it runs the step of
// README line LINE with sh -c and checks its exit status.
func runReadmeStep(ts *testscript.TestScript, steps map[int]readmeStep, args []string) {
	line, err := strconv.Atoi(args[0])
	s, ok := steps[line]
	if len(args) != 1 || err != nil || !ok {
		ts.Fatalf("usage: readme LINE (a README.md line with a command)")
	}
	got, err := exitStatus(ts.Exec("sh", "-c", s.run))
	if err != nil {
		ts.Fatalf("%s: %v", s.cmd, err)
	}
	if got != s.status {
		ts.Fatalf("%s\n(ran %s): exit status %d, want %d", s.cmd, s.run, got, s.status)
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
	if status != exitFailed {
		t.Fatalf("limcheck fuzz --port %q: status %d, want %d (a divergence to replay)\n%s%s", port, status, exitFailed, out, errOut)
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

// installsThisCommand checks that `go install PATH@latest` names this
// module's cmd/limcheck, the package this test is in.
func installsThisCommand(cmd string) error {
	pkg, ok := strings.CutPrefix(cmd, "go install ")
	pkg, latest := strings.CutSuffix(pkg, "@latest")
	if !ok || !latest {
		return fmt.Errorf("not go install PKG@latest")
	}
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		return err
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(data)
	if m == nil {
		return fmt.Errorf("go.mod has no module line")
	}
	if want := string(m[1]) + "/cmd/limcheck"; pkg != want {
		return fmt.Errorf("installs %s, want %s (this module's cmd/limcheck)", pkg, want)
	}
	return nil
}

// readReadmeCommands reads README.md's command lines.
func readReadmeCommands(t *testing.T) []readmeCommand {
	t.Helper()
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := readmeCommands(string(data))
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	if len(cmds) == 0 {
		t.Fatal("README.md: no command lines found (```sh blocks, run: lines of ```yaml blocks)")
	}
	return cmds
}

// yamlRun is a run: step of a workflow, its command in group 1.
var yamlRun = regexp.MustCompile(`^\s*(?:-\s+)?run:\s*(.*)$`)

// readmeCommands returns the command lines of a Markdown text: every line
// of its ```sh (```bash, ```shell) blocks that is not blank or a comment,
// a trailing comment cut, backslash continuations joined; and the value of
// every run: of its ```yaml blocks. A run: block scalar (| or >) is an
// error, not a silent skip.
func readmeCommands(md string) ([]readmeCommand, error) {
	var out []readmeCommand
	fence, pending := "", ""
	start := 0
	sc := bufio.NewScanner(strings.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if info, ok := strings.CutPrefix(strings.TrimSpace(line), "```"); ok {
			if fence == "" {
				fence = strings.TrimSpace(info)
				if fence == "" {
					fence = "text"
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
				out = append(out, readmeCommand{line: start, text: text})
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
// README.md states against the vectors this binary embeds.
func TestReadmeCountsTheVectors(t *testing.T) {
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`conformance/vectors/` holds (\\d+) JSON cases").FindSubmatch(data)
	if m == nil {
		t.Fatal("README.md: no \"`conformance/vectors/` holds N JSON cases\"")
	}
	all, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatal(err)
	}
	if got := strconv.Itoa(len(all)); string(m[1]) != got {
		t.Errorf("README.md says conformance/vectors/ holds %s JSON cases; it holds %s", m[1], got)
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
		"```\n"
	got, err := readmeCommands(md)
	want := []readmeCommand{
		{4, "limcheck run --port 'a # b'"}, // # inside quotes is not a comment
		{6, "limcheck fuzz   --ops 10"},    // a continuation joins its lines
		{8, "echo a#b"},                    // # inside a word is not a comment
		{15, "limcheck coverage"},          // a workflow's run:
	}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("readmeCommands = %v, %v\nwant %v", got, err, want)
	}
	for _, bad := range []string{"```yaml\n- run: |\n    make\n```\n", "```sh\nmake\n"} {
		if _, err := readmeCommands(bad); err == nil {
			t.Errorf("readmeCommands(%q): no error, want one (a block scalar, an open fence)", bad)
		}
	}
	if err := installsThisCommand("go install example.com/other/cmd/limcheck@latest"); err == nil {
		t.Error("installsThisCommand(another module's path): no error")
	}
}
