// The in-process flood runs without the race detector (make test's gotest
// runs it in the plain build): it drives one gate from one goroutine, so
// the detector could find nothing in it, and it made the test five times
// as slow (about 45 of its 50 CPU-seconds). The attacks through a server,
// whose handlers share the gate, run under it (attack_test.go).

//go:build !race

package httplimit_test

import (
	"math/rand/v2"
	"testing"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/lim"
)

// readmeLim is the README's gate: burst 20, one token per second (a token
// per 10 ticks of 0.1 s), 512 in flight.
var readmeLim = lim.NewConfig(20, 1, 10, 512)

// TestAttackInProcessFloodsGainAtMostTheirBound drives the README's gate
// (8192 sets of 8 ways, a drawn seed) for 24 s of simulated ticks, every
// address sending one request per tick in a random order and every pass
// released at once: 8 and 400 addresses aimed at one set by 2.0's public
// rule (2.0: 14.0x and 20.8x their exact bound) pass at most 1.1x it, and
// 32,768 scattered addresses, half the table (2.0: 1.62x), at most 1.05x;
// each within PROP-27's bound.
func TestAttackInProcessFloodsGainAtMostTheirBound(t *testing.T) {
	const sets, ways, ticks = 8192, 8, 240
	r := rand.New(rand.NewPCG(24, 3))
	for _, tc := range []struct {
		what string
		ips  []string
		goal float64
	}{
		{"8 aimed addresses", aimed(8, sets), 1.1},
		{"400 aimed addresses", aimed(400, sets), 1.1},
		{"32768 scattered addresses (half the table)", scattered(r, 32768), 1.05},
	} {
		g, err := gate.New(gate.Config{Lim: readmeLim, Sets: sets, Ways: ways, TickNanos: tick100ms})
		if err != nil {
			t.Fatal(err)
		}
		exact := newExact(readmeLim)
		var passes int64
		order := make([]int, len(tc.ips))
		for now := range int64(ticks) {
			for i := range order {
				order[i] = i
			}
			r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			for _, i := range order {
				if d := g.Admit(tc.ips[i], now); d.Verdict == gate.Pass {
					passes++
					g.Release(d)
				}
				exact.take(tc.ips[i], now)
			}
		}
		checkFlood(t, tc.what, g, tc.ips, ways, ticks, passes, exact.passes, tc.goal)
	}
}
