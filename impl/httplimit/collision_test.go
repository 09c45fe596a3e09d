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
// attacker finds addresses whose keys fall in the victim's set but are not
// the victim's key, and floods from them. Under spec 1.x (a bucket per
// slot) the victim passed 2 of 15; under 2.0 a key's bucket moves only by
// its own takes, and an eviction drops a key that then returns born full,
// so the victim passed 15 of 15 while the flooders recycled each other's
// buckets without limit (FIND-16). Under 3.0 the set is SipHash under a
// secret seed (GATE-18): the search below needs the seed, which only a
// test has (collisionSeed; production draws one); and each eviction is
// paid from the set's budget (GATE-19), so the flooders pass at most their
// own caps plus one bucket's worth (PROP-26), and the victim may wait for
// the budget (FIND-14, FIND-27).

// collisionSeed is the seed the attacker is assumed to know.
var collisionSeed = [16]byte{15: 24}

const (
	collisionSets = 4096
	collisionWays = 4
	collisionCap  = 15
	victimAddr    = "203.0.113.7"
)

// collidingAddrs returns n addresses of 198.51.0.0/16 whose lim_ip_key is in
// the victim's set of a gate of collisionSeed and differs from the victim's
// key: the search of an attacker who knows the seed.
func collidingAddrs(t *testing.T, n int) []string {
	t.Helper()
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(1, 1, 1, 1), Sets: collisionSets, Ways: 1, TickNanos: 1, Seed: &collisionSeed})
	if err != nil {
		t.Fatal(err)
	}
	victim, set := lim.IPKey(victimAddr), g.SetOf(victimAddr)
	var out []string
	for i := 0; i < 1<<20 && len(out) < n; i++ {
		a := fmt.Sprintf("198.%d.%d.%d", 51+i>>16, i>>8&255, i&255)
		if g.SetOf(a) == set && lim.IPKey(a) != victim {
			out = append(out, a)
		}
	}
	if len(out) < n {
		t.Fatalf("found %d addresses in the victim's set among 2^20, want %d", len(out), n)
	}
	return out
}

// collisionServer serves a limiter (cap 15, no refill during the test: a
// fixed clock) behind the loopback "load balancer" 127.0.0.1, whose
// X-Forwarded-For it trusts, and returns a function sending one request
// from addr and returning its status.
func collisionServer(t *testing.T) (*gate.Gate, func(addr string) int) {
	t.Helper()
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(collisionCap, 1, 600, 1<<10), Sets: collisionSets, Ways: collisionWays, TickNanos: tick100ms, Seed: &collisionSeed})
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

// TestAimedCollisionByOneWhoKnowsTheSeed reproduces the attack by one
// who knows the seed: one colliding address floods (4*cap requests,
// limited after its own cap), then the victim sends 15 and all 15 pass;
// and the stronger form, ways+1 colliding addresses recycling the set's
// ways between each of the victim's 15 requests, where the flooders
// together pass at most their own caps plus the budget's one cap (PROP-26,
// no refill at a fixed clock), where 2.0 let them pass without limit; the
// victim, whose way they evict, then waits for the budget (FIND-14: it is
// logged, not bounded). Without the seed no search finds such addresses.
func TestAimedCollisionByOneWhoKnowsTheSeed(t *testing.T) {
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
		flooded := 0
		flood := func() {
			for _, a := range attackers {
				for range 3 {
					if send(a) == http.StatusOK {
						flooded++
					}
				}
			}
		}
		got := victimPasses(send, flood)
		if most := (len(attackers) + 1) * collisionCap; flooded > most {
			t.Errorf("%d addresses of the victim's set passed %d, want at most their caps plus one bucket, %d (PROP-26)", len(attackers), flooded, most)
		}
		t.Logf("the victim passed %d of %d, the %d flooders %d", got, collisionCap, len(attackers), flooded)
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
