package redistest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ClusterNodeTimeout is the cluster-node-timeout of a [Cluster], in
// milliseconds: short, so that a killed primary's replica takes over
// within a few seconds.
const ClusterNodeTimeout = 1000

// Cluster is a Redis Cluster on loopback: three primaries, each with
// replicas when asked, every node a redis-server child in its own
// directory (nodes.conf, the append-only file, not fsynced: [NoFsync]), set up with
// cluster-require-full-coverage no, as the README recommends.
type Cluster struct {
	// Nodes are the cluster's servers: the primaries first, then their
	// replicas, as redis-cli --cluster create was given them (a failover
	// changes who is primary; see [Cluster.Owner]).
	Nodes []*Server
}

// StartCluster starts a cluster of three primaries with replicas replicas
// each, joined with redis-cli --cluster create, for t, and kills every node
// when t ends. It fails t (never skips) when the cluster cannot start.
func StartCluster(t TB, replicas int) *Cluster {
	t.Helper()
	c, err := NewCluster(t.TempDir(), replicas)
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, n := range c.Nodes {
				t.Logf("redis-server %s log tail:\n%s", n.Addr(), n.LogTail(10))
			}
		}
		c.Kill()
	})
	return c
}

// NewCluster starts a cluster as StartCluster does, each node in a folder
// of dir (which it does not remove); the caller must Kill it.
func NewCluster(dir string, replicas int) (*Cluster, error) {
	cli, err := redisCLI()
	if err != nil {
		return nil, err
	}
	c := &Cluster{}
	for i := range 3 * (1 + replicas) {
		n, err := startNode(filepath.Join(dir, "node"+strconv.Itoa(i)))
		if err != nil {
			c.Kill()
			return nil, err
		}
		c.Nodes = append(c.Nodes, n)
	}
	args := []string{"--cluster", "create"}
	args = append(args, c.Seeds()...)
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		c.Kill()
		return nil, fmt.Errorf("redis-cli --cluster create: %v\n%s", err, out)
	}
	if err := c.WaitOK(30 * time.Second); err != nil {
		c.Kill()
		return nil, err
	}
	return c, nil
}

// redisCLI is redis-cli next to the redis-server binary, or on PATH.
func redisCLI() (string, error) {
	if bin := os.Getenv(Env); bin != "" {
		if cli := filepath.Join(filepath.Dir(bin), "redis-cli"); fileExists(cli) {
			return cli, nil
		}
	}
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		return "", fmt.Errorf("redis-cli not found on PATH (it comes with redis-server: apt-get install redis-server): %w", err)
	}
	return cli, nil
}

func fileExists(path string) bool { _, err := os.Stat(path); return err == nil }

// startNode starts one cluster-enabled redis-server in dir, its cluster bus
// on a port of its own (not port + 10000, which may be past 65535).
func startNode(dir string) (*Server, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var err error
	for range 5 { // the bus port too can be taken before the server binds it
		var bus int
		if bus, err = freePort(); err != nil {
			return nil, err
		}
		var s *Server
		// NoFsync: no node is restarted (a failover promotes a replica).
		s, err = start(dir, append(NoFsync(), "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", strconv.Itoa(ClusterNodeTimeout), "--cluster-port", strconv.Itoa(bus),
			"--cluster-require-full-coverage", "no", "--cluster-replica-validity-factor", "0",
			"--cluster-allow-replica-migration", "no")...)
		if err == nil {
			return s, nil
		}
	}
	return nil, err
}

// Seeds are the nodes' host:port addresses.
func (c *Cluster) Seeds() []string {
	var addrs []string
	for _, n := range c.Nodes {
		addrs = append(addrs, n.Addr())
	}
	return addrs
}

// Kill kills every node by its PID (kill -9).
func (c *Cluster) Kill() {
	for _, n := range c.Nodes {
		n.Kill()
	}
}

