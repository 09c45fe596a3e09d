//go:build unix

package protocol

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// StartPort starts command as a port (`sh -c command`, in its own process
// group) and reads its hello. A port that breaks the handshake is killed
// and the error is a *judge.BrokenError; past opt.Deadline, a *judge.DeadlineError; a
// command that cannot run (sh cannot start, or cannot find or execute the
// command) is a *StartError. From the moment the process starts until its
// whole group is killed, KillAll reaches it.
//
// spec PROTO-1: "limcheck starts the port as sh -c '<command>' in its own process group"
func StartPort(command string, opt PortOptions) (*Port, error) {
	if command == "" {
		return nil, errors.New("protocol: the port command is empty")
	}
	pr, err := startProc(command)
	if err != nil {
		return nil, err
	}
	tr := transport{stdin: pr.stdin, stdout: pr.stdout, stderr: pr.stderr, kill: pr.kill, exited: pr.exited, command: command}
	return newPort(tr, opt)
}

// proc is a port process: sh, the leader of the port's process group.
type proc struct {
	pid                   int // and the group's id
	stdin, stdout, stderr *os.File
	exited                chan exitInfo
	mu                    sync.Mutex
	reaped                bool // once the leader is reaped its pid may be reused: never signal the group then
}

// live holds the port processes this process started whose leaders are
// not yet reaped, for KillAll; stopped is set once KillAll ran.
var live struct {
	sync.Mutex
	procs   map[*proc]bool
	stopped bool
}

// KillAll kills the process group of every port StartPort started whose
// group is not yet known dead, at once, and makes every later StartPort
// fail: it is for a program about to exit (on a signal, say), so that no
// port outlives it, whatever it was doing (the handshake included). It
// returns the number of port process groups it killed. It is safe for
// concurrent use.
func KillAll() int {
	live.Lock()
	defer live.Unlock()
	live.stopped = true
	for p := range live.procs {
		p.killGroup()
	}
	return len(live.procs)
}

// startProc starts sh -c command in a process group of its own, with
// pipes for its stdin, stdout and stderr, and registers it for KillAll
// before anything else can happen.
func startProc(command string) (*proc, error) {
	var fds [6]*os.File // the port's stdin, our end; our stdout end, the port's; our stderr end, the port's
	for i := 0; i < 6; i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(fds[:i]...)
			return nil, err
		}
		fds[i], fds[i+1] = r, w
	}
	stdinR, stdinW, stdoutR, stdoutW, stderrR, stderrW := fds[0], fds[1], fds[2], fds[3], fds[4], fds[5]
	defer closeAll(stdinR, stdoutW, stderrW) // the port's ends
	live.Lock()
	defer live.Unlock()
	if live.stopped {
		closeAll(stdinW, stdoutR, stderrR)
		return nil, errors.New("protocol: start port: KillAll was called: this program is stopping")
	}
	pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", shellCommand(command)}, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{stdinR.Fd(), stdoutW.Fd(), stderrW.Fd()},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		closeAll(stdinW, stdoutR, stderrR)
		return nil, &StartError{Command: command, Why: "/bin/sh: " + err.Error()}
	}
	p := &proc{pid: pid, stdin: stdinW, stdout: stdoutR, stderr: stderrR, exited: make(chan exitInfo, 1)}
	if live.procs == nil {
		live.procs = map[*proc]bool{}
	}
	live.procs[p] = true
	go p.wait()
	return p, nil
}

// wait waits for the leader to exit, kills its group (on Linux, where the
// leader can be waited for without reaping it, so that its id stays
// reserved), reaps it and reports how it ended.
//
// spec PROTO-1: "Every way limcheck ends a port ... kills the port's whole process group"
func (p *proc) wait() {
	if waitLeader(p.pid) {
		p.killGroup()
	}
	var ws syscall.WaitStatus
	_, err := syscall.Wait4(p.pid, &ws, 0, nil)
	for errors.Is(err, syscall.EINTR) {
		_, err = syscall.Wait4(p.pid, &ws, 0, nil)
	}
	p.mu.Lock()
	p.reaped = true
	p.mu.Unlock()
	live.Lock()
	delete(live.procs, p)
	live.Unlock()
	p.exited <- exitOf(ws, err)
}

// exitOf says how a process ended, as os.ProcessState does.
func exitOf(ws syscall.WaitStatus, err error) exitInfo {
	switch {
	case err != nil:
		return exitInfo{how: "wait: " + err.Error(), code: -1}
	case ws.Signaled():
		how := "signal: " + ws.Signal().String()
		if ws.CoreDump() {
			how += " (core dumped)"
		}
		return exitInfo{how: how, code: -1}
	}
	return exitInfo{ok: ws.ExitStatus() == 0, how: fmt.Sprintf("exit status %d", ws.ExitStatus()), code: ws.ExitStatus()}
}

// killGroup sends SIGKILL to the port's process group, unless its leader
// is reaped (the id may name another group by then).
func (p *proc) killGroup() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped {
		syscall.Kill(-p.pid, syscall.SIGKILL) //nolint:errcheck // already gone is fine
	}
}

// kill is the transport's kill: the group, then limcheck's ends of the
// pipes the reader and writer use.
func (p *proc) kill() {
	p.killGroup()
	p.stdout.Close()
	p.stdin.Close()
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// plainWord is a word sh takes as it is: no quoting, expansion or
// assignment.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./+@%:,-]+$`)

// assignment is a leading NAME=VALUE word whose value is plain (as
// plainWord, = allowed): sh sets NAME for the command that follows.
var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=[A-Za-z0-9_./+@%:,=-]*$`)

// reserved are sh's reserved words that plainWord matches.
var reserved = []string{"case", "do", "done", "elif", "else", "esac", "fi", "for", "if", "in", "then", "until", "while"}

// shellCommand is what sh -c runs for command: command with "exec "
// before its program when command is one simple command whose first word,
// after any leading NAME=VALUE assignments with plain values, is a program
// on PATH (python3 driver.py, LIMCHECK_MUTANT=x python3 driver.py), so
// that the shell gives way to the port rather than wait for it holding the
// port's pipes; otherwise command itself. sh gives an exec the
// assignments before it as it gives a program: in its environment. A port
// that closes its stdout then ends its stdout at once; with the shell
// still holding it, it would look hung.
//
// spec PROTO-1: "a command that is one simple command naming a program, after any leading `NAME=VALUE` assignments, runs as `exec <command>`"
func shellCommand(command string) string {
	if strings.ContainsAny(command, ";&|()`\n") {
		return command
	}
	rest := strings.TrimLeft(command, " \t")
	for {
		word, after, _ := strings.Cut(rest, " ")
		if !assignment.MatchString(word) {
			break
		}
		rest = strings.TrimLeft(after, " \t")
	}
	words := strings.Fields(rest)
	if len(words) == 0 || !plainWord.MatchString(words[0]) || slices.Contains(reserved, words[0]) {
		return command
	}
	if _, err := exec.LookPath(words[0]); err != nil {
		return command
	}
	assigns := command[:len(command)-len(rest)]
	if strings.TrimSpace(assigns) == "" {
		return "exec " + command
	}
	return assigns + "exec " + rest
}
