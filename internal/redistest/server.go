// Package redistest starts the redis-server the Redis-backed gate and
// throttle store are tested against, a TCP fault proxy to put between
// them ([Proxy]), and a proxy that makes the server run other Lua than the
// client asked for ([Swap]: the Lua mutants of fuzz/redis_mutant_test.go).
// It also starts a Redis Cluster of three primaries, with replicas when
// asked ([StartCluster], joined with redis-cli --cluster create, with the
// steps of a live slot migration: [BeginMigration], [MigrateKeys],
// [Cluster.EndMigration]), and a primary with a replica under a Sentinel
// ([StartSentinel]).
//
// [Start] runs its own redis-server: a random loopback port, a temporary
// directory, the append-only file with appendfsync always, noeviction, no
// RDB snapshots, never the system service; [NoFsync] leaves out the fsync
// for a test that never restarts its server. The child is killed by its PID
// when the test ends. A test that cannot start one fails: it never skips, so
// a machine without redis-server cannot pass the suite by accident (.ci/run
// installs it). LIMCHECK_REDIS_SERVER names another binary.
//
// Imports: the standard library only, and it is imported only by tests and
// by limcheck's own test helpers.
package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// TB is what Start needs of a *testing.T or *testing.B.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
	Cleanup(func())
	TempDir() string
	Failed() bool
}

// Env names the redis-server binary when set; else redis-server is looked up
// on PATH.
const Env = "LIMCHECK_REDIS_SERVER"

// Server is one redis-server child process.
type Server struct {
	dir   string
	port  int
	bin   string
	extra []string // more flags (a replica's --replicaof)
	conf  string   // a Sentinel's configuration file: the server runs as a Sentinel

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan error // receives the child's exit
}

// Addr is the server's host:port on loopback.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Dir is the server's working directory (its append-only file lives there).
func (s *Server) Dir() string { return s.dir }

// Start starts a redis-server for t and stops it when t ends. It fails t
// (never skips) when the server cannot start.
func Start(t TB) *Server { t.Helper(); return StartWith(t) }

// StartReplica starts a redis-server that replicates the primary at addr
// (a loopback host:port, perhaps a [Proxy] to it), and waits until its link
// to the primary is up.
func StartReplica(t TB, addr string) *Server {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("redistest: primary address %q: %v", addr, err)
	}
	r := StartWith(t, "--replicaof", host, port)
	if err := r.waitLink(); err != nil {
		t.Fatalf("redistest: %v", err)
	}
	return r
}

// waitLink waits up to 10s until the replica's link to its primary is up.
func (s *Server) waitLink() error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		line, err := command(s.Addr(), "INFO", "replication")
		if err == nil && strings.Contains(line, "master_link_status:up") {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the replica's link to its primary is not up after 10s: %v %q", err, line)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// StartWith is Start with more redis-server flags.
func StartWith(t TB, extra ...string) *Server {
	t.Helper()
	s, err := start(t.TempDir(), extra...)
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("redis-server log tail:\n%s", s.LogTail(20))
		}
		s.Kill()
	})
	return s
}

// StartDir starts a redis-server in dir (which it does not remove), with
// the extra flags, as StartWith does; the caller must Kill it. It is for
// helpers outside tests (limcheck's test server wrapper).
func StartDir(dir string, extra ...string) (*Server, error) { return start(dir, extra...) }

// NoFsync returns the flags (for [StartWith] and [StartDir]) of a server
// that never fsyncs its append-only file (appendfsync no) where [Start]'s
// fsyncs it before every reply (appendfsync always, DIST-7). Redis still
// writes each command to the file before it replies, so a kill -9 of the
// server loses nothing, only a crash of the machine could; but the fsync
// is most of a write's time on a disk (about 1 ms, ten times the rest on
// loopback), so a test that never restarts its server runs several times
// faster with these. [Server.Restart] refuses a server started with them:
// a test of durability cannot use them by mistake.
func NoFsync() []string { return []string{"--appendfsync", "no"} }

