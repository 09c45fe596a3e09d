package lim_test

import (
	"strings"
	"testing"

	"github.com/limcheck/limcheck/model/lim"
)

func TestIPKey(t *testing.T) {
	tests := []struct {
		clause, reason string
		ip             string
		want           int64
	}{
		{clause: "LIM-16", reason: "the empty string has key 0", ip: "", want: 0},
		{clause: "LIM-16", reason: "one byte: 'a' = 97", ip: "a", want: 97},
		{clause: "LIM-16", reason: "two bytes: 97*131 + 98", ip: "ab", want: 12805},
		{clause: "LIM-16", reason: "a NUL byte counts as 0", ip: "\x00", want: 0},
		{clause: "LIM-16", reason: "a leading NUL does not change the key", ip: "\x00a", want: 97},
		{clause: "LIM-16", reason: "IPv4 loopback", ip: "127.0.0.1", want: 2622483542},
		{clause: "LIM-16", reason: "non-ASCII: the UTF-8 bytes C3 A9 of é, not the code point", ip: "é", want: 25714},
		{clause: "LIM-16", reason: "non-ASCII: six UTF-8 bytes of 日本", ip: "日本", want: 1774914338},
		{clause: "LIM-16", reason: "invalid UTF-8: raw bytes 255*131 + 254", ip: "\xff\xfe", want: 33659},
		{clause: "LIM-16", reason: "five 0xFF bytes: reduced mod 4294967291 along the way", ip: "\xff\xff\xff\xff\xff", want: 2660708828},
		{clause: "LIM-16", reason: "IPv6 with a zone", ip: "fe80::1%eth0", want: 1550612332},
		{clause: "LIM-16", reason: "IPv6 documentation address", ip: "2001:db8::1", want: 2241794929},
		{clause: "LIM-1", reason: "a 15000-byte string: h*131 + c never overflows", ip: strings.Repeat("255.255.255.255", 1000), want: 3497416630},
	}
	for i, tt := range tests {
		checkRow(t, i, tt.clause, tt.reason)
		ip := tt.ip
		if len(ip) > 40 {
			ip = ip[:40] + "..."
		}
		if got := lim.IPKey(tt.ip); got != tt.want {
			t.Errorf("%s (%s): IPKey(%q) = %d, want %d", tt.clause, tt.reason, ip, got, tt.want)
		}
	}
}

func TestKeyConstants(t *testing.T) {
	tests := []struct {
		clause, reason string
		name           string
		got, want      int64
	}{
		{clause: "LIM-16", reason: "the modulus is 2^32 - 5", name: "KeyPrime", got: lim.KeyPrime, want: 1<<32 - 5},
		{clause: "LIM-16", reason: "the multiplier is 131", name: "KeyMul", got: lim.KeyMul, want: 131},
	}
	for i, tt := range tests {
		checkRow(t, i, tt.clause, tt.reason)
		if tt.got != tt.want {
			t.Errorf("%s (%s): %s = %d, want %d", tt.clause, tt.reason, tt.name, tt.got, tt.want)
		}
	}
}
