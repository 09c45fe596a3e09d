package lim

import (
	"math/big"
	"testing"

	"pgregory.net/rapid"
)

// naiveKey is lim_ip_key as the seed writes it: one reduction per byte.
func naiveKey(ip string) int64 {
	var h int64
	for i := 0; i < len(ip); i++ {
		h = (h*KeyMul + int64(ip[i])) % KeyPrime
	}
	return h
}

// TestIPKeyKnownValues checks IPKey on values spec.md states (FIND-2, FIND-3)
// and on every length around the 8-byte chunk boundaries.
func TestIPKeyKnownValues(t *testing.T) {
	tests := []struct {
		ip     string
		want   int64
		reason string
	}{
		{"", 0, "the empty string has key 0"},
		{"a", 97, "one byte is its value"},
		{"10.17.102.130", 2422100051, "FIND-2 pair, 13 bytes: head of 5 then one chunk"},
		{"10.23.191.7", 2422100051, "FIND-2 pair, 11 bytes: head of 3 then one chunk"},
		{"::1", 1002985, "FIND-3, 3 bytes: padded chunk"},
		{"0:0:0:0:0:0:0:1", 2269459780, "FIND-3, 15 bytes"},
		{"\xff\xff\xff\xff\xff\xff\xff\xff", naiveKey("\xff\xff\xff\xff\xff\xff\xff\xff"), "all-ones chunk: the lane bounds at their largest"},
	}
	for _, tt := range tests {
		if tt.reason == "" {
			t.Fatalf("row %q has no reason", tt.ip)
		}
		if got := IPKey(tt.ip); got != tt.want {
			t.Errorf("IPKey(%q) = %d, want %d (%s)", tt.ip, got, tt.want, tt.reason)
		}
	}
}

// TestIPKeyEveryLength compares IPKey and IPKeyBytes with the per-byte
// definition for every length 0..80 over all-0xff bytes, the largest lane
// values.
func TestIPKeyEveryLength(t *testing.T) {
	buf := make([]byte, 80)
	for i := range buf {
		buf[i] = 0xff
	}
	for n := 0; n <= len(buf); n++ {
		s := string(buf[:n])
		if got, want := IPKey(s), naiveKey(s); got != want {
			t.Errorf("IPKey(%d x 0xff) = %d, want %d", n, got, want)
		}
		if got, want := IPKeyBytes(buf[:n]), naiveKey(s); got != want {
			t.Errorf("IPKeyBytes(%d x 0xff) = %d, want %d", n, got, want)
		}
	}
}

// TestReduceMatchesModulo checks reduce(x) = x mod (2^32 - 5) at the edges.
func TestReduceMatchesModulo(t *testing.T) {
	for _, x := range []uint64{0, 1, prime - 1, prime, prime + 1, 1<<32 - 1, 1 << 32, 6<<32 - 1, 1<<64 - 1, 1<<63 + 12345} {
		want := new(big.Int).Mod(new(big.Int).SetUint64(x), big.NewInt(KeyPrime)).Uint64()
		if got := reduce(x); got != want {
			t.Errorf("reduce(%d) = %d, want %d", x, got, want)
		}
	}
}

// TestPropIPKeyEqualsPerByteDefinition checks that the chunked IPKey, and
// IPKeyBytes, equal the seed's per-byte definition for any byte string.
func TestPropIPKeyEqualsPerByteDefinition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := rapid.SliceOfN(rapid.Byte(), 0, 100).Draw(t, "ip")
		s := string(b)
		if got, want := IPKey(s), naiveKey(s); got != want {
			t.Fatalf("IPKey(%q) = %d, want %d", s, got, want)
		}
		if got, want := IPKeyBytes(b), naiveKey(s); got != want {
			t.Fatalf("IPKeyBytes(%q) = %d, want %d", b, got, want)
		}
	})
}
