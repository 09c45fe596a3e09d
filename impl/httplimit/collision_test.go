package httplimit_test

import (
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/lim"
)

// The aimed collision of issue 13, through a real loopback server: an
// attacker finds, by lim_ip_key arithmetic, addresses whose keys fall in the
// victim's set (lim_ip_key mod sets) but are not the victim's key, and floods
// from them. Under spec 1.x (a bucket per slot) the victim passed 2 of 15;
// under 2.0 a key's bucket moves only by its own takes, and an eviction
// drops a key that then returns born full, so the victim passes 15 of 15.

const (
	collisionSets = 4096
	collisionWays = 4
	collisionCap  = 15
	victimAddr    = "203.0.113.7"
)

// collidingAddrs returns n addresses of 198.51.0.0/16 whose lim_ip_key is in
// the victim's set and differs from the victim's key: the attacker's offline
// search (IPKey is public, unseeded and linear).
func collidingAddrs(t *testing.T, n int) []string {
	t.Helper()
	victim := lim.IPKey(victimAddr)
	var out []string
	for i := 0; i < 1<<16 && len(out) < n; i++ {
		a := fmt.Sprintf("198.51.%d.%d", i>>8, i&255)
		if k := lim.IPKey(a); k%collisionSets == victim%collisionSets && k != victim {
			out = append(out, a)
		}
	}
	if len(out) < n {
		t.Fatalf("found %d addresses in the victim's set among 2^16, want %d", len(out), n)
	}
	return out
}

// collisionServer serves a limiter (cap 15, no refill during the test: a
// fixed clock) behind the loopback "load balancer" 127.0.0.1, whose
// X-Forwarded-For it trusts, and returns a function sending one request
// from addr and returning its status.
func collisionServer(t *testing.T) (*gate.Gate, func(addr string) int) {
	t.Helper()
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(collisionCap, 1, 600, 1<<10), Sets: collisionSets, Ways: collisionWays, TickNanos: tick100ms})
	if err != nil {
		t.Fatal(err)
	}
	l := newLimiter(t, g, fixedClock(1000), httplimit.WithTrustedProxies(httplimit.XForwardedFor, prefixes("127.0.0.1/32")...))
	base := loopback(t, l.Wrap(ok))
	client := &http.Client{}
	return g, func(addr string) int {
		req, err := http.NewRequest(http.MethodGet, base, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Forwarded-For", addr)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
}

// TestAimedCollisionLeavesVictimUnaffected reproduces the attack: one
// colliding address floods (4*cap requests, limited after its own cap),
// then the victim sends 15 and all 15 pass; and the stronger form, ways+1
// colliding addresses recycling the set's ways between each of the
// victim's 15 requests, where the victim is never the one evicted while
// it is emptier than a flooder, and passes 15 of 15 again.
func TestAimedCollisionLeavesVictimUnaffected(t *testing.T) {
	attackers := collidingAddrs(t, collisionWays+1)
	t.Run("one colliding address", func(t *testing.T) {
		g, send := collisionServer(t)
		if g.SetOf(attackers[0]) != g.SetOf(victimAddr) {
			t.Fatalf("SetOf(%s) = %d, SetOf(victim) = %d: the search is wrong", attackers[0], g.SetOf(attackers[0]), g.SetOf(victimAddr))
		}
		passed := 0
		for range 4 * collisionCap {
			if send(attackers[0]) == http.StatusOK {
				passed++
			}
		}
		if passed != collisionCap {
			t.Errorf("the flooder passed %d of %d, want its own cap %d", passed, 4*collisionCap, collisionCap)
		}
		if got := victimPasses(send, nil); got != collisionCap {
			t.Errorf("the victim passed %d of %d after the flood from %s, want all %d", got, collisionCap, attackers[0], collisionCap)
		}
	})
	t.Run("ways+1 colliding addresses recycling the set", func(t *testing.T) {
		_, send := collisionServer(t)
		flood := func() {
			for _, a := range attackers {
				for range 3 {
					send(a)
				}
			}
		}
		if got := victimPasses(send, flood); got != collisionCap {
			t.Errorf("the victim passed %d of %d between floods from %d addresses of its set, want all %d", got, collisionCap, len(attackers), collisionCap)
		}
	})
}

// victimPasses sends the victim's 15 requests, running between (if not nil)
// before each, and returns how many passed.
func victimPasses(send func(string) int, between func()) int {
	passed := 0
	for range collisionCap {
		if between != nil {
			between()
		}
		if send(victimAddr) == http.StatusOK {
			passed++
		}
	}
	return passed
}
