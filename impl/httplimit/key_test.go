package httplimit_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/impl/httplimit"
)

// TestClientKeyRemoteAddr keys r.RemoteAddr without any proxy header.
func TestClientKeyRemoteAddr(t *testing.T) {
	per := httplimit.WithIPv6Prefix(128)
	tests := []struct {
		remote string
		opts   []httplimit.Option
		want   string
		wantOK bool
		reason string
	}{
		{"192.0.2.1:1234", nil, "192.0.2.1", true, "IPv4 host:port"},
		{"192.0.2.1", nil, "192.0.2.1", true, "a bare IPv4 address"},
		{"[2001:db8::1]:443", nil, "2001:db8::/64", true, "IPv6 keys by its /64 by default"},
		{"[2001:db8:0:0:ffff::1]:443", nil, "2001:db8::/64", true, "another address of the same /64"},
		{"[2001:db8::1]:443", []httplimit.Option{per}, "2001:db8::1", true, "/128 keys the address"},
		{"[2001:0DB8:0000::0001]:1", []httplimit.Option{per}, "2001:db8::1", true, "IPv6 spellings collapse (FIND-3)"},
		{"[0:0:0:0:0:0:0:1]:1", []httplimit.Option{per}, "::1", true, "FIND-3's pair: the long form of ::1"},
		{"[fe80::1%eth0]:80", []httplimit.Option{per}, "fe80::1", true, "the zone is dropped"},
		{"[fe80::1%eth0]:80", nil, "fe80::/64", true, "a zoned address under the /64 default"},
		{"[::ffff:10.0.0.1]:80", nil, "10.0.0.1", true, "IPv4-mapped IPv6 is its IPv4 (FIND-3)"},
		{"::ffff:10.0.0.1", nil, "10.0.0.1", true, "a bare IPv4-mapped address"},
		{"2001:db8::7", []httplimit.Option{per}, "2001:db8::7", true, "a bare IPv6 address"},
		{"[::1]", []httplimit.Option{per}, "::1", true, "a bracketed address without port"},
		{"[2001:db8::1]:443", []httplimit.Option{httplimit.WithIPv6Prefix(48)}, "2001:db8::/48", true, "a /48 prefix"},
		{"", nil, httplimit.InvalidKey, false, "empty RemoteAddr"},
		{"garbage", nil, httplimit.InvalidKey, false, "not an address"},
		{"@", nil, httplimit.InvalidKey, false, "a Unix socket peer"},
		{"10.0.0.1:", nil, httplimit.InvalidKey, false, "an empty port"},
		{"10.0.0.1:99999", nil, httplimit.InvalidKey, false, "a port out of range"},
		{"10.0.0.256:80", nil, httplimit.InvalidKey, false, "an octet out of range"},
		{"\x0010.0.0.1:80", nil, httplimit.InvalidKey, false, "a leading NUL, FIND-12's twin maker"},
		{"010.0.0.1:80", nil, httplimit.InvalidKey, false, "a leading zero octet (ambiguous octal)"},
		{"[::1", nil, httplimit.InvalidKey, false, "an unclosed bracket"},
		{"[[::1]]", nil, httplimit.InvalidKey, false, "doubled brackets"},
		{"10.0.0.1%eth0", nil, httplimit.InvalidKey, false, "a zone on IPv4"},
	}
	for _, tt := range tests {
		if tt.reason == "" {
			t.Fatalf("row %q has no reason", tt.remote)
		}
		l := newLimiter(t, newGate(t, 1, 1, 1, 1, 1), tt.opts...)
		got, gotOK := l.ClientKey(get(tt.remote, nil))
		if got != tt.want || gotOK != tt.wantOK {
			t.Errorf("ClientKey(RemoteAddr %q) = %q, %v; want %q, %v (%s)", tt.remote, got, gotOK, tt.want, tt.wantOK, tt.reason)
		}
	}
}

// proxyRow is one row of TestClientKeyProxyHeaders.
type proxyRow struct {
	opts   []httplimit.Option
	remote string
	header http.Header
	want   string
	reason string
}

