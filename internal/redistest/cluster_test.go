package redistest

import (
	"strconv"
	"testing"
	"time"
)

// TestClusterServesEverySlotAndMovesOne: a started cluster has every slot
// served; a key set on its slot's owner is, after MoveSlot, on the new
// owner, which CLUSTER NODES then names, and the old owner redirects to it.
func TestClusterServesEverySlotAndMovesOne(t *testing.T) {
	c := StartCluster(t, 0)
	if len(c.Nodes) != 3 {
		t.Fatalf("%d nodes, want 3", len(c.Nodes))
	}
	const key = "{harness}:k"
	slot, err := c.Slot(key)
	if err != nil {
		t.Fatal(err)
	}
	from, err := c.Owner(slot)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := from.Command("SET", key, "v"); err != nil || r != "+OK" {
		t.Fatalf("SET on the owner = %q, %v", r, err)
	}
	to := c.Nodes[0]
	if to == from {
		to = c.Nodes[1]
	}
	batches := 0
	if err := c.MoveSlot(slot, to, 10, func() { batches++ }); err != nil {
		t.Fatal(err)
	}
	if batches != 1 {
		t.Errorf("MoveSlot moved %d batches, want 1 (one key)", batches)
	}
	if owner, err := c.Owner(slot); err != nil || owner != to {
		t.Fatalf("Owner(%d) = %v, %v after the move; want %s", slot, owner, err, to.Addr())
	}
	if r, err := to.Command("GET", key); err != nil || r != "v" {
		t.Errorf("GET on the new owner = %q, %v, want v", r, err)
	}
	if _, err := Do(from.Addr(), "GET", key); err == nil || err.Error() != "redistest: MOVED "+itoa(slot)+" "+to.Addr() {
		t.Errorf("GET on the old owner: %v, want MOVED to %s", err, to.Addr())
	}
}

// TestSentinelPromotesTheReplicaOfAKilledPrimary: the Sentinel names the
// primary, and after kill -9 of it, the replica.
func TestSentinelPromotesTheReplicaOfAKilledPrimary(t *testing.T) {
	s := StartSentinel(t)
	if a, err := s.PrimaryAddr(); err != nil || a != s.Primary.Addr() {
		t.Fatalf("PrimaryAddr() = %q, %v; want %s", a, err, s.Primary.Addr())
	}
	s.Primary.Kill()
	deadline := time.Now().Add(30 * time.Second)
	for {
		a, err := s.PrimaryAddr()
		if err == nil && a == s.Replica.Addr() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("PrimaryAddr() = %q, %v 30s after the kill; want the replica %s", a, err, s.Replica.Addr())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if p, err := s.Replica.isPrimary(); err != nil || !p {
		t.Errorf("the replica is not a primary: %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