// WaitOK waits until every live node says cluster_state:ok with all 16384
// slots assigned and every replica's link to its primary is up.
func (c *Cluster) WaitOK(within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		err := c.ok()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the cluster is not ok after %v: %w", within, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (c *Cluster) ok() error {
	for _, n := range c.Nodes {
		if !n.Running() {
			continue
		}
		info, err := n.Command("CLUSTER", "INFO")
		if err != nil {
			return err
		}
		if !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_slots_assigned:16384") {
			return fmt.Errorf("node %s: %s", n.Addr(), info)
		}
		if p, err := n.isPrimary(); err != nil {
			return err
		} else if !p {
			repl, err := n.Command("INFO", "replication")
			if err != nil || !strings.Contains(repl, "master_link_status:up") {
				return fmt.Errorf("replica %s: its link to its primary is not up: %v", n.Addr(), err)
			}
		}
	}
	return nil
}

// isPrimary reports whether the server is a primary (INFO replication).
func (s *Server) isPrimary() (bool, error) {
	repl, err := s.Command("INFO", "replication")
	if err != nil {
		return false, err
	}
	return strings.Contains(repl, "role:master"), nil
}

// Slot is the hash slot of key (CLUSTER KEYSLOT).
func (c *Cluster) Slot(key string) (int, error) {
	var err error
	for _, n := range c.Nodes {
		var r any
		if r, err = Do(n.Addr(), "CLUSTER", "KEYSLOT", key); err == nil {
			if slot, ok := r.(int64); ok {
				return int(slot), nil
			}
			err = fmt.Errorf("CLUSTER KEYSLOT replied %v", r)
		}
	}
	return 0, fmt.Errorf("redistest: CLUSTER KEYSLOT %s: %w", key, err)
}

// ID is the node's cluster id (CLUSTER MYID).
func (s *Server) ID() (string, error) { return s.Command("CLUSTER", "MYID") }

// Running reports whether the server's process is up (it was not killed).
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd != nil
}

// Owner is the primary that serves slot, as the first live node that
// answers CLUSTER NODES sees it.
func (c *Cluster) Owner(slot int) (*Server, error) {
	for _, n := range c.Nodes {
		if !n.Running() {
			continue
		}
		nodes, err := n.Command("CLUSTER", "NODES")
		if err != nil {
			continue
		}
		addr, ok := ownerIn(nodes, slot)
		if !ok {
			return nil, fmt.Errorf("redistest: no node serves slot %d:\n%s", slot, nodes)
		}
		for _, m := range c.Nodes {
			if m.Addr() == addr {
				return m, nil
			}
		}
		return nil, fmt.Errorf("redistest: slot %d is on %s, not a node of this cluster", slot, addr)
	}
	return nil, fmt.Errorf("redistest: no live node answers CLUSTER NODES")
}

// ownerIn is the host:port of the primary that serves slot in a CLUSTER
// NODES reply: "<id> <ip:port@bus> <flags> <primary> <ping> <pong> <epoch>
// <link> <slot or range>...", ranges as "a-b", migrations as "[...]".
func ownerIn(nodes string, slot int) (string, bool) {
	for _, line := range strings.Split(strings.TrimSpace(nodes), "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || !strings.Contains(f[2], "master") || strings.Contains(f[2], "fail") {
			continue
		}
		for _, r := range f[8:] {
			lo, hi, ok := slotRange(r)
			if ok && lo <= slot && slot <= hi {
				addr, _, _ := strings.Cut(f[1], "@")
				return addr, true
			}
		}
	}
	return "", false
}

func slotRange(s string) (lo, hi int, ok bool) {
	a, b, isRange := strings.Cut(s, "-")
	lo, err1 := strconv.Atoi(a)
	if !isRange {
		return lo, lo, err1 == nil
	}
	hi, err2 := strconv.Atoi(b)
	return lo, hi, err1 == nil && err2 == nil
}