// TestClientKeyProxyHeaders checks that proxy headers are read only from
// trusted peers, only the configured one, walked from the right.
func TestClientKeyProxyHeaders(t *testing.T) {
	xff := httplimit.WithTrustedProxies(httplimit.XForwardedFor, prefixes("10.0.0.0/8")...)
	fwd := httplimit.WithTrustedProxies(httplimit.Forwarded, prefixes("10.0.0.0/8", "fe80::/10")...)
	per := httplimit.WithIPv6Prefix(128)
	x := func(lines ...string) http.Header { return http.Header{"X-Forwarded-For": lines} }
	f := func(lines ...string) http.Header { return http.Header{"Forwarded": lines} }
	const peer = "10.0.0.1:5000"
	tests := []proxyRow{
		{nil, peer, x("1.2.3.4"), "10.0.0.1", "XFF ignored without trusted proxies"},
		{nil, peer, f("for=1.2.3.4"), "10.0.0.1", "Forwarded ignored without trusted proxies"},
		{[]httplimit.Option{xff}, peer, x("1.2.3.4"), "1.2.3.4", "XFF from a trusted peer"},
		{[]httplimit.Option{xff}, "192.0.2.9:1", x("1.2.3.4"), "192.0.2.9", "XFF from an untrusted peer is ignored"},
		{[]httplimit.Option{xff}, peer, x("6.6.6.6, 1.2.3.4"), "1.2.3.4", "spoof: the client's own entry is left of the proxy's"},
		{[]httplimit.Option{xff}, peer, x("10.0.0.9, 1.2.3.4"), "1.2.3.4", "spoof: a client claiming a trusted address"},
		{[]httplimit.Option{xff}, peer, x("1.2.3.4, 10.0.0.2, 10.0.0.3"), "1.2.3.4", "a chain of trusted proxies is skipped"},
		{[]httplimit.Option{xff}, peer, x("6.6.6.6", "1.2.3.4"), "1.2.3.4", "several lines are one list, in order"},
		{[]httplimit.Option{xff}, peer, x("10.0.0.5"), "10.0.0.5", "every hop trusted: the leftmost"},
		{[]httplimit.Option{xff}, peer, x("unknown"), "10.0.0.1", "malformed: falls back to the peer"},
		{[]httplimit.Option{xff}, peer, x("1.2.3.4, garbage"), "10.0.0.1", "a malformed rightmost entry: the peer"},
		{[]httplimit.Option{xff}, peer, x("garbage, 1.2.3.4"), "1.2.3.4", "garbage left of the client is never reached"},
		{[]httplimit.Option{xff}, peer, x(""), "10.0.0.1", "an empty header: the peer"},
		{[]httplimit.Option{xff}, peer, x(" , ,1.2.3.4,"), "1.2.3.4", "empty list elements are skipped"},
		{[]httplimit.Option{xff}, peer, x("1.2.3.4:5678"), "1.2.3.4", "an entry with a port"},
		{[]httplimit.Option{xff}, peer, x("::ffff:1.2.3.4"), "1.2.3.4", "a mapped entry is canonicalised"},
		{[]httplimit.Option{xff}, peer, x("[2001:db8::1]:80"), "2001:db8::/64", "a bracketed IPv6 entry, keyed by /64"},
		{[]httplimit.Option{xff, per}, peer, x("2001:DB8:0::1"), "2001:db8::1", "an IPv6 entry's spelling collapses"},
		{[]httplimit.Option{xff}, peer, x("1.2.3.4\x00"), "10.0.0.1", "a NUL byte makes the entry malformed"},
		{[]httplimit.Option{xff}, peer, f("for=1.2.3.4"), "10.0.0.1", "trusting XFF never reads Forwarded"},
		{[]httplimit.Option{xff}, "[::ffff:10.0.0.1]:80", x("1.2.3.4"), "1.2.3.4", "a mapped peer matches an IPv4 prefix"},
		{[]httplimit.Option{httplimit.WithTrustedProxies(httplimit.XForwardedFor, prefixes("::ffff:10.0.0.0/104")...)}, peer, x("1.2.3.4"), "1.2.3.4", "a mapped prefix matches an IPv4 peer"},
		{[]httplimit.Option{fwd}, peer, f("for=192.0.2.60;proto=http;by=203.0.113.43"), "192.0.2.60", "RFC 7239 example"},
		{[]httplimit.Option{fwd, per}, peer, f(`for="[2001:db8:cafe::17]:4711"`), "2001:db8:cafe::17", "quoted bracketed IPv6 with port"},
		{[]httplimit.Option{fwd, per}, peer, f(`for="[2001:db8:cafe::17]"`), "2001:db8:cafe::17", "quoted bracketed IPv6 without port"},
		{[]httplimit.Option{fwd}, peer, f(`for="192.0.2.43:47011"`), "192.0.2.43", "quoted IPv4 with port"},
		{[]httplimit.Option{fwd}, peer, f(`For=192.0.2.43`), "192.0.2.43", "parameter names are case-insensitive"},
		{[]httplimit.Option{fwd}, peer, f("for=192.0.2.43, for=198.51.100.17"), "198.51.100.17", "the rightmost element"},
		{[]httplimit.Option{fwd}, peer, f("for=6.6.6.6", "for=1.2.3.4;by=10.0.0.1"), "1.2.3.4", "spoof over two lines"},
		{[]httplimit.Option{fwd}, peer, f(` for=1.2.3.4 , ,for=5.6.7.8 `), "5.6.7.8", "whitespace and empty elements"},
		{[]httplimit.Option{fwd}, peer, f(`by="a,b;c";for=5.6.7.8`), "5.6.7.8", "separators inside a quoted value"},
		{[]httplimit.Option{fwd}, peer, f("for=unknown"), "10.0.0.1", "for=unknown: the peer"},
		{[]httplimit.Option{fwd}, peer, f(`for="_gazonk"`), "10.0.0.1", "an obfuscated identifier: the peer"},
		{[]httplimit.Option{fwd}, peer, f(`for="[2001:db8::1`), "10.0.0.1", "an unterminated quote: the peer"},
		{[]httplimit.Option{fwd}, peer, f("for=1.2.3.4;for=5.6.7.8"), "10.0.0.1", "two for= in one element: the peer"},
		{[]httplimit.Option{fwd}, peer, f("proto=https"), "10.0.0.1", "an element without for=: the peer"},
		{[]httplimit.Option{fwd}, peer, f("for=1.2.3.4 junk"), "10.0.0.1", "junk after a pair: the peer"},
		{[]httplimit.Option{fwd}, peer, f("for="), "10.0.0.1", "an empty value: the peer"},
		{[]httplimit.Option{fwd}, peer, f(`for="1.2.3.4\"`), "10.0.0.1", "an escaped closing quote leaves the string open"},
		{[]httplimit.Option{fwd}, peer, x("1.2.3.4"), "10.0.0.1", "trusting Forwarded never reads XFF"},
		{[]httplimit.Option{fwd}, "[fe80::1%eth0]:80", f("for=1.2.3.4"), "1.2.3.4", "a zoned peer matches its prefix"},
	}
	for _, tt := range tests {
		checkProxyRow(t, tt)
	}
}

