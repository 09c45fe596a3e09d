//go:build !fuzzsmoke

package fuzz

import (
	"errors"
	"strings"
	"testing"
	"time"

	ilim "github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisgate"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/limcheck/limcheck/internal/subject"
)

// TestRedisNewRefusesAnEvictingPolicy checks that redisgate.New and
// redisstore.New read the server's maxmemory-policy: under volatile-lru
// (which may evict any of their keys, all of which have a TTL) each
// refuses with its ErrEvictingPolicy, naming the policy, unless
// OnEvictingPolicy accepts it; then the hook hears the node and the
// policy once, and its error, if any, is New's. Under noeviction (the
// other servers of these tests) the hook is never called.
func TestRedisNewRefusesAnEvictingPolicy(t *testing.T) {
	srv := redistest.StartWith(t, "--maxmemory-policy", "volatile-lru")
	c, err := subject.NewClient(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	seed := redisTestSeed
	gcfg := redisgate.Config{Client: c, Name: "evict", Lim: ilim.NewConfig(10, 1, 1, 10), Sets: 1, Ways: 1, TickNanos: 1,
		LeaseTTL: time.Minute, Seed: &seed}
	scfg := redisstore.Config{Client: c, Namespace: "evict", StampsPerKey: 5, TTL: time.Minute}
	newGate := func(hook func(node, policy string) error) error {
		gcfg.OnEvictingPolicy = hook
		_, err := redisgate.New(gcfg)
		return err
	}
	newStore := func(hook func(node, policy string) error) error {
		scfg.OnEvictingPolicy = hook
		_, err := redisstore.New(scfg)
		return err
	}
	for _, tc := range []struct {
		name     string
		build    func(func(node, policy string) error) error
		sentinel error
	}{{"redisgate.New", newGate, redisgate.ErrEvictingPolicy}, {"redisstore.New", newStore, redisstore.ErrEvictingPolicy}} {
		if err := tc.build(nil); !errors.Is(err, tc.sentinel) || !strings.Contains(err.Error(), "volatile-lru") {
			t.Errorf("%s under volatile-lru, no hook = %v; want %v naming the policy", tc.name, err, tc.sentinel)
		}
		var heard []string
		accept := func(node, policy string) error { heard = append(heard, node+" "+policy); return nil }
		if err := tc.build(accept); err != nil || len(heard) != 1 || heard[0] != srv.Addr()+" volatile-lru" {
			t.Errorf("%s under volatile-lru, a hook that accepts = %v, hook heard %q; want nil, once %q", tc.name, err, heard, srv.Addr()+" volatile-lru")
		}
		no := errors.New("not here")
		if err := tc.build(func(string, string) error { return no }); !errors.Is(err, no) {
			t.Errorf("%s under volatile-lru, a hook that refuses = %v; want its error", tc.name, err)
		}
	}
	if _, err := srv.Command("CONFIG", "SET", "maxmemory-policy", "noeviction"); err != nil {
		t.Fatal(err)
	}
	called := func(node, policy string) error {
		t.Errorf("the hook was called (%s, %s) under noeviction", node, policy)
		return nil
	}
	if err := newGate(called); err != nil {
		t.Errorf("redisgate.New under noeviction = %v", err)
	}
	if err := newStore(called); err != nil {
		t.Errorf("redisstore.New under noeviction = %v", err)
	}
}