// ReplicaOf is a live node that replicates primary, or nil when none does.
func (c *Cluster) ReplicaOf(primary *Server) (*Server, error) {
	id, err := primary.ID()
	if err != nil {
		return nil, err
	}
	for _, n := range c.Nodes {
		if n == primary || !n.Running() {
			continue
		}
		nodes, err := n.Command("CLUSTER", "NODES")
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(nodes, "\n") {
			f := strings.Fields(line)
			if len(f) >= 4 && strings.Contains(f[2], "myself") && strings.Contains(f[2], "slave") && f[3] == id {
				return n, nil
			}
		}
	}
	return nil, nil
}

// BeginMigration marks slot as importing on to and migrating on from
// (CLUSTER SETSLOT slot IMPORTING, then MIGRATING, in redis-cli's order).
func BeginMigration(slot int, from, to *Server) error {
	fromID, err1 := from.ID()
	toID, err2 := to.ID()
	if err1 != nil || err2 != nil {
		return fmt.Errorf("redistest: CLUSTER MYID: %v %v", err1, err2)
	}
	s := strconv.Itoa(slot)
	if r, err := to.Command("CLUSTER", "SETSLOT", s, "IMPORTING", fromID); err != nil || r != "+OK" {
		return fmt.Errorf("redistest: SETSLOT %d IMPORTING on %s: %q %v", slot, to.Addr(), r, err)
	}
	if r, err := from.Command("CLUSTER", "SETSLOT", s, "MIGRATING", toID); err != nil || r != "+OK" {
		return fmt.Errorf("redistest: SETSLOT %d MIGRATING on %s: %q %v", slot, from.Addr(), r, err)
	}
	return nil
}

// KeysInSlot is up to n keys of slot on node (CLUSTER GETKEYSINSLOT).
func KeysInSlot(node *Server, slot, n int) ([]string, error) {
	return Strings(node.Addr(), "CLUSTER", "GETKEYSINSLOT", strconv.Itoa(slot), strconv.Itoa(n))
}

// MigrateKeys moves keys from one node to another (MIGRATE ... KEYS): each
// key moves whole and atomically, deleted from the source once the target
// holds it.
func MigrateKeys(from, to *Server, keys ...string) error {
	host, port, _ := strings.Cut(to.Addr(), ":")
	args := append([]string{"MIGRATE", host, port, "", "0", "5000", "KEYS"}, keys...)
	r, err := Do(from.Addr(), args...)
	if err != nil {
		return fmt.Errorf("redistest: MIGRATE %v: %w", keys, err)
	}
	if r != "OK" && r != "NOKEY" {
		return fmt.Errorf("redistest: MIGRATE %v: %v", keys, r)
	}
	return nil
}

// EndMigration gives slot to the primary to (CLUSTER SETSLOT slot NODE), on
// it first, then on every other live primary, in redis-cli's order.
func (c *Cluster) EndMigration(slot int, to *Server) error {
	id, err := to.ID()
	if err != nil {
		return err
	}
	s := strconv.Itoa(slot)
	for i, n := range append([]*Server{to}, c.Nodes...) {
		if !n.Running() || (i > 0 && n == to) {
			continue
		}
		if p, err := n.isPrimary(); err != nil || !p {
			continue
		}
		if r, err := n.Command("CLUSTER", "SETSLOT", s, "NODE", id); err != nil || r != "+OK" {
			return fmt.Errorf("redistest: SETSLOT %d NODE on %s: %q %v", slot, n.Addr(), r, err)
		}
	}
	return nil
}

// MoveSlot migrates slot with its keys from its owner to the primary to,
// batch keys at a time, calling between (when not nil) after each batch:
// a live migration, as redis-cli --cluster reshard does one.
func (c *Cluster) MoveSlot(slot int, to *Server, batch int, between func()) error {
	from, err := c.Owner(slot)
	if err != nil {
		return err
	}
	if err := BeginMigration(slot, from, to); err != nil {
		return err
	}
	for {
		keys, err := KeysInSlot(from, slot, batch)
		if err != nil {
			return err
		}
		if len(keys) == 0 {
			break
		}
		if err := MigrateKeys(from, to, keys...); err != nil {
			return err
		}
		if between != nil {
			between()
		}
	}
	return c.EndMigration(slot, to)
}