// checkProxyRow runs one row of TestClientKeyProxyHeaders.
func checkProxyRow(t *testing.T, tt proxyRow) {
	t.Helper()
	if tt.reason == "" {
		t.Fatalf("row %v has no reason", tt.header)
	}
	l := newLimiter(t, newGate(t, 1, 1, 1, 1, 1), tt.opts...)
	if got, _ := l.ClientKey(get(tt.remote, tt.header)); got != tt.want {
		t.Errorf("ClientKey(%q, %q) = %q, want %q (%s)", tt.remote, tt.header, got, tt.want, tt.reason)
	}
}

// TestCanonicalSpellingsShareBucket checks through the gate that one
// client's spellings spend one bucket (cap 1, no refill at a fixed tick).
func TestCanonicalSpellingsShareBucket(t *testing.T) {
	tests := []struct {
		first, second string
		opts          []httplimit.Option
		shared        bool
		reason        string
	}{
		{"10.0.0.1:1", "[::ffff:10.0.0.1]:2", nil, true, "mapped and plain IPv4"},
		{"[2001:db8::1]:1", "[2001:0db8:0000::0001]:2", []httplimit.Option{httplimit.WithIPv6Prefix(128)}, true, "two IPv6 spellings"},
		{"[2001:db8::1]:1", "[2001:db8::2]:2", nil, true, "one /64 under the default"},
		{"[2001:db8::1]:1", "[2001:db8:0:1::1]:2", nil, false, "different /64s"},
		{"garbage", "other garbage", nil, true, "every invalid address shares InvalidKey"},
		{"10.0.0.1:1", "10.0.0.2:1", nil, false, "two IPv4 clients"},
		{"[64:ff9b::c000:201]:1", "[64:ff9b::c000:202]:1", nil, false, "two IPv4 hosts behind a NAT64 translator (not one /64)"},
		{"[64:ff9b::c000:201]:1", "192.0.2.1:2", nil, true, "a NAT64 address is its IPv4 host"},
	}
	for _, tt := range tests {
		if tt.reason == "" {
			t.Fatalf("row %q has no reason", tt.first)
		}
		h := newLimiter(t, newGate(t, 1, 1, 1000, 10, tick100ms), append(tt.opts, fixedClock(0))...).Wrap(ok)
		serve(h, get(tt.first, nil))
		got := serve(h, get(tt.second, nil)).Code
		if want := map[bool]int{true: 503, false: 200}[tt.shared]; got != want {
			t.Errorf("%q after %q: status %d, want %d (%s)", tt.second, tt.first, got, want, tt.reason)
		}
	}
}

