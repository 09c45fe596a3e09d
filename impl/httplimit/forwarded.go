package httplimit

import (
	"net/http"
	"net/netip"
	"strings"
)

// MaxProxyHops is the most list elements of a trusted proxy's header (empty
// ones included) that the walk from the right inspects. A walk that meets no
// untrusted address within them ends as if the header began there: the
// leftmost address it inspected (a trusted proxy) is the client, or the peer
// when it inspected none. Sixteen trusted proxies in a row is far past any
// real chain; what lies left of them cannot be told apart from what a client
// wrote, and reading it would cost time per request that the sender chooses.
const MaxProxyHops = 16

// fromHeader returns the client address that the trusted proxy header of h
// names, or false when the header is absent or malformed. It reads the
// header from the right and stops at the first untrusted address, so its
// cost is that of the hops it inspects (at most MaxProxyHops), whatever the
// header's length, and it allocates nothing.
func (k *keyer) fromHeader(h http.Header) (netip.Addr, bool) {
	switch k.header {
	case XForwardedFor:
		return k.walkXFF(h.Values("X-Forwarded-For"))
	case Forwarded:
		return k.walkForwarded(h.Values("Forwarded"))
	}
	return netip.Addr{}, false
}

// walk is the state of one walk from the right over a header's hops.
type walk struct {
	seen   int        // list elements inspected
	client netip.Addr // the first untrusted address, once met
	origin netip.Addr // the leftmost trusted address so far
	bad    bool       // a hop that does not parse, or broken grammar
}

// visit inspects one list element: hop is its address text, present false
// for an empty element. It reports whether the walk is over: an untrusted
// client found, a malformed hop, or MaxProxyHops elements inspected.
func (w *walk) visit(k *keyer, hop string, present bool) bool {
	w.seen++
	if present {
		a, ok := parseHost(hop)
		switch {
		case !ok:
			w.bad = true
			return true
		case !k.isTrusted(a):
			w.client = a
			return true
		}
		w.origin = a
	}
	return w.seen >= MaxProxyHops
}

// result is the walk's client: the first untrusted address, else the
// leftmost trusted one; false when a hop was malformed or none was seen.
func (w *walk) result() (netip.Addr, bool) {
	switch {
	case w.bad:
		return netip.Addr{}, false
	case w.client.IsValid():
		return w.client, true
	}
	return w.origin, w.origin.IsValid()
}

// walkXFF walks X-Forwarded-For's lines, last line first, each from its
// right end: comma-separated entries, trimmed of spaces and tabs, empty
// list elements skipped (RFC 9110 section 5.6.1) but counted.
func (k *keyer) walkXFF(lines []string) (netip.Addr, bool) {
	var w walk
	for li := len(lines) - 1; li >= 0; li-- {
		line := lines[li]
		for end := len(line); end >= 0; {
			comma := strings.LastIndexByte(line[:end], ',')
			hop := strings.Trim(line[comma+1:end], " \t")
			if w.visit(k, hop, hop != "") {
				return w.result()
			}
			end = comma // -1 after the line's first element
		}
	}
	return w.result()
}

// walkForwarded walks RFC 7239 Forwarded's lines, last line first, element
// by element from the right. Each element it reaches must follow the
// grammar (see forwardedElement), or the header is malformed; elements left
// of where the walk stops are never read, so a client's malformed text there
// changes nothing. An element's for= value is its hop ("" when it has none,
// which does not parse: malformed, as for=unknown and obfuscated names are).
func (k *keyer) walkForwarded(lines []string) (netip.Addr, bool) {
	var w walk
	for li := len(lines) - 1; li >= 0; li-- {
		line := lines[li]
		for end := len(line); end >= 0; {
			comma, ok := prevTopComma(line, end)
			if !ok {
				return netip.Addr{}, false
			}
			e, ok := forwardedElement(line[comma+1 : end])
			if !ok {
				return netip.Addr{}, false
			}
			if w.visit(k, e.forValue, e.nonEmpty) {
				return w.result()
			}
			end = comma
		}
	}
	return w.result()
}

// prevTopComma returns the index of the last ',' in s[:end] that lies outside
// quoted strings, or -1 when there is none. s[end:] is taken to start outside
// any quoted string (end is len(s) or a comma it returned before). Going
// left, a '"' closes a quoted string whose opening quote is the nearest '"'
// to its left preceded by an even run of backslashes (an odd run escapes
// it). On a line that follows the grammar this finds exactly the commas that
// separate elements, as a parse from the left does (a quoted-string's
// content ends with paired backslashes, and outside quoted strings neither
// '"' nor '\' may appear); false when a closing quote has no opening one.
// The caller parses the element from the left, which checks the rest.
func prevTopComma(s string, end int) (int, bool) {
	for i := end - 1; i >= 0; i-- {
		switch s[i] {
		case ',':
			return i, true
		case '"':
			open := openingQuote(s, i)
			if open < 0 {
				return -1, false
			}
			i = open
		}
	}
	return -1, true
}

// openingQuote returns the index of the opening quote of the quoted string
// that s[close] (a '"') closes, or -1 when there is none.
func openingQuote(s string, close int) int {
	for j := close - 1; j >= 0; j-- {
		if s[j] != '"' {
			continue
		}
		run := 0
		for run < j && s[j-1-run] == '\\' {
			run++
		}
		if run%2 == 0 {
			return j
		}
	}
	return -1
}

// forwardedElement parses one element of a Forwarded line (the text between
// two top-level commas) from the left: pairs separated by semicolons, each
// optional (so ";;" and an element of only white space are allowed; the
// latter is empty), token "=" (token / quoted-string), white space allowed
// around pairs, a quoted string's escapes honoured. A second for= in one
// element, an empty value, a missing "=", junk after a pair, an unclosed
// quote or a top-level ',' make it malformed.
func forwardedElement(s string) (element, bool) {
	var e element
	i := skipOWS(s, 0)
	for {
		var ok bool
		if i, ok = e.pair(s, i); !ok || (i < len(s) && s[i] == ',') {
			return e, false
		}
		if i == len(s) {
			return e, true
		}
		i = skipOWS(s, i+1) // past a ';'
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
