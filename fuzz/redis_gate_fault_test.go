//go:build !fuzzsmoke

package fuzz

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	ilim "github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisgate"
	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/limcheck/limcheck/internal/slowdown"
	"github.com/redis/rueidis"
)

// redisFaultGate is a gate named name over c, cap 10, maxif 100.
func redisFaultGate(t *testing.T, c rueidis.Client, name string) *redisgate.Gate {
	t.Helper()
	seed := redisTestSeed
	g, err := redisgate.New(redisgate.Config{Client: c, Name: name, Lim: ilim.NewConfig(10, 1, 1, 100), Sets: 1 << 20, Ways: 1,
		TickNanos: 1, LeaseTTL: time.Hour, Timeout: slowdown.Scale(2 * time.Second), Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestRedisGateLostReplyThenRefusedIsIndeterminate checks DIST-5 for an
// admit whose first attempt ran and lost its reply, and whose retries then
// failed definitely (connects refused): the admit took a token and a
// lease, so its error wraps ErrIndeterminate, never ErrUnavailable ("no
// effect"), whatever the last attempt's error.
func TestRedisGateLostReplyThenRefusedIsIndeterminate(t *testing.T) {
	srv, r := sharedRedis(t)
	p := redistest.NewProxy(t, srv.Addr())
	// One connection, dialed before the fault (rueidis spreads keyed
	// commands over lazily dialed connections), and no background PING
	// (rueidis pings an idle connection every Dialer.KeepAlive): the reply
	// the proxy drops is the admit's.
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{p.Addr()}, DisableCache: true,
		PipelineMultiplex: -1, Dialer: net.Dialer{KeepAlive: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	name := r.Namespace()
	g := redisFaultGate(t, c, name)
	if d, err := g.Admit("a", 0); err != nil || d.Verdict != gate.Pass { // the script loaded, the connection up
		t.Fatalf("Admit(a, 0) = %v, %v; want pass", d.Verdict, err)
	}
	if err := p.SetMode(redistest.DropReplyThenRefuse); err != nil {
		t.Fatal(err)
	}
	_, err = g.Admit("a", 1)
	if !errors.Is(err, redisgate.ErrIndeterminate) || errors.Is(err, redisgate.ErrUnavailable) {
		t.Errorf("Admit(a, 1) with its reply lost, then connects refused = %v; want ErrIndeterminate, not ErrUnavailable", err)
	}
	if p.Drops() != 1 {
		t.Fatalf("the proxy dropped %d replies, want 1", p.Drops())
	}
	direct, err := r.Client()
	if err != nil {
		t.Fatal(err)
	}
	n, err := redisFaultGate(t, direct, name).InFlight()
	if err != nil || n != 2 {
		t.Errorf("InFlight after the lost admit = %d, %v; want 2: it passed, so \"no effect\" would have been false", n, err)
	}
}
