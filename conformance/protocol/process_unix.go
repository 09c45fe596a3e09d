//go:build unix

package protocol

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// StartPort starts command as a port (`sh -c command`, in its own process
// group) and reads its hello. A port that breaks the handshake is killed
// and the error is a *BrokenError; a command that cannot start is another
// error.
//
// spec PROTO-1: "limcheck starts the port as sh -c '<command>' in its own process group"
func StartPort(command string, opt PortOptions) (*Port, error) {
	if command == "" {
		return nil, errors.New("protocol: the port command is empty")
	}
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW)
		return nil, err
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW, stdoutR, stdoutW)
		return nil, err
	}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		closeAll(stdinR, stdinW, stdoutR, stdoutW, stderrR, stderrW)
		return nil, fmt.Errorf("protocol: start port %q: %w", command, err)
	}
	closeAll(stdinR, stdoutW, stderrW) // the port's ends
	pgid := cmd.Process.Pid
	var (
		mu             sync.Mutex
		killed, reaped bool // once the leader is reaped its pid may be reused: never signal it then
	)
	kill := func() {
		mu.Lock()
		defer mu.Unlock()
		if killed {
			return
		}
		killed = true
		if !reaped {
			syscall.Kill(-pgid, syscall.SIGKILL) //nolint:errcheck // already gone is fine
		}
		stdoutR.Close()
		stdinW.Close()
	}
	exited := make(chan exitInfo, 1)
	go func() {
		err := cmd.Wait()
		mu.Lock()
		reaped = true
		mu.Unlock()
		x := exitInfo{ok: err == nil, how: "exit status 0"}
		if err != nil {
			x.how = err.Error()
		}
		exited <- x
	}()
	tr := transport{stdin: stdinW, stdout: stdoutR, stderr: stderrR, kill: kill, exited: exited}
	return newPort(tr, opt)
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}
