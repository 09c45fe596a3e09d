package redisstore

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// crc16 is CRC16-CCITT (XMODEM: polynomial 0x1021, initial 0), the CRC of
// Redis Cluster's key slots.
func crc16(b string) uint16 {
	var crc uint16
	for i := 0; i < len(b); i++ {
		crc ^= uint16(b[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// hashTag is the part of key that Redis Cluster hashes: the text between
// the first '{' and the first '}' after it, when that is not empty, else
// the whole key.
func hashTag(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			return key[i+1 : i+1+j]
		}
	}
	return key
}

// keySlot is key's Redis Cluster slot, as CLUSTER KEYSLOT computes it.
func keySlot(key string) int { return int(crc16(hashTag(key)) % 16384) }

// TestKeySlotIsRedisCluster checks keySlot against the Redis Cluster
// specification's examples and a slot a real cluster gave (CLUSTER KEYSLOT
// {0} is 13907, which ./fuzz's cluster tests rely on), so that the
// layout tests below compute the slots Redis does.
func TestKeySlotIsRedisCluster(t *testing.T) {
	if got := crc16("123456789"); got != 0x31c3 {
		t.Errorf("crc16(123456789) = %#x, want 0x31c3 (the cluster spec's check value)", got)
	}
	for _, c := range []struct{ key, tag, reason string }{
		{"{user1000}.following", "user1000", "the tag alone is hashed"},
		{"foo{}{bar}", "foo{}{bar}", "an empty first tag: the whole key is hashed"},
		{"foo{{bar}}zap", "{bar", "the tag runs from the first '{' to the first '}' after it"},
		{"foo{bar}{zap}", "bar", "only the first tag counts"},
		{"foo", "foo", "no brace: the whole key"},
		{"foo{bar", "foo{bar", "no closing brace: the whole key"},
	} {
		if got := hashTag(c.key); got != c.tag {
			t.Errorf("hashTag(%q) = %q, want %q: %s", c.key, got, c.tag, c.reason)
		}
	}
	if got := keySlot("{0}"); got != 13907 {
		t.Errorf("keySlot({0}) = %d, want 13907", got)
	}
}

// TestNamespacesSpreadOverSlots checks that partition 0 of different
// namespaces lands in different slots: 1000 namespaces of one partition
// (the default) spread over as many slots as 1000 random draws of 16384
// would (about 970 distinct), where a tag of the partition alone would
// put them all in one.
func TestNamespacesSpreadOverSlots(t *testing.T) {
	slot := func(ns string) int {
		s, err := newStore(Config{Client: noClient{}, Namespace: ns, StampsPerKey: 5, TTL: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return keySlot(s.hash("k"))
	}
	if a, b := slot("login"), slot("api"); a == b {
		t.Errorf("partition 0 of namespaces login and api are both in slot %d, want two slots", a)
	}
	slots := map[int]bool{}
	for i := range 1000 {
		slots[slot("tenant-"+strconv.Itoa(i))] = true
	}
	if len(slots) < 900 {
		t.Errorf("partition 0 of 1000 namespaces is in %d slots, want at least 900", len(slots))
	}
}

// TestPropPartitionTagIsNamespaceAndPartition checks the property that
// every key's hash and reservations carry the tag NS:P of its namespace
// and partition, whatever bytes the key holds (so each op is in one slot,
// spec DIST-11), and that New refuses a namespace with a brace, which
// would move the tag.
func TestPropPartitionTagIsNamespaceAndPartition(t *testing.T) {
	ns := rapid.StringOfN(rapid.SampledFrom([]rune("ab:0{}")), 1, 8, -1)
	rapid.Check(t, func(t *rapid.T) {
		n, parts := ns.Draw(t, "namespace"), rapid.IntRange(0, 100).Draw(t, "partitions")
		key := string(rapid.SliceOf(rapid.SampledFrom([]byte("k:{}0"))).Draw(t, "key"))
		s, err := newStore(Config{Client: noClient{}, Namespace: n, Partitions: parts, StampsPerKey: 5, TTL: time.Second})
		if strings.ContainsAny(n, "{}") {
			if err == nil {
				t.Fatalf("newStore(Namespace %q) = nil error, want one: a brace would move the tag", n)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		want := n + ":" + strconv.Itoa(s.Partition(key))
		if got := hashTag(s.hash(key)); got != want {
			t.Fatalf("hashTag(hash(%q)) = %q, want %q", key, got, want)
		}
		if got := hashTag(s.r(key)); got != want {
			t.Fatalf("hashTag(r(%q)) = %q, want %q", key, got, want)
		}
	})
}

// TestPropTagsNeverShared checks the property that two partitions share a
// hash tag only when they are one: same namespace, same partition, even
// for namespaces full of ':' and digits.
func TestPropTagsNeverShared(t *testing.T) {
	ns := rapid.StringOfN(rapid.SampledFrom([]rune("a:0")), 1, 6, -1)
	rapid.Check(t, func(t *rapid.T) {
		n1, n2 := ns.Draw(t, "namespace1"), ns.Draw(t, "namespace2")
		p1, p2 := rapid.IntRange(0, 11).Draw(t, "partition1"), rapid.IntRange(0, 11).Draw(t, "partition2")
		tag := func(n string, p int) string {
			s, err := newStore(Config{Client: noClient{}, Namespace: n, Partitions: 12, StampsPerKey: 5, TTL: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			return hashTag(s.parts[p])
		}
		if same := tag(n1, p1) == tag(n2, p2); same != (n1 == n2 && p1 == p2) {
			t.Fatalf("tags of (%q, %d) and (%q, %d) are %q and %q: shared %v, want %v", n1, p1, n2, p2, tag(n1, p1), tag(n2, p2), same, !same)
		}
	})
}
