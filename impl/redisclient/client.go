// Package redisclient builds the rueidis client that impl/redisgate and
// impl/throttle/redisstore take (their Config.Client) for each way to run
// Redis: one server, a Redis Cluster reached through seed nodes, or a
// primary under Sentinel. Each client it builds reads from primaries only
// and has no client-side cache (a cached or replica read would be a stale
// decision). limcheck serve parses its -redis, -redis-cluster and
// -redis-sentinel flags with [ParseServer], [ParseCluster] and
// [ParseSentinel].
//
// Failovers: a cluster client follows MOVED and ASK and reloads the slot map
// when a node fails; a Sentinel client asks the Sentinels for the primary
// and follows their +switch-master. A one-server client cannot follow a
// failover: promote a replica by hand and it keeps talking to the old
// address.
//
// API: [Target] (its [Mode]: [Server], [Cluster], [Sentinel]),
// [Target.Option], [New].
//
// Imports: the standard library and rueidis.
package redisclient

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/redis/rueidis"
)

// ErrTarget is wrapped by the error for a target that is not well formed.
var ErrTarget = errors.New("redisclient: bad target")

// Mode is how a [Target] finds its primaries.
type Mode string

// The modes.
const (
	// Server is one redis-server at one address. When it is a node of a
	// Redis Cluster, the client finds the cluster through it.
	Server Mode = "server"
	// Cluster is a Redis Cluster reached through seed nodes: the client
	// reads the slot map from a seed that answers, and New fails when the
	// seeds are not a cluster's.
	Cluster Mode = "cluster"
	// Sentinel is a primary that Sentinels monitor under a master name: the
	// client asks the Sentinels where the primary is.
	Sentinel Mode = "sentinel"
)

// Target is where the Redis state lives. The zero Target is not valid.
type Target struct {
	Mode Mode
	// Addrs are host:port addresses: the one server (Server), the seed
	// nodes (Cluster, any number of the cluster's nodes), or the Sentinels
	// (Sentinel).
	Addrs []string
	// Master is the master name the Sentinels monitor (Sentinel only).
	Master string
}

// ParseServer parses "host:port", one server.
func ParseServer(s string) (Target, error) {
	t := Target{Mode: Server, Addrs: strings.Split(s, ",")}
	return t, t.Validate()
}

// ParseCluster parses "host:port,host:port,...", the seed nodes of a Redis
// Cluster (one or more).
func ParseCluster(s string) (Target, error) {
	t := Target{Mode: Cluster, Addrs: strings.Split(s, ",")}
	return t, t.Validate()
}

// ParseSentinel parses "master@host:port,host:port,...": the master name,
// then the Sentinels' addresses (one or more).
func ParseSentinel(s string) (Target, error) {
	i := strings.LastIndexByte(s, '@')
	if i < 0 {
		return Target{}, fmt.Errorf("%w: %q: want MASTER@HOST:PORT[,HOST:PORT...] (the master name the Sentinels monitor, then their addresses)", ErrTarget, s)
	}
	t := Target{Mode: Sentinel, Master: s[:i], Addrs: strings.Split(s[i+1:], ",")}
	return t, t.Validate()
}

// String is the target in the syntax its Parse function reads.
func (t Target) String() string {
	addrs := strings.Join(t.Addrs, ",")
	if t.Mode == Sentinel {
		return t.Master + "@" + addrs
	}
	return addrs
}

// Validate reports what is wrong with t, if anything: an unknown mode, no
// address or more than one for Server, an address that is not host:port
// with a port in 1..65535, one listed twice, a missing or blank master
// name for Sentinel, or one outside Sentinel.
func (t Target) Validate() error {
	switch t.Mode {
	case Server, Cluster, Sentinel:
	default:
		return fmt.Errorf("%w: mode %q (want %q, %q or %q)", ErrTarget, t.Mode, Server, Cluster, Sentinel)
	}
	if len(t.Addrs) == 0 || (t.Mode == Server && len(t.Addrs) != 1) {
		return fmt.Errorf("%w: %s wants %s, not %d", ErrTarget, t.Mode, map[Mode]string{
			Server: "one address (a cluster's seed nodes are the cluster mode's)", Cluster: "one seed address or more",
			Sentinel: "one Sentinel address or more"}[t.Mode], len(t.Addrs))
	}
	seen := map[string]bool{}
	for _, a := range t.Addrs {
		if err := checkAddr(a); err != nil {
			return fmt.Errorf("%w: %w", ErrTarget, err)
		}
		if seen[a] {
			return fmt.Errorf("%w: address %s is listed twice", ErrTarget, a)
		}
		seen[a] = true
	}
	switch {
	case t.Mode == Sentinel && strings.TrimSpace(t.Master) == "":
		return fmt.Errorf("%w: Sentinel wants a master name (MASTER@HOST:PORT,...)", ErrTarget)
	case t.Mode == Sentinel && strings.ContainsAny(t.Master, " \t\r\n"):
		return fmt.Errorf("%w: master name %q has white space", ErrTarget, t.Master)
	case t.Mode != Sentinel && t.Master != "":
		return fmt.Errorf("%w: a master name is for Sentinel only, not %s", ErrTarget, t.Mode)
	}
	return nil
}

// checkAddr reports whether a is host:port with a port in 1..65535.
func checkAddr(a string) error {
	if a == "" {
		return errors.New("an empty address (a stray comma?)")
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return fmt.Errorf("address %q is not host:port: %w", a, err)
	}
	if host == "" {
		return fmt.Errorf("address %q has no host", a)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("address %q: port %q is not a number in 1..65535", a, port)
	}
	return nil
}

// Option is the rueidis option for t: its addresses, the master name for
// Sentinel, no client-side cache, reads from primaries only.
func (t Target) Option() rueidis.ClientOption {
	o := rueidis.ClientOption{InitAddress: append([]string(nil), t.Addrs...), DisableCache: true}
	if t.Mode == Sentinel {
		o.Sentinel = rueidis.SentinelOption{MasterSet: t.Master}
	}
	return o
}

// New validates t and returns a client for it (rueidis.NewClient of
// [Target.Option]). It connects: it fails when no address answers, when a
// Cluster target's seeds are not cluster nodes, or when the Sentinels know
// no primary of the master name. Close the client when done.
func New(t Target) (rueidis.Client, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	c, err := rueidis.NewClient(t.Option())
	if err != nil {
		return nil, fmt.Errorf("redisclient: %s %s: %w", t.Mode, t, err)
	}
	if t.Mode == Cluster && c.Mode() != rueidis.ClientModeCluster {
		c.Close()
		return nil, fmt.Errorf("redisclient: cluster %s: the seed answers as a %s server, not a Redis Cluster node (cluster-enabled no?): use the one-server mode", t, c.Mode())
	}
	return c, nil
}
