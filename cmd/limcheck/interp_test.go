package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// interpreters caches realInterpreter's answers.
var interpreters sync.Map // bin -> string

// realInterpreter returns the interpreter that bin (python3 or node) runs,
// as an absolute path: version-manager shims (pyenv, nodenv, asdf) are
// shell scripts that cost up to seconds per start on a busy machine, and
// the matrix starts the ports hundreds of times. It fails t when bin is not
// installed.
func realInterpreter(t testing.TB, bin string) string {
	t.Helper()
	if p, ok := interpreters.Load(bin); ok {
		return p.(string)
	}
	if _, err := exec.LookPath(bin); err != nil {
		t.Fatalf("%s is not installed: the reference port tests need it (.ci/run installs it)", bin)
	}
	ask := map[string][]string{
		"python3": {"-c", "import sys; print(sys.executable)"},
		"node":    {"-e", "console.log(process.execPath)"},
	}[bin]
	out, err := exec.Command(bin, ask...).Output()
	path := strings.TrimSpace(string(out))
	if err != nil || !filepath.IsAbs(path) {
		t.Fatalf("%s %s: %q, %v: cannot find the interpreter it runs", bin, strings.Join(ask, " "), path, err)
	}
	interpreters.Store(bin, path)
	return path
}

// shimFreePath returns $PATH with a directory in front of it (a temporary
// one of t's) in which python3 and node are symlinks to the interpreters
// they run (realInterpreter), so that the scripts' and the README's
// commands that name python3 or node start the interpreter itself: a
// pyenv shim costs about 0.75 CPU-seconds a start, and those commands
// start hundreds of ports (every failing case re-run alone in a fresh one).
func shimFreePath(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, bin := range []string{"python3", "node"} {
		if err := os.Symlink(realInterpreter(t, bin), filepath.Join(dir, bin)); err != nil {
			t.Fatal(err)
		}
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}
