package redistest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// MasterName is the name under which a [Sentinels] setup's Sentinel
// monitors its primary.
const MasterName = "limcheck"

// SentinelDownAfter is how long, in milliseconds, a Sentinel waits before
// it holds an unanswering primary down: short, so that a failover takes a
// few seconds.
const SentinelDownAfter = 500

// Sentinels is a primary, its replica and one Sentinel that monitors them
// (quorum 1), each a child process in its own directory.
type Sentinels struct {
	Primary  *Server // the primary at start; after a failover, Replica is
	Replica  *Server
	Sentinel *Server // a redis-server --sentinel
}

// StartSentinel starts a primary, a replica and a Sentinel for t and kills
// them when t ends. It fails t (never skips) when they cannot start.
func StartSentinel(t TB) *Sentinels {
	t.Helper()
	s, err := NewSentinels(t.TempDir())
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("sentinel log tail:\n%s", s.Sentinel.LogTail(20))
		}
		s.Kill()
	})
	return s
}

// NewSentinels starts them as StartSentinel does, each in a folder of dir
// (which it does not remove); the caller must Kill them.
func NewSentinels(dir string) (*Sentinels, error) {
	var s Sentinels
	var err error
	for _, sub := range []string{"primary", "replica", "sentinel"} {
		if err = os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	// NoFsync: neither is restarted (the failover promotes the replica).
	if s.Primary, err = start(filepath.Join(dir, "primary"), NoFsync()...); err != nil {
		return nil, err
	}
	host, port, _ := splitHostPort(s.Primary.Addr())
	if s.Replica, err = start(filepath.Join(dir, "replica"), append(NoFsync(), "--replicaof", host, port)...); err == nil {
		err = s.Replica.waitLink()
	}
	if err == nil {
		s.Sentinel, err = startSentinel(filepath.Join(dir, "sentinel"), s.Primary.Addr())
	}
	if err != nil {
		s.Kill()
		return nil, err
	}
	return &s, nil
}

// Kill kills the primary, the replica and the Sentinel by their PIDs.
func (s *Sentinels) Kill() {
	for _, p := range []*Server{s.Sentinel, s.Replica, s.Primary} {
		if p != nil {
			p.Kill()
		}
	}
}

// Addrs are the Sentinels' host:port addresses.
func (s *Sentinels) Addrs() []string { return []string{s.Sentinel.Addr()} }

// startSentinel starts a Sentinel in dir that monitors the primary at addr,
// and waits until it knows the primary's replica.
func startSentinel(dir, primary string) (*Server, error) {
	host, port, err := splitHostPort(primary)
	if err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "sentinel.conf")
	text := strings.Join([]string{
		"dir " + dir,
		fmt.Sprintf("sentinel monitor %s %s %s 1", MasterName, host, port),
		fmt.Sprintf("sentinel down-after-milliseconds %s %d", MasterName, SentinelDownAfter),
		fmt.Sprintf("sentinel failover-timeout %s 5000", MasterName),
		fmt.Sprintf("sentinel parallel-syncs %s 1", MasterName),
	}, "\n") + "\n"
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		return nil, err
	}
	bin, err := serverBinary()
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin, conf: conf}
	for range 5 {
		if s.port, err = freePort(); err != nil {
			return nil, err
		}
		if err = s.launch(); err == nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		reps, err := Do(s.Addr(), "SENTINEL", "REPLICAS", MasterName)
		if arr, ok := reps.([]any); ok && len(arr) > 0 {
			return s, nil
		}
		if time.Now().After(deadline) {
			s.Kill()
			return nil, fmt.Errorf("the Sentinel does not know the replica after 10s: %v %v\n%s", reps, err, s.LogTail(10))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func splitHostPort(addr string) (string, string, error) {
	host, port, ok := strings.Cut(addr, ":")
	if _, err := strconv.Atoi(port); !ok || err != nil {
		return "", "", fmt.Errorf("redistest: address %q is not host:port", addr)
	}
	return host, port, nil
}

// PrimaryAddr is the primary's host:port as the Sentinel reports it
// (SENTINEL GET-MASTER-ADDR-BY-NAME).
func (s *Sentinels) PrimaryAddr() (string, error) {
	a, err := Strings(s.Sentinel.Addr(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MasterName)
	if err != nil {
		return "", err
	}
	if len(a) != 2 {
		return "", fmt.Errorf("redistest: the Sentinel knows no primary %s: %v", MasterName, a)
	}
	return a[0] + ":" + a[1], nil
}
