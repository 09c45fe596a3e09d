package gate_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/model/gate"
)

// TestSipHash checks GATE-18's hash: the check value of spec.md (the
// reference's 8-byte test message under the key 00 01 .. 0f), the worked
// example's hash, and hashes that an independent transcription of the
// reference algorithm gives.
func TestSipHash(t *testing.T) {
	tests := []struct {
		clause, reason string
		seed           gate.Seed
		m              uint64
		want           uint64
	}{
		{"GATE-18", "the check value: bytes 00..07 under seed 00..0f", checkSeed, 0x0706050403020100, 0x93f5f5799a932462},
		{"GATE-18", "the worked example: key 97 under the zero seed", gate.Seed{}, 97, 9317687229460025665},
		{"GATE-18", "key 0 is hashed, not passed through", gate.Seed{}, 0, hEmpty},
		{"GATE-18", "the largest key, p - 1, under the zero seed", gate.Seed{}, 4294967290, 5927519281432453566},
		{"GATE-18", "key 97 under the check seed", checkSeed, 97, 8553754279435235421},
		{"GATE-18", "k0 is bytes 0..7 little-endian: a seed with only byte 0 set", gate.Seed{0: 1}, 97, 7566282368357088391},
		{"GATE-18", "k1 is bytes 8..15 little-endian: a seed with only byte 15 set", gate.Seed{15: 0x80}, 97, 6473557674195774279},
		{"GATE-18", "every message bit counts: 2^64-1", checkSeed, math.MaxUint64, 3055972931543358004},
	}
	for _, tt := range tests {
		t.Run(tt.clause+" "+tt.reason, func(t *testing.T) {
			checkLabel(t, tt.clause, tt.reason)
			if got := gate.SipHash(tt.seed, tt.m); got != tt.want {
				t.Errorf("SipHash(%s, %#x) = %d (%#x), want %d (%#x)", tt.seed, tt.m, got, got, tt.want, tt.want)
			}
		})
	}
}

// TestSeedText checks the seed's text form (GATE-18, VEC-9): 32 lowercase hex
// digits, the bytes in order; reading takes either case, and an error names
// what was wrong and leaves the seed unchanged.
func TestSeedText(t *testing.T) {
	tests := []struct {
		clause, reason string
		text           string
		want           gate.Seed
		names          []string // substrings the error names; nil: no error
	}{
		{"GATE-18", "the zero seed", strings.Repeat("0", 32), gate.Seed{}, nil},
		{"GATE-18", "the check seed: bytes in order", "000102030405060708090a0b0c0d0e0f", checkSeed, nil},
		{"GATE-18", "upper case reads as lower", "000102030405060708090A0B0C0D0E0F", checkSeed, nil},
		{"GATE-18", "every byte ff", strings.Repeat("f", 32), gate.Seed{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, nil},
		{"GATE-18", "empty", "", gate.Seed{}, []string{"gate: seed", "0 characters", "32 hex digits"}},
		{"GATE-18", "31 digits", strings.Repeat("0", 31), gate.Seed{}, []string{"31 characters"}},
		{"GATE-18", "33 digits", strings.Repeat("0", 33), gate.Seed{}, []string{"33 characters"}},
		{"GATE-18", "64 digits: a 32-byte key is not a seed", strings.Repeat("0", 64), gate.Seed{}, []string{"64 characters"}},
		{"GATE-18", "a non-hex letter", "000102030405060708090a0b0c0d0e0g", gate.Seed{}, []string{"character 31", "'g'", "not a hex digit"}},
		{"GATE-18", "a 0x prefix", "0x0102030405060708090a0b0c0d0e0f", gate.Seed{}, []string{"character 1", "'x'"}},
		{"GATE-18", "a space", "00010203 405060708090a0b0c0d0e0f", gate.Seed{}, []string{"character 8", "' '"}},
		{"GATE-18", "a multi-byte character counts its bytes", "é" + strings.Repeat("0", 30), gate.Seed{}, []string{"character 0", "not a hex digit"}},
	}
	for _, tt := range tests {
		t.Run(tt.clause+" "+tt.reason, func(t *testing.T) {
			checkLabel(t, tt.clause, tt.reason)
			got := gate.Seed{7: 7} // an error leaves it unchanged
			err := got.UnmarshalText([]byte(tt.text))
			if tt.names == nil {
				if err != nil || got != tt.want {
					t.Fatalf("UnmarshalText(%q) = %v, seed %s; want %s", tt.text, err, got, tt.want)
				}
				back, err := got.MarshalText()
				if want := strings.ToLower(tt.text); err != nil || string(back) != want || got.String() != want {
					t.Errorf("MarshalText() of %s = %q, %v, String() %q; want %q", got, back, err, got.String(), want)
				}
				return
			}
			if err == nil {
				t.Fatalf("UnmarshalText(%q) = nil, seed %s; want an error", tt.text, got)
			}
			if got != (gate.Seed{7: 7}) {
				t.Errorf("UnmarshalText(%q) failed but changed the seed to %s", tt.text, got)
			}
			for _, name := range tt.names {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("UnmarshalText(%q) error %q does not name %q", tt.text, err, name)
				}
			}
		})
	}
}

// TestConfigJSONSeed checks that a gate config carries its seed as VEC-9's
// "seed" string (GATE-1, GATE-18) both ways, and that a bad one is an error.
func TestConfigJSONSeed(t *testing.T) {
	c := cfgW(2, 1, 10, 2, 64, 4, 100_000_000)
	c.Seed = checkSeed
	b, err := json.Marshal(c)
	if err != nil || !strings.Contains(string(b), `"seed":"000102030405060708090a0b0c0d0e0f"`) {
		t.Fatalf("json.Marshal(%+v) = %s, %v; want a seed of 32 lowercase hex digits", c, b, err)
	}
	var back gate.Config
	if err := json.Unmarshal(b, &back); err != nil || back != c {
		t.Fatalf("json.Unmarshal(%s) = %+v, %v; want %+v", b, back, err, c)
	}
	bad := strings.Replace(string(b), "0f\"", "0\"", 1)
	if err := json.Unmarshal([]byte(bad), &back); err == nil || !strings.Contains(err.Error(), "31 characters") {
		t.Errorf("json.Unmarshal(%s) = %v, want an error naming 31 characters", bad, err)
	}
	if _, err := gate.New(c); err != nil {
		t.Errorf("New(%+v) = %v: GATE-1 takes every 16-byte seed", c, err)
	}
}
