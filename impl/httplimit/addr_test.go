package httplimit

import (
	"net/netip"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestPropMayBeAddrNeverRefusesAnAddress checks mayBeAddr's promise, that a
// false is certain: every form netip parses (bare, zoned, bracketed, with a
// port, mapped, expanded, upper case) passes it, and any text it refuses
// fails netip's parsers.
func TestPropMayBeAddrNeverRefusesAnAddress(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		for _, s := range []string{drawAddrText(t), rapid.String().Draw(t, "text")} {
			if netipParses(s) && !mayBeAddr(s) {
				t.Fatalf("mayBeAddr(%q) = false, but netip parses it", s)
			}
		}
	})
}

// netipParses reports whether netip parses s in a form parseHost tries.
func netipParses(s string) bool {
	_, errAddr := netip.ParseAddr(s)
	_, errPort := netip.ParseAddrPort(s)
	if errAddr == nil || errPort == nil {
		return true
	}
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return false
	}
	_, err := netip.ParseAddr(s[1 : len(s)-1])
	return err == nil
}

// drawAddrText draws an address in one of the spellings netip accepts.
func drawAddrText(t *rapid.T) string {
	b := rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "bytes")
	a := netip.AddrFrom16([16]byte(b))
	if rapid.Bool().Draw(t, "v4") {
		a = netip.AddrFrom4([4]byte(b[:4]))
	}
	if a.Is6() && rapid.Bool().Draw(t, "zoned") {
		a = a.WithZone(rapid.StringN(1, 8, -1).Draw(t, "zone"))
	}
	switch rapid.IntRange(0, 5).Draw(t, "form") {
	case 1:
		return netip.AddrPortFrom(a, rapid.Uint16().Draw(t, "port")).String()
	case 2:
		return "[" + a.String() + "]"
	case 3:
		if a.Is6() {
			return a.StringExpanded()
		}
	case 4:
		return netip.AddrFrom16(a.As16()).String() // an IPv4 address, mapped
	case 5:
		return strings.ToUpper(a.String())
	}
	return a.String()
}
