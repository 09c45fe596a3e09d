package httplimit_test

import (
	"net/http"
	"net/netip"
	"testing"

	"pgregory.net/rapid"

	"github.com/limcheck/limcheck/impl/httplimit"
)

// addrish draws strings near the address grammar: digits, hex, separators,
// brackets, quotes, zones, spaces and a few raw bytes.
func addrish() *rapid.Generator[string] {
	return rapid.StringOfN(rapid.SampledFrom([]rune("0123456789abcdefABCDEF:.[]%,;=\" \tfor_\x00\u00ff")), 0, 48, -1)
}

// Well-formed header lines that the property mixes in.
var (
	validXFF = []string{"1.2.3.4", "1.2.3.4, 10.0.0.1", "::ffff:1.2.3.4", "[2001:db8::1]:80", "unknown"}
	validFwd = []string{"for=1.2.3.4", `for="[2001:DB8::1]:80";proto=https`, "for=1.2.3.4, for=unknown", `for="_x"`}
)

// TestPropKeyIsCanonical checks, for arbitrary RemoteAddr and proxy header
// text from a trusted peer, that the key is InvalidKey or a canonical
// address or prefix: parsing and printing it again gives it back, so no
// request byte reaches the key unparsed, and nothing panics.
func TestPropKeyIsCanonical(t *testing.T) {
	g := newGate(t, 1, 1, 1, 1, 1)
	xff := newLimiter(t, g, httplimit.WithTrustedProxies(httplimit.XForwardedFor, prefixes("0.0.0.0/0", "::/0")...))
	fwd := newLimiter(t, g, httplimit.WithTrustedProxies(httplimit.Forwarded, prefixes("0.0.0.0/0", "::/0")...), httplimit.WithIPv6Prefix(128))
	rapid.Check(t, func(t *rapid.T) {
		remote := rapid.OneOf(addrish(), rapid.SampledFrom([]string{"10.0.0.1:1", "[::1]:2", "[::ffff:1.2.3.4]:3"})).Draw(t, "remote")
		header := http.Header{
			"X-Forwarded-For": rapid.SliceOfN(rapid.OneOf(addrish(), rapid.SampledFrom(validXFF)), 0, 3).Draw(t, "xff"),
			"Forwarded":       rapid.SliceOfN(rapid.OneOf(addrish(), rapid.SampledFrom(validFwd)), 0, 3).Draw(t, "forwarded"),
		}
		for _, l := range []*httplimit.Limiter{xff, fwd} {
			key, ok := l.ClientKey(get(remote, header))
			if !canonicalKey(key) || ok != (key != httplimit.InvalidKey) {
				t.Fatalf("ClientKey(%q, %q) = %q, %v: not InvalidKey nor canonical", remote, header, key, ok)
			}
		}
	})
}

// canonicalKey reports whether key is InvalidKey, a canonical unzoned
// unmapped address, or a canonical masked prefix.
func canonicalKey(key string) bool {
	if key == httplimit.InvalidKey {
		return true
	}
	if a, err := netip.ParseAddr(key); err == nil {
		return a.String() == key && a.Zone() == "" && !a.Is4In6()
	}
	p, err := netip.ParsePrefix(key)
	return err == nil && p.Masked() == p && p.String() == key
}
