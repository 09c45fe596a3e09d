package main

import (
	"flag"
	"fmt"

	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/conformance/report"
	"github.com/limcheck/limcheck/impl/redisclient"
	"github.com/limcheck/limcheck/internal/subject"
	"github.com/limcheck/limcheck/oracle"
)

// serveFlags are serve's flags: the model, or one Redis target.
type serveFlags struct {
	model  bool
	redis  map[string]*string // the value of each of redisFlags, by its name
	layout subject.Layout     // -redis-layout ("": exact)
}

func (sf *serveFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&sf.model, "model", false, "serve the reference model instead of impl/")
	sf.redis = map[string]*string{
		"redis":          fs.String("redis", "", "serve the Redis-backed gate and throttle store (impl/redisgate, impl/throttle/redisstore) over the redis-server at `ADDR` (host:port; a Redis Cluster node also works: the client finds its cluster) instead of impl/"),
		"redis-cluster":  fs.String("redis-cluster", "", "as -redis, over the Redis Cluster whose seed nodes are `SEEDS` (host:port,host:port,...; refused unless they are cluster nodes)"),
		"redis-sentinel": fs.String("redis-sentinel", "", "as -redis, over the primary that the Sentinels at ADDRS monitor as MASTER: `MASTER@ADDRS` (name@host:port,host:port,...); the client follows their failovers"),
	}
	fs.Func("redis-layout", "the Redis `LAYOUT`: exact (the default: one global in-flight count, the gate in one slot, the throttle store in one partition) or spread (in-flight per process, the sets spread over 1024 slabs, the store over 64 partitions: every slot of a cluster)", func(s string) (err error) { sf.layout, err = subject.ParseLayout(s); return err })
}

// serveCmd serves the bundled implementation (or the model) as a port on
// stdin and stdout: `limcheck run --port 'limcheck serve'` checks it
// through a real process.
func (c cli) serveCmd(args []string) int {
	fs := c.flags("serve", "[-model | [-redis-layout exact|spread] -redis ADDR | -redis-cluster SEEDS | -redis-sentinel MASTER@ADDRS]", "Serves the bundled Go implementation (impl/) as a port on stdin and stdout (spec.md PROTO-1..11).", "0 stdin ended, 2 a request line that is not JSON with a seq, a bad Redis address, or a Redis that does not answer")
	var sf serveFlags
	sf.register(fs)
	if _, st := c.parse(fs, args, 0, 0); st != proceed {
		return st
	}
	tuneGC()
	s, h := oracle.Subject(subject.Impl{}), bundledHello()
	var chosen []string // the Redis flags given, in name order
	fs.Visit(func(f *flag.Flag) {
		if redisFlags[f.Name] != nil {
			chosen = append(chosen, f.Name)
		}
	})
	switch {
	case sf.model && len(chosen) > 0:
		fmt.Fprintf(c.stderr, "limcheck serve: -model and -%s exclude each other\n", chosen[0])
		return report.ExitUsage
	case len(chosen) > 1:
		fmt.Fprintf(c.stderr, "limcheck serve: -%s and -%s exclude each other\n", chosen[0], chosen[1])
		return report.ExitUsage
	case sf.layout != "" && len(chosen) == 0:
		fmt.Fprintf(c.stderr, "limcheck serve: -redis-layout needs -redis, -redis-cluster or -redis-sentinel\n")
		return report.ExitUsage
	case sf.model:
		s, h.Name = oracle.Model{}, "limcheck-model"
	case len(chosen) == 1:
		name := chosen[0]
		t, err := redisFlags[name](*sf.redis[name])
		var r *subject.Redis
		if err == nil {
			r, err = subject.OpenRedis(t)
		}
		if err != nil {
			fmt.Fprintf(c.stderr, "limcheck serve: -%s: %v\n", name, err)
			return report.ExitUsage
		}
		defer r.Close()
		s, h.Name = r.WithLayout(sf.layout), "limcheck-redis"
	}
	if err := protocol.Serve(c.stdin, c.stdout, s, h); err != nil {
		fmt.Fprintf(c.stderr, "limcheck serve: %v\n", err)
		return report.ExitUsage
	}
	return report.ExitOK
}

// redisFlags are serve's Redis flags, each with the parser of its value.
var redisFlags = map[string]func(string) (redisclient.Target, error){
	"redis":          redisclient.ParseServer,
	"redis-cluster":  redisclient.ParseCluster,
	"redis-sentinel": redisclient.ParseSentinel,
}
