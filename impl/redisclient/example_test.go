package redisclient_test

import (
	"log"
	"time"

	"github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisclient"
	"github.com/limcheck/limcheck/impl/redisgate"
)

// A gate on a Redis Cluster, reached through three seed nodes (a Sentinel
// target, redisclient.ParseSentinel("mymaster@s1:26379,s2:26379"), is used
// the same way). The seed must be the same secret on every node.
func ExampleNew() {
	t, err := redisclient.ParseCluster("10.0.0.1:6379,10.0.0.2:6379,10.0.0.3:6379")
	if err != nil {
		log.Fatal(err) // names the bad address
	}
	c, err := redisclient.New(t) // fails when no seed answers, or they are not cluster nodes
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	var seed [16]byte // from the service's secrets
	g, err := redisgate.New(redisgate.Config{Client: c, Name: "api", Lim: lim.NewConfig(20, 1, 10, 512),
		Sets: 1<<63 - 1, Ways: 1, TickNanos: 100_000_000, Seed: &seed, LeaseTTL: time.Minute})
	if err != nil {
		log.Fatal(err)
	}
	d, err := g.Admit("192.0.2.1", g.Now())
	if err != nil {
		log.Print(err) // redisgate.ErrUnavailable or ErrIndeterminate: shed, or fail open
		return
	}
	defer g.Release(d)
}