func start(dir string, extra ...string) (*Server, error) {
	bin, err := serverBinary()
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin, extra: extra}
	for range 5 { // a freed port can be taken again before the server binds it
		if s.port, err = freePort(); err != nil {
			return nil, err
		}
		if err = s.launch(); err == nil {
			return s, nil
		}
	}
	return nil, err
}

// serverBinary is $LIMCHECK_REDIS_SERVER, or redis-server on PATH.
func serverBinary() (string, error) {
	if bin := os.Getenv(Env); bin != "" {
		return bin, nil
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", fmt.Errorf("redis-server not found on PATH (install it: apt-get install redis-server, or set %s): %w", Env, err)
	}
	return bin, nil
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("no free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// launch runs the server on s.port in s.dir (appending to its AOF if one is
// there) and waits until it answers PING.
func (s *Server) launch() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	log := filepath.Join(s.dir, "redis.log")
	cmd := exec.Command(s.bin, s.args(log)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlives the test
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", s.bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("%s exited before answering on port %d: %v\n%s", s.bin, s.port, err, tail(log, 10))
		default:
		}
		if err := ping(s.Addr()); err == nil {
			s.cmd, s.exited = cmd, exited
			return nil
		} else if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			return fmt.Errorf("%s did not answer PING on port %d within 10s: %v\n%s", s.bin, s.port, err, tail(log, 10))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// args are the server's flags; a Sentinel's come from its file.
func (s *Server) args(log string) []string {
	port := strconv.Itoa(s.port)
	if s.conf != "" {
		return []string{s.conf, "--sentinel", "--port", port, "--bind", "127.0.0.1", "--daemonize", "no", "--logfile", log}
	}
	args := []string{
		"--port", port, "--bind", "127.0.0.1", "--protected-mode", "yes",
		"--dir", s.dir, "--save", "", "--appendonly", "yes", "--appendfsync", "always",
		"--maxmemory-policy", "noeviction", "--daemonize", "no", "--logfile", log,
		"--databases", "1", "--unixsocket", "", "--repl-diskless-sync-delay", "0",
	}
	return append(args, s.extra...)
}

// fsync is the server's appendfsync: the last value its flags give it.
func (s *Server) fsync() string {
	f := "none"
	args := s.args("")
	for i, a := range args[:len(args)-1] {
		if a == "--appendfsync" {
			f = args[i+1]
		}
	}
	return f
}

// command sends one command in RESP and returns its reply's text: a
// status or error line, or a bulk string's contents.
func command(addr string, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(line, "$") {
		return strings.TrimSpace(line), nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil || n < 0 {
		return "", err
	}
	buf := make([]byte, n+2)
	if _, err := io.ReadFull(r, buf); err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// Command sends one command to the server on a fresh connection and
// returns its reply's text (a status or error line, or a bulk string).
func (s *Server) Command(args ...string) (string, error) { return command(s.Addr(), args...) }

// ping sends PING in RESP and reads +PONG (a loading server answers
// -LOADING, not ready yet).
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return errors.New(strings.TrimSpace(line))
	}
	return nil
}

// Kill kills the server with SIGKILL (kill -9) by its PID and waits until
// its port is closed. Killing a stopped server does nothing.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
	s.cmd, s.exited = nil, nil
}

// Restart starts the server again on the same port and directory after
// [Server.Kill]: it loads its state from the append-only file. It refuses
// a server started without appendfsync always ([NoFsync], a cluster's
// node, a Sentinel's servers): what it kept across the kill would not be
// what DIST-7 promises.
func (s *Server) Restart() error {
	if f := s.fsync(); f != "always" {
		return fmt.Errorf("redistest: restart of a server started with appendfsync %s: a restart checks durability, which needs appendfsync always (start it without NoFsync)", f)
	}
	var err error
	for range 50 { // the killed server's port may linger a moment
		if err = s.launch(); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

// LogTail returns the last n lines of the server's log.
func (s *Server) LogTail(n int) string { return tail(filepath.Join(s.dir, "redis.log"), n) }

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
