package redisstore

import (
	"errors"
	"math"
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
		"k 0":            func(c *Config) { c.StampsPerKey = 0 },
		"k past the max": func(c *Config) { c.StampsPerKey = 1<<14 + 1 },
		"ttl below 1ms":  func(c *Config) { c.TTL = time.Microsecond },
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
