package main

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// maxrssMain is the limcheck-maxrss command, `limcheck-maxrss FILE
// ARGS...`: it runs limcheck ARGS as its child, on its own stdin, stdout
// and stderr, writes to FILE the child's peak resident memory in KiB
// (Linux's ru_maxrss from wait4: limcheck's VmHWM, or that of a process
// limcheck waited for, its port, where that is larger), and exits with
// the child's status. So a script bounds what limcheck holds: the bound
// it checks holds for limcheck whichever of the two the figure is.
func maxrssMain() {
	if len(os.Args) < 3 {
		fail("usage: limcheck-maxrss FILE ARGS...")
	}
	path, err := exec.LookPath("limcheck")
	if err != nil {
		fail("limcheck-maxrss: " + err.Error())
	}
	cmd := exec.Command(path, os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fail("limcheck-maxrss: " + err.Error())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fail("limcheck-maxrss: no resource usage on this system")
	}
	if err := os.WriteFile(os.Args[1], []byte(strconv.FormatInt(int64(ru.Maxrss), 10)+"\n"), 0o644); err != nil {
		fail("limcheck-maxrss: " + err.Error())
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
