package httplimit

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// walkKeyers are the keyers the walk properties run: each header, trusting
// 10.0.0.0/8 and 2001:db8:ffff::/48.
func walkKeyers() map[ProxyHeader]*keyer {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8:ffff::/48")}
	out := map[ProxyHeader]*keyer{}
	for _, h := range []ProxyHeader{XForwardedFor, Forwarded} {
		k := newKeyer(&settings{header: h, trusted: trusted, v6bits: 128})
		out[h] = &k
	}
	return out
}

// hopTexts are addresses as a proxy or a client may spell them: trusted and
// untrusted, with ports and brackets, and non-addresses.
var hopTexts = []string{
	"10.0.0.1", "10.0.0.2:80", "10.9.9.9", "[2001:db8:ffff::1]:443", "2001:db8:ffff::2",
	"192.0.2.1", "192.0.2.2:4711", "198.51.100.7", "[2001:db8::17]", "[2001:db8::18]:1", "::ffff:192.0.2.3",
	"unknown", "_hidden", "1.2.3", "", "garbage",
}

// trickyBytes are the bytes that matter to the Forwarded grammar.
var trickyBytes = []byte{'"', '\\', ',', ';', '=', ' ', '\t', 'x', '[', ']', ':'}

// drawValue draws a Forwarded value: mostly as a proxy writes it (a token
// when the text is one, else a quoted string), sometimes quoted anyway, with
// escapes, holding every separator, or as a bare token that may break the
// grammar.
func drawValue(t *rapid.T, label string) string {
	text := rapid.SampledFrom(hopTexts).Draw(t, label)
	switch rapid.IntRange(0, 29).Draw(t, label+"_form") {
	case 0:
		return `"` + text + `"`
	case 1:
		return `"` + strings.ReplaceAll(text, ":", `\:`) + `"` // escapes left in place: not an address
	case 2:
		return `"a,b;c=\"d\\"` // a quoted string holding every separator
	case 3:
		return text
	}
	if text != "" && skipToken(text, 0) == len(text) {
		return text
	}
	return `"` + text + `"`
}

// drawElement draws one Forwarded element: up to three pairs, the first
// often for=, mostly at most one of them for= (two break the grammar), white
// space around, or an empty element.
func drawElement(t *rapid.T) string {
	var pairs []string
	hasFor := false
	for i := range rapid.IntRange(0, 3).Draw(t, "pairs") {
		name := rapid.SampledFrom([]string{"for", "For", "by", "proto", "host"}).Draw(t, "name")
		if i == 0 && rapid.IntRange(0, 9).Draw(t, "for_first") < 6 {
			name = "for"
		}
		if strings.EqualFold(name, "for") && hasFor && rapid.IntRange(0, 9).Draw(t, "second_for") > 0 {
			name = "by"
		}
		hasFor = hasFor || strings.EqualFold(name, "for")
		pairs = append(pairs, name+"="+drawValue(t, "value"))
	}
	ows := rapid.SampledFrom([]string{"", " ", "\t "}).Draw(t, "ows")
	return ows + strings.Join(pairs, rapid.SampledFrom([]string{";", "; ", ";;"}).Draw(t, "sep")) + ows
}

// drawLines draws 1..3 header lines of 0..4 elements each (so at most 12
// elements, under MaxProxyHops), for h, sometimes with one byte mutated.
func drawLines(t *rapid.T, h ProxyHeader) []string {
	lines := make([]string, rapid.IntRange(1, 3).Draw(t, "lines"))
	for i := range lines {
		var elems []string
		for range rapid.IntRange(0, 4).Draw(t, "elements") {
			if h == XForwardedFor {
				elems = append(elems, rapid.SampledFrom([]string{"", " "}).Draw(t, "ows")+rapid.SampledFrom(hopTexts).Draw(t, "hop"))
			} else {
				elems = append(elems, drawElement(t))
			}
		}
		lines[i] = strings.Join(elems, rapid.SampledFrom([]string{",", ", "}).Draw(t, "comma"))
	}
	if rapid.IntRange(0, 4).Draw(t, "mutate") == 0 {
		i := rapid.IntRange(0, len(lines)-1).Draw(t, "mutated_line")
		at := rapid.IntRange(0, len(lines[i])).Draw(t, "at")
		lines[i] = lines[i][:at] + string(rapid.SampledFrom(trickyBytes).Draw(t, "byte")) + lines[i][at:]
	}
	return lines
}

