package httplimit

import (
	"net/http"
	"net/netip"
	"strings"
)

// InvalidKey is the key of every request whose client address does not
// parse. It is not an address, so no client can reach its bucket by another
// route; requests carrying garbage share it instead of getting a bucket per
// spelling.
const InvalidKey = "invalid"

// maxKeyLen bounds a key: an IPv6 address is at most 39 bytes once
// canonical (no zone, no mapped IPv4), a prefix at most 43.
const maxKeyLen = 48

// keyer turns a request into its client key. Immutable after New.
type keyer struct {
	header  ProxyHeader
	trusted []netip.Prefix // canonical: unmapped, masked; nil trusts no one
	v6bits  int
}

// newKeyer returns the keyer of checked settings.
func newKeyer(s *settings) keyer {
	k := keyer{header: s.header, v6bits: s.v6bits}
	for _, p := range s.trusted {
		k.trusted = append(k.trusted, canonicalPrefix(p))
	}
	return k
}

// canonicalPrefix is p without zone, IPv4-mapped prefixes as IPv4, masked.
func canonicalPrefix(p netip.Prefix) netip.Prefix {
	a, bits := p.Addr().WithZone(""), p.Bits()
	if a.Is4In6() && bits >= 96 {
		a, bits = a.Unmap(), bits-96
	}
	return netip.PrefixFrom(a, bits).Masked()
}

// appendKey appends r's client key to dst and reports whether the address
// parsed; when it did not, it appends InvalidKey.
func (k *keyer) appendKey(dst []byte, r *http.Request) ([]byte, bool) {
	a, ok := k.client(r)
	return k.appendKeyOf(dst, a, ok), ok
}

// client is the address r is keyed by: clientAddr, an IPv6 form of an IPv4
// host as that host; false when the address does not parse.
func (k *keyer) client(r *http.Request) (netip.Addr, bool) {
	a, ok := k.clientAddr(r)
	return embeddedIPv4(a), ok
}

// appendKeyOf appends the key of a, an address from client, to dst: the
// address, or its /v6bits prefix for IPv6; InvalidKey when !ok.
func (k *keyer) appendKeyOf(dst []byte, a netip.Addr, ok bool) []byte {
	switch {
	case !ok:
		return append(dst, InvalidKey...)
	case a.Is6() && k.v6bits < 128:
		return netip.PrefixFrom(a, k.v6bits).Masked().AppendTo(dst)
	}
	return a.AppendTo(dst)
}

// clientAddr is the canonical client address of r: the peer, or, when the
// peer is a trusted proxy, the address its header names.
func (k *keyer) clientAddr(r *http.Request) (netip.Addr, bool) {
	peer, ok := parseHost(r.RemoteAddr)
	if !ok || !k.isTrusted(peer) {
		return peer, ok
	}
	if a, ok := k.fromHeader(r.Header); ok {
		return a, true
	}
	return peer, true // no header, or a malformed one: the proxy itself
}

// nat64 is the NAT64 well-known prefix (RFC 6052): 64:ff9b::a.b.c.d is the
// IPv4 host a.b.c.d seen through a translator.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// embeddedIPv4 returns the IPv4 address that a stands for when a is an IPv6
// form of one host of the IPv4 internet: the NAT64 well-known prefix
// 64:ff9b::/96, or the deprecated IPv4-compatible form ::a.b.c.d (RFC 4291
// section 2.5.5.1; :: and ::1 excepted, which are not). Any other a is
// returned as it is. Keyed by their /64, every such client of the IPv4
// internet would share one bucket.
func embeddedIPv4(a netip.Addr) netip.Addr {
	if !a.Is6() {
		return a
	}
	b := a.As16()
	switch {
	case nat64.Contains(a):
	case [12]byte(b[:12]) == [12]byte{} && a.Compare(netip.IPv6Loopback()) > 0:
	default:
		return a
	}
	return netip.AddrFrom4([4]byte(b[12:]))
}

// isTrusted reports whether the canonical address a is a trusted proxy.
func (k *keyer) isTrusted(a netip.Addr) bool {
	for _, p := range k.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseHost parses "host:port", a bare address or a bracketed "[v6]" and
// returns the address canonicalised: IPv4-mapped IPv6 as IPv4, zone dropped
// (spec FIND-3, spec FIND-12). The form is chosen by shape, so that no valid
// input pays for a parse error (netip's errors are heap values); text that
// mayBeAddr rules out pays for none either.
func parseHost(s string) (netip.Addr, bool) {
	if !mayBeAddr(s) {
		return netip.Addr{}, false
	}
	var a netip.Addr
	var err error
	switch {
	case len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']':
		a, err = netip.ParseAddr(s[1 : len(s)-1])
	case s != "" && s[0] == '[', strings.Count(s, ":") == 1:
		var ap netip.AddrPort
		ap, err = netip.ParseAddrPort(s)
		a = ap.Addr()
	default:
		a, err = netip.ParseAddr(s)
	}
	return canonical(a), err == nil
}

// canonical is a with IPv4-mapped IPv6 unmapped and the zone dropped.
func canonical(a netip.Addr) netip.Addr { return a.Unmap().WithZone("") }

// mayBeAddr reports whether s could be an address in a form parseHost takes:
// it is not empty, and up to a zone's '%' it holds only hex digits, '.', ':',
// '[' and ']'. False is certain (netip rejects s); true leaves it to netip.
// It spares the common non-addresses (a Unix socket's "@" or "", a proxy's
// "unknown" or "_hidden") netip's error, one allocation a request; text of
// only those bytes that still does not parse ("1.2.3") still pays it.
func mayBeAddr(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			return true // a zone: any bytes may follow
		case !isAddrByte(c):
			return false
		}
	}
	return s != ""
}

// isAddrByte reports whether c may appear in an address, port or brackets.
func isAddrByte(c byte) bool {
	switch {
	case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		return true
	}
	return c == '.' || c == ':' || c == '[' || c == ']'
}
