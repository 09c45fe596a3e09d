package report

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Clean returns s, text a port or a vector file controls, as one line that
// is safe to show anywhere: a terminal, a text report, JUnit, JSON. Every
// byte that could act rather than show is written as an escape: C0 and C1
// controls and DEL (ESC sequences, CR, LF, tab, NUL), invalid UTF-8, and
// the Unicode characters that reorder or break lines (bidi overrides and
// isolates, line and paragraph separators, zero-width marks); a backslash
// is doubled, so that an escape the port wrote itself stays tellable from
// one Clean wrote. Printable text, spaces and all, is unchanged.
func Clean(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(hexByte(s[i]))
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(hexByte(byte(r)))
		case unsafeRune(r):
			b.WriteString(`\u`)
			b.WriteString(strings.Repeat("0", 4-len(strconv.FormatInt(int64(r), 16))))
			b.WriteString(strconv.FormatInt(int64(r), 16))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// CleanLines returns multi-line text a port controls (its stderr) as lines
// that are each clean: a line break the text has ends a line (a CR, alone
// or before LF, shows as \r), and nothing else can start one.
func CleanLines(s string) []string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = Clean(l)
	}
	return lines
}

// jsonSafe returns the JSON text js with every rune that JSON may carry
// raw but clean would escape (DEL, the C1 controls, the bidi and
// line-breaking runes of unsafeRune) written as a \u escape, and any
// invalid UTF-8 as \ufffd: the same JSON value, in bytes no terminal or
// viewer acts on. Valid JSON has such runes only inside strings, where the
// escape stands for the rune itself; encoding/json already escapes the
// controls below 0x20.
func jsonSafe(js string) string {
	i := 0
	for i < len(js) && js[i] < 0x7f {
		i++
	}
	if i == len(js) {
		return js
	}
	var b strings.Builder
	b.WriteString(js[:i])
	for i < len(js) {
		r, n := utf8.DecodeRuneInString(js[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\ufffd`)
		case r == 0x7f || unsafeRune(r):
			b.WriteString(`\u`)
			b.WriteString(hexByte(byte(r >> 8)))
			b.WriteString(hexByte(byte(r)))
		default:
			b.WriteString(js[i : i+n])
		}
		i += n
	}
	return b.String()
}

// isClean reports whether clean(s) == s: printable ASCII without a
// backslash, or valid UTF-8 with no rune clean escapes.
func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '\\' {
			return isCleanUTF8(s[i:])
		}
	}
	return true
}

func isCleanUTF8(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r == '\\' || r < 0x20 || r == 0x7f || unsafeRune(r) {
			return false
		}
		i += n
	}
	return true
}

// unsafeRune reports whether r, a valid rune of U+0080 or above, is one a
// terminal or a viewer acts on rather than shows: a C1 control, a line or
// paragraph separator, a zero-width mark or joiner, a bidi embedding,
// override or isolate, or the byte-order mark.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f, // C1 controls, CSI (0x9b) among them
		r >= 0x200b && r <= 0x200f, // zero-width space, joiners, LRM, RLM
		r >= 0x2028 && r <= 0x202e, // line and paragraph separators, bidi embeddings and overrides
		r >= 0x2066 && r <= 0x2069, // bidi isolates
		r == 0x061c,                // Arabic letter mark
		r == 0xfeff:                // byte-order mark, zero-width no-break space
		return true
	}
	return false
}

// hexByte is c as two lowercase hex digits.
func hexByte(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// ByteClean returns what in s a terminal or a viewer would act on, or nil
// when nothing: every text report's property, which the tests check. s is
// clean when it is valid UTF-8 with no byte below 0x20 but LF (a tab
// neither), no DEL, no C1 control, no bidi or line-breaking rune, and it
// ends in LF (or is empty).
func ByteClean(s string) error {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return errors.New("report: no LF at the end")
	}
	for line, l := range strings.Split(s, "\n") {
		for i := 0; i < len(l); {
			r, n := utf8.DecodeRuneInString(l[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				return fmt.Errorf("report: line %d, byte %d: invalid UTF-8 %#x: %q", line+1, i, l[i], l)
			case r < 0x20 || r == 0x7f || unsafeRune(r):
				return fmt.Errorf("report: line %d, byte %d: %U: %q", line+1, i, r, l)
			}
			i += n
		}
	}
	return nil
}
