package httplimit_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/limcheck/limcheck/impl/throttle"
)

// guessBurst sends n wrong guesses for alice from ip at once, guess i
// through nodes[i%len(nodes)]. Every attempt that proceeds waits in its
// password check until all n have begun, then fails: so all n Begins
// overlap every check. It returns how many passwords were checked.
func guessBurst(t *testing.T, nodes []*httplimit.LoginGuard, ip string, n int) int64 {
	t.Helper()
	var begun, done sync.WaitGroup
	var checks atomic.Int64
	release := make(chan struct{})
	begun.Add(n)
	for i := range n {
		done.Go(func() {
			a := nodes[i%len(nodes)].Begin(ip, "alice")
			defer a.Close()
			begun.Done()
			if a.Verdict != httplimit.LoginProceed {
				return
			}
			checks.Add(1)
			<-release
			if _, err := a.Failed(); err != nil {
				t.Errorf("Failed() = %v", err)
			}
		})
	}
	begun.Wait()
	close(release)
	done.Wait()
	return checks.Load()
}

// TestGuessesAcrossNodesOverOneMemStore runs 100 concurrent guesses at one
// account from one address through 1, 2 and 4 guards ("nodes") over one
// shared store, threshold 5, for two ban cycles: a MemStore holds the
// reservations, so 5 passwords are checked per cycle whatever the number
// of nodes (issue 24 measured 5, 10 and 20), and the fifth failure bans.
// A store without reservations (a FaultStore, no fault set) leaves each
// node its own bound: 5 a node, 20 for 4, as the package doc says.
func TestGuessesAcrossNodesOverOneMemStore(t *testing.T) {
	for _, tt := range []struct {
		nodes   int
		reserve bool
		want    int64
		reason  string
	}{
		{1, true, 5, "one node: threshold"},
		{2, true, 5, "two nodes share the store's reservations: threshold"},
		{4, true, 5, "four nodes: still threshold"},
		{4, false, 20, "a store without reservations: threshold per node"},
	} {
		t.Run(fmt.Sprintf("nodes=%d/reserve=%v", tt.nodes, tt.reserve), func(t *testing.T) {
			now := uint64(1_000_000)
			mem, err := throttle.NewMemStore(throttle.MemConfig{StampsPerKey: 5})
			if err != nil {
				t.Fatal(err)
			}
			var store throttle.Store = mem
			if !tt.reserve {
				store = throttle.NewFaultStore(mem)
			}
			var nodes []*httplimit.LoginGuard
			for range tt.nodes {
				nodes = append(nodes, mustGuard(t, store, throttle.Config{Threshold: 5, WindowSecs: 900, BanSecs: 900},
					httplimit.LoginConfig{Now: func() uint64 { return now }}))
			}
			for cycle := range 2 {
				if got := guessBurst(t, nodes, "192.0.2.7", 100); got != tt.want {
					t.Errorf("cycle %d: %d passwords checked of 100 guesses, want %d (%s)", cycle, got, tt.want, tt.reason)
				}
				if a := nodes[0].Begin("192.0.2.7", "alice"); a.Verdict != httplimit.LoginBanned || a.Until != now+900 {
					t.Errorf("cycle %d: after the burst Begin = %+v, want banned until %d", cycle, a, now+900)
				}
				if tt.reserve && mem.Reservations() != 0 {
					t.Errorf("cycle %d: %d reservations left in the store, want 0", cycle, mem.Reservations())
				}
				now += 900 // the ban ends and the failures leave the window together
			}
		})
	}
}
