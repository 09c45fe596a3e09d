//go:build !fuzzsmoke

package fuzz

import (
	"errors"
	"testing"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	ilim "github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/redisgate"
	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/impl/throttle/redisstore"
	"github.com/limcheck/limcheck/internal/redistest"
	"github.com/redis/rueidis"
)

// TestRedisRunsWithoutTIME checks the package docs' claim about TIME on a
// server that refuses it to the client's user (an ACL without TIME, as
// some managed offerings refuse it in scripts): the gate's admit reads it
// and fails there, definitely; with Config.NodeClock the gate passes,
// counts its leases and sheds at maxif; the throttle store, which never
// reads it, records failures, bans and checks.
func TestRedisRunsWithoutTIME(t *testing.T) {
	srv := redistest.Start(t)
	if _, err := srv.Command("ACL", "SETUSER", "notime", "on", ">pw", "~*", "&*", "+@all", "-time"); err != nil {
		t.Fatal(err)
	}
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{srv.Addr()}, Username: "notime", Password: "pw", DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	seed := redisTestSeed
	cfg := redisgate.Config{Client: c, Name: "notime", Lim: ilim.NewConfig(10, 1, 1, 2), Sets: 1 << 20, Ways: 1,
		TickNanos: 1, LeaseTTL: time.Hour, Seed: &seed}
	g, err := redisgate.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Admit("a", 0); !errors.Is(err, redisgate.ErrUnavailable) {
		t.Fatalf("Admit on the Redis clock where TIME is refused = %v; want ErrUnavailable (the script read TIME and failed)", err)
	}
	cfg.NodeClock = true
	if g, err = redisgate.New(cfg); err != nil {
		t.Fatal(err)
	}
	for i, want := range []gate.Verdict{gate.Pass, gate.Pass, gate.Shed} {
		if d, err := g.Admit("a", 0); err != nil || d.Verdict != want {
			t.Fatalf("NodeClock: admit %d = %v, %v; want %v", i+1, d.Verdict, err, want)
		}
	}
	if n, err := g.InFlight(); err != nil || n != 2 {
		t.Errorf("NodeClock: InFlight = %d, %v; want 2", n, err)
	}
	s, err := redisstore.New(redisstore.Config{Client: c, Namespace: "notime", StampsPerKey: 2, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	thr, err := throttle.New(s, throttle.Config{Threshold: 2, WindowSecs: 60, BanSecs: 60})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := thr.RecordFailure("k", 100); err != nil {
			t.Fatalf("RecordFailure where TIME is refused: %v", err)
		}
	}
	if d := thr.Check("k", 101); d.Verdict != throttle.Banned {
		t.Errorf("Check after two failures where TIME is refused = %+v, want banned", d)
	}
}
