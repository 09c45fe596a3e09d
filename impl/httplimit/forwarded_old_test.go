package httplimit

import (
	"net/http"
	"net/netip"
	"strings"
)

// The proxy header parser as it was before the walk from the right
// (commit 39c6e42): it splits every line of the header into a list of hops,
// checking all of a Forwarded header's grammar, then walks the list from
// the right. It is kept, verbatim but for names, as the reference that
// TestPropWalkMatchesOldParser compares the walk with on short headers.

// oldFromHeader is the old fromHeader.
func (k *keyer) oldFromHeader(h http.Header) (netip.Addr, bool) {
	var buf [8]string
	var hops []string
	var ok bool
	switch k.header {
	case XForwardedFor:
		hops, ok = oldXFFHops(buf[:0], h.Values("X-Forwarded-For"))
	case Forwarded:
		hops, ok = oldForwardedHops(buf[:0], h.Values("Forwarded"))
	}
	if !ok {
		return netip.Addr{}, false
	}
	return k.oldPick(hops)
}

// oldPick is the old pick.
func (k *keyer) oldPick(hops []string) (netip.Addr, bool) {
	var origin netip.Addr
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHost(hops[i])
		if !ok {
			return netip.Addr{}, false
		}
		if !k.isTrusted(a) {
			return a, true
		}
		origin = a
	}
	return origin, origin.IsValid()
}

// oldXFFHops is the old xffHops.
func oldXFFHops(dst []string, lines []string) ([]string, bool) {
	for _, line := range lines {
		for item := range strings.SplitSeq(line, ",") {
			if item = strings.Trim(item, " \t"); item != "" {
				dst = append(dst, item)
			}
		}
	}
	return dst, len(dst) > 0
}

// oldForwardedHops is the old forwardedHops.
func oldForwardedHops(dst []string, lines []string) ([]string, bool) {
	for _, line := range lines {
		var ok bool
		if dst, ok = oldForwardedLine(dst, line); !ok {
			return dst, false
		}
	}
	return dst, len(dst) > 0
}

// oldForwardedLine is the old forwardedLine.
func oldForwardedLine(dst []string, s string) ([]string, bool) {
	var e element
	i := skipOWS(s, 0)
	for {
		var ok bool
		if i, ok = e.pair(s, i); !ok {
			return dst, false
		}
		if i == len(s) || s[i] == ',' {
			if e.nonEmpty {
				dst = append(dst, e.forValue)
			}
			e = element{}
		}
		if i == len(s) {
			return dst, true
		}
		i = skipOWS(s, i+1)
	}
}
