package redisstore

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/redis/rueidis"
	"pgregory.net/rapid"
)

// TestPropLowerBoundSelectsTheWindow checks the property that the lex bound
// lower(now, window) admits a stamp member hex16(t)+suffix exactly when
// t + window > now over the whole uint64 domain (THR-4): '-' admits every
// member, '[x' those >= x in byte order.
func TestPropLowerBoundSelectsTheWindow(t *testing.T) {
	edges := []uint64{0, 1, 2, math.MaxUint64 - 1, math.MaxUint64, 1 << 53, 1<<53 + 1}
	u64 := rapid.OneOf(rapid.Uint64(), rapid.SampledFrom(edges))
	rapid.Check(t, func(t *rapid.T) {
		st, now, window := u64.Draw(t, "t"), u64.Draw(t, "now"), rapid.OneOf(rapid.Uint64Range(1, math.MaxUint64), rapid.SampledFrom([]uint64{1, 2, math.MaxUint64})).Draw(t, "window")
		member := hex16(st) + ":0123456789abcdef"
		b := lower(now, window)
		in := b == "-" || member >= b[1:]
		want := st > now-window || now < window // t + window > now, exactly
		if in != want {
			t.Fatalf("lower(%d, %d) = %q admits t=%d: %v, want %v", now, window, b, st, in, want)
		}
	})
}

// TestNewRefusesBadConfigs checks that New names each invalid field with
// ErrConfig.
func TestNewRefusesBadConfigs(t *testing.T) {
	ok := Config{Client: noClient{}, Namespace: "n", StampsPerKey: 5, TTL: time.Second}
	for name, edit := range map[string]func(*Config){
		"nil client":     func(c *Config) { c.Client = nil },
		"empty ns":       func(c *Config) { c.Namespace = "" },
		"brace in ns":    func(c *Config) { c.Namespace = "{x" },
		"closing brace":  func(c *Config) { c.Namespace = "x}" },
		"k 0":            func(c *Config) { c.StampsPerKey = 0 },
		"k past the max": func(c *Config) { c.StampsPerKey = 1<<14 + 1 },
		"ttl below 1ms":  func(c *Config) { c.TTL = time.Microsecond },
		"partitions < 0": func(c *Config) { c.Partitions = -1 },
		"partitions big": func(c *Config) { c.Partitions = MaxPartitions + 1 },
	} {
		if _, err := newStore(ok); err != nil {
			t.Fatalf("newStore(valid config) = %v", err)
		}
		c := ok
		edit(&c)
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: New = %v, want ErrConfig", name, err)
		}
	}
}

// noClient is a client New can hold: New never calls it.
type noClient struct{ rueidis.Client }

// TestPropBoundCountsTheWindow checks the property that countOf(record,
// bound(now, window)) is how many of a record's stamps t (largest first,
// 8 bytes big-endian each) satisfy t + window > now, exactly, over the
// whole uint64 domain (THR-4, spec DIST-8's bound computed in Go).
func TestPropBoundCountsTheWindow(t *testing.T) {
	edges := []uint64{0, 1, 2, math.MaxUint64 - 1, math.MaxUint64, 1 << 53, 1<<53 + 1}
	u64 := rapid.OneOf(rapid.Uint64(), rapid.SampledFrom(edges))
	rapid.Check(t, func(t *rapid.T) {
		stamps := rapid.SliceOfN(u64, 0, 6).Draw(t, "stamps")
		slices.SortFunc(stamps, func(a, b uint64) int { return cmp.Compare(b, a) })
		now, window := u64.Draw(t, "now"), rapid.OneOf(rapid.Uint64Range(1, math.MaxUint64), rapid.SampledFrom([]uint64{1, 2, math.MaxUint64})).Draw(t, "window")
		rec := be8(rapid.Uint64().Draw(t, "ban"))
		want := uint64(0)
		for _, st := range stamps {
			rec += be8(st)
			if st > now-window || now < window { // t + window > now, exactly
				want++
			}
		}
		if err := record(rec); err != nil {
			t.Fatal(err)
		}
		if got := countOf(rec, bound(now, window)); got != want {
			t.Fatalf("countOf(%x, bound(%d, %d)) = %d, want %d", rec, now, window, got, want)
		}
	})
}

// TestPartitionIsFNV1aModN checks that a key's partition is the documented
// one: hash/fnv's 64-bit FNV-1a of its bytes modulo Partitions (0 counts
// as 1), over keys of any bytes.
func TestPartitionIsFNV1aModN(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key := string(rapid.SliceOf(rapid.Byte()).Draw(t, "key"))
		parts := rapid.IntRange(0, 1000).Draw(t, "partitions")
		s, err := newStore(Config{Client: noClient{}, Namespace: "n", Partitions: parts, StampsPerKey: 5, TTL: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		h := fnv.New64a()
		h.Write([]byte(key))
		want := int(h.Sum64() % uint64(max(parts, 1)))
		if got := s.Partition(key); got != want {
			t.Fatalf("Partition(%q) over %d = %d, want %d", key, parts, got, want)
		}
		if got, want := s.hash(key), fmt.Sprintf("thr:{n:%d}", want); got != want {
			t.Fatalf("hash(%q) = %q, want %q", key, got, want)
		}
	})
}

// TestRecordRefusesBadShapes checks that record names a value that is not
// 8 + 8n bytes.
func TestRecordRefusesBadShapes(t *testing.T) {
	for _, n := range []int{0, 1, 7, 9, 15, 17} {
		if err := record(string(make([]byte, n))); err == nil {
			t.Errorf("record of %d bytes = nil, want an error", n)
		}
	}
	for _, n := range []int{8, 16, 48} {
		if err := record(string(make([]byte, n))); err != nil {
			t.Errorf("record of %d bytes = %v, want nil", n, err)
		}
	}
}