// header is the http.Header holding lines as h.
func header(h ProxyHeader, lines []string) http.Header {
	if h == XForwardedFor {
		return http.Header{"X-Forwarded-For": lines}
	}
	return http.Header{"Forwarded": lines}
}

// TestPropWalkMatchesOldParser compares the walk from the right with the old
// parser (forwarded_old_test.go) on headers of at most 12 elements: equal
// for X-Forwarded-For, and for Forwarded whenever the old parser accepts the
// grammar of every line. When it does not, the walk may stop before the
// broken text: its answer must then be the old parser's on some tail of the
// header (the text after a comma or a line break), which is what "elements
// left of where the walk stops are never read" means.
func TestPropWalkMatchesOldParser(t *testing.T) {
	keyers := walkKeyers()
	rapid.Check(t, func(t *rapid.T) {
		h := rapid.SampledFrom([]ProxyHeader{XForwardedFor, Forwarded}).Draw(t, "header")
		k, lines := keyers[h], drawLines(t, h)
		gotA, gotOK := k.fromHeader(header(h, lines))
		wantA, wantOK := k.oldFromHeader(header(h, lines))
		if gotA == wantA && gotOK == wantOK {
			return
		}
		if _, grammarOK := oldForwardedHops(nil, lines); h == XForwardedFor || grammarOK {
			t.Fatalf("%q: walk %v %v, old parser %v %v", lines, gotA, gotOK, wantA, wantOK)
		}
		if !oldOnSomeTail(k, h, lines, gotA, gotOK) {
			t.Fatalf("%q (grammar broken): walk %v %v is the old parser's answer on no tail", lines, gotA, gotOK)
		}
	})
}

// oldOnSomeTail reports whether the old parser gives a, ok on some tail of
// lines: a line's text after one of its commas (or all of it), and the
// lines after it.
func oldOnSomeTail(k *keyer, h ProxyHeader, lines []string, a netip.Addr, ok bool) bool {
	for li, line := range lines {
		for c := -1; c < len(line); c++ {
			if c >= 0 && line[c] != ',' {
				continue
			}
			tail := append([]string{line[c+1:]}, lines[li+1:]...)
			if ta, tok := k.oldFromHeader(header(h, tail)); ta == a && tok == ok {
				return true
			}
		}
	}
	return false
}

// TestPropClientPrefixChangesNothing is the walk's security property: once
// the proxies' part of a header names an untrusted client, whatever the
// client wrote to its left (any bytes, the same line or lines before) does
// not change the key, for both headers. The old parser let a broken
// Forwarded prefix send every such request to the proxy's own key.
func TestPropClientPrefixChangesNothing(t *testing.T) {
	keyers := walkKeyers()
	rapid.Check(t, func(t *rapid.T) {
		h := rapid.SampledFrom([]ProxyHeader{XForwardedFor, Forwarded}).Draw(t, "header")
		k, suffix := keyers[h], drawLines(t, h)
		want, ok := k.oldFromHeader(header(h, suffix))
		if _, grammarOK := oldForwardedHops(nil, suffix); !ok || k.isTrusted(want) || (h == Forwarded && !grammarOK) {
			t.Skip("the proxies' part names no untrusted client")
		}
		junk := string(rapid.SliceOfN(rapid.SampledFrom(trickyBytes), 0, 24).Draw(t, "junk"))
		sameLine := append([]string{junk + "," + suffix[0]}, suffix[1:]...)
		for _, lines := range [][]string{sameLine, append([]string{junk}, suffix...)} {
			if got, gotOK := k.fromHeader(header(h, lines)); got != want || !gotOK {
				t.Fatalf("%q: %v %v, want %v (the key of the proxies' part %q)", lines, got, gotOK, want, suffix)
			}
		}
	})
}