// TestNewRejectsBadConfig checks New's errors.
func TestNewRejectsBadConfig(t *testing.T) {
	g := newGate(t, 1, 1, 1, 1, 1)
	tests := []struct {
		opts   []httplimit.Option
		reason string
	}{
		{[]httplimit.Option{httplimit.WithIPv6Prefix(0)}, "prefix /0"},
		{[]httplimit.Option{httplimit.WithIPv6Prefix(129)}, "prefix /129"},
		{[]httplimit.Option{httplimit.WithTrustedProxies(httplimit.XForwardedFor)}, "no trusted proxies"},
		{[]httplimit.Option{httplimit.WithTrustedProxies(httplimit.ProxyHeader(0), prefixes("10.0.0.0/8")...)}, "no header named"},
		{[]httplimit.Option{httplimit.WithTrustedProxies(httplimit.Forwarded, netip.Prefix{})}, "the zero prefix"},
	}
	for _, tt := range tests {
		if _, err := httplimit.New(g, tt.opts...); !errors.Is(err, httplimit.ErrConfig) {
			t.Errorf("New(%s) error = %v, want ErrConfig", tt.reason, err)
		}
	}
	if _, err := httplimit.New(nil); !errors.Is(err, httplimit.ErrConfig) {
		t.Errorf("New(nil) error = %v, want ErrConfig", err)
	}
}

// TestClientKeyNAT64 checks the keys of IPv6 forms of IPv4 hosts: the NAT64
// well-known prefix 64:ff9b::/96 and the deprecated IPv4-compatible ::/96
// are keyed by the embedded IPv4 address (one key per IPv4 host, as if it
// came directly), not by a /64 that the whole IPv4 internet would share.
// Other prefixes (the local-use 64:ff9b:1::/48, whose layout depends on the
// operator's prefix length) stay IPv6. Trust is decided on the address as
// it arrived.
func TestClientKeyNAT64(t *testing.T) {
	per := httplimit.WithIPv6Prefix(128)
	xff := httplimit.WithTrustedProxies(httplimit.XForwardedFor, prefixes("10.0.0.0/8", "2001:db8:ffff::/48")...)
	tests := []struct {
		remote string
		header http.Header
		opts   []httplimit.Option
		want   string
		reason string
	}{
		{"[64:ff9b::c000:201]:443", nil, nil, "192.0.2.1", "NAT64: the embedded IPv4 address"},
		{"[64:ff9b::c633:6401]:443", nil, nil, "198.51.100.1", "another IPv4 host behind the translator"},
		{"[64:ff9b::192.0.2.1]:443", nil, []httplimit.Option{per}, "192.0.2.1", "the dotted spelling, under /128 too"},
		{"[::c000:201]:1", nil, nil, "192.0.2.1", "IPv4-compatible (deprecated) ::192.0.2.1"},
		{"[::1]:1", nil, nil, "::/64", "loopback is not an IPv4-compatible address"},
		{"[::1]:1", nil, []httplimit.Option{per}, "::1", "loopback under /128"},
		{"[::]:1", nil, nil, "::/64", "the unspecified address neither"},
		{"[64:ff9b:1::c000:201]:1", nil, nil, "64:ff9b:1::/64", "the local-use NAT64 prefix is not translated"},
		{"[64:ff9b::1:c000:201]:1", nil, nil, "64:ff9b::/64", "outside 64:ff9b::/96: IPv6"},
		{"[2001:db8:ffff::1]:1", http.Header{"X-Forwarded-For": {"64:ff9b::c000:201"}}, []httplimit.Option{xff}, "192.0.2.1", "a NAT64 client named by a trusted proxy"},
		{"[64:ff9b::a00:1]:1", http.Header{"X-Forwarded-For": {"198.51.100.9"}}, []httplimit.Option{xff}, "10.0.0.1", "a NAT64 peer embedding a trusted IPv4 is not a trusted proxy"},
	}
	for _, tt := range tests {
		if tt.reason == "" {
			t.Fatalf("row %q has no reason", tt.remote)
		}
		l := newLimiter(t, newGate(t, 1, 1, 1, 1, 1), tt.opts...)
		if got, ok := l.ClientKey(get(tt.remote, tt.header)); got != tt.want || !ok {
			t.Errorf("ClientKey(%q, %v) = %q, %v; want %q (%s)", tt.remote, tt.header, got, ok, tt.want, tt.reason)
		}
	}
}

