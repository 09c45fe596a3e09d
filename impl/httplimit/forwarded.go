package httplimit

import (
	"net/http"
	"net/netip"
	"strings"
)

// fromHeader returns the client address that the trusted proxy header of h
// names, or false when the header is absent or malformed.
func (k *keyer) fromHeader(h http.Header) (netip.Addr, bool) {
	var buf [8]string
	var hops []string
	var ok bool
	switch k.header {
	case XForwardedFor:
		hops, ok = xffHops(buf[:0], h.Values("X-Forwarded-For"))
	case Forwarded:
		hops, ok = forwardedHops(buf[:0], h.Values("Forwarded"))
	}
	if !ok {
		return netip.Addr{}, false
	}
	return k.pick(hops)
}

// pick walks hops (addresses as the header spells them, the nearest proxy's
// peer last) from the right: the first one that is not a trusted proxy is the
// client. A hop that does not parse before that point makes the header
// malformed. When every hop is a trusted proxy, the leftmost is the client.
func (k *keyer) pick(hops []string) (netip.Addr, bool) {
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

// xffHops appends the entries of X-Forwarded-For's lines to dst in order,
// skipping empty list elements (RFC 9110 section 5.6.1).
func xffHops(dst []string, lines []string) ([]string, bool) {
	for _, line := range lines {
		for item := range strings.SplitSeq(line, ",") {
			if item = strings.Trim(item, " \t"); item != "" {
				dst = append(dst, item)
			}
		}
	}
	return dst, len(dst) > 0
}

// forwardedHops appends the for= value of each element of Forwarded's lines
// to dst in order ("" for an element without one), or returns false when a
// line does not follow RFC 7239's grammar.
func forwardedHops(dst []string, lines []string) ([]string, bool) {
	for _, line := range lines {
		var ok bool
		if dst, ok = forwardedLine(dst, line); !ok {
			return dst, false
		}
	}
	return dst, len(dst) > 0
}

// forwardedLine parses one line: elements separated by commas, pairs by
// semicolons; empty elements are skipped.
func forwardedLine(dst []string, s string) ([]string, bool) {
	var e element
	i := skipOWS(s, 0)
	for {
		var ok bool
		if i, ok = e.pair(s, i); !ok {
			return dst, false
		}
		if i == len(s) || s[i] == ',' {
			dst = e.close(dst)
		}
		if i == len(s) {
			return dst, true
		}
		i = skipOWS(s, i+1)
	}
}

// element collects the pairs of one Forwarded element.
type element struct {
	forValue string
	hasFor   bool // a for= pair was seen
	nonEmpty bool // some pair was seen
}

// pair parses an optional pair at s[i:] and the whitespace after it, and
// returns the index of the following ',', ';' or the end. A second for= in
// one element is malformed.
func (e *element) pair(s string, i int) (int, bool) {
	if i == len(s) || s[i] == ',' || s[i] == ';' {
		return i, true
	}
	name, value, j, ok := parsePair(s, i)
	if !ok || (e.hasFor && strings.EqualFold(name, "for")) {
		return j, false
	}
	if strings.EqualFold(name, "for") {
		e.forValue, e.hasFor = value, true
	}
	e.nonEmpty = true
	j = skipOWS(s, j)
	return j, j == len(s) || s[j] == ',' || s[j] == ';'
}

// close appends e's for= value to dst unless e is empty, and resets e.
func (e *element) close(dst []string) []string {
	if e.nonEmpty {
		dst = append(dst, e.forValue)
	}
	*e = element{}
	return dst
}

// parsePair parses token "=" (token / quoted-string) at s[i:] and returns the
// name, the value (a quoted string's contents, escapes left in place) and the
// index after the pair.
func parsePair(s string, i int) (name, value string, end int, ok bool) {
	j := skipToken(s, i)
	if j == i || j == len(s) || s[j] != '=' {
		return "", "", j, false
	}
	name, i = s[i:j], j+1
	if i < len(s) && s[i] == '"' {
		if j, ok = skipQuoted(s, i); !ok {
			return "", "", j, false
		}
		return name, s[i+1 : j-1], j, true
	}
	j = skipToken(s, i)
	return name, s[i:j], j, j > i
}

// skipQuoted returns the index after the quoted-string that starts at s[i]
// (a '"'), honouring backslash escapes, and false when it is not closed.
func skipQuoted(s string, i int) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(s), false
}

// skipToken returns the index after the run of token characters at s[i:].
func skipToken(s string, i int) int {
	for i < len(s) && isTchar(s[i]) {
		i++
	}
	return i
}

// skipOWS returns the index after the spaces and tabs at s[i:].
func skipOWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// isTchar reports whether c is an RFC 9110 token character.
func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