// hops returns the X-Forwarded-For list of n hops "10.0.0.1" .. "10.0.0.n"
// (trusted in these tests), after the given leftmost entries.
func hops(n int, left ...string) string {
	list := append([]string(nil), left...)
	for i := range n {
		list = append(list, fmt.Sprintf("10.0.%d.%d", (i+1)/256, (i+1)%256))
	}
	return strings.Join(list, ", ")
}

// forwardedHops is hops as a Forwarded line.
func forwardedHops(n int, left ...string) string {
	list := strings.Split(hops(n, left...), ", ")
	for i, h := range list {
		list[i] = "for=" + h
	}
	return strings.Join(list, ", ")
}

// TestClientKeyHopCap checks MaxProxyHops: the walk inspects at most 16
// list elements from the right; past them it ends as if the header began
// there (the leftmost inspected trusted hop is the client, or the peer when
// none was an address). Before, it read every hop, the whole header.
func TestClientKeyHopCap(t *testing.T) {
	xff := httplimit.WithTrustedProxies(httplimit.XForwardedFor, prefixes("10.0.0.0/8")...)
	fwd := httplimit.WithTrustedProxies(httplimit.Forwarded, prefixes("10.0.0.0/8")...)
	x := func(line string) http.Header { return http.Header{"X-Forwarded-For": {line}} }
	f := func(line string) http.Header { return http.Header{"Forwarded": {line}} }
	const peer = "10.0.0.1:5000"
	tests := []proxyRow{
		{[]httplimit.Option{xff}, peer, x(hops(15, "198.51.100.7")), "198.51.100.7", "the client is the 16th element: inspected"},
		{[]httplimit.Option{xff}, peer, x(hops(16, "198.51.100.7")), "10.0.0.1", "the 17th is not: the 16th, a trusted hop"},
		{[]httplimit.Option{xff}, peer, x(hops(16, "garbage")), "10.0.0.1", "garbage past the cap is never read"},
		{[]httplimit.Option{xff}, peer, x(hops(40, "198.51.100.7")), "10.0.0.25", "a long chain: its 16th element from the right"},
		{[]httplimit.Option{xff}, peer, x("198.51.100.7" + strings.Repeat(",", 16)), "10.0.0.1", "16 empty elements count: no address inspected, the peer"},
		{[]httplimit.Option{xff}, peer, x("198.51.100.7" + strings.Repeat(",", 15)), "198.51.100.7", "15 empty elements, then the client"},
		{[]httplimit.Option{fwd}, peer, f(forwardedHops(15, "198.51.100.7")), "198.51.100.7", "Forwarded: the 16th element is inspected"},
		{[]httplimit.Option{fwd}, peer, f(forwardedHops(16, "198.51.100.7")), "10.0.0.1", "Forwarded: the 17th is not"},
		{[]httplimit.Option{fwd}, peer, f(forwardedHops(16, `by="unclosed`)), "10.0.0.1", "Forwarded: broken grammar past the cap is never read"},
	}
	for _, tt := range tests {
		checkProxyRow(t, tt)
	}
}
