package judge

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// CutText returns s cut to its first limit bytes (at a rune boundary),
// saying how many bytes were cut; s itself when it is short enough, or
// when it has the very shape of a string CutText cut to limit, so that a
// string cut by a runner and again by the search keeps its first, true
// count. A cut string is a copy, so the long one is not kept alive by it,
// and is longer than limit, so it never equals a string of at most limit
// bytes. Runners cut the text an implementation controls with it (a
// fault, a skip's reason, a port's name).
//
// The shape is checked by length, not by suffix: a string passes whole
// only when it is at most limit bytes, then the cut mark and a count
// written as strconv.Itoa writes it (no sign, no leading zero, at most 19
// digits), and nothing else. So a port that forges the mark (" ... (" and
// a million zeros, then "1 bytes cut)") gains at most cutNoteMax bytes
// over the limit, as an honest cut does.
func CutText(s string, limit int) string {
	if len(s) <= limit || isCut(s, limit) {
		return s
	}
	k := limit
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return strings.Clone(s[:k]) + cutMark + strconv.Itoa(len(s)-k) + cutEnd
}

// isCut reports whether s has the shape of a string CutText cut to
// limit: at most limit bytes, cutMark, a canonical positive count, and
// cutEnd, in at most limit+cutNoteMax bytes.
func isCut(s string, limit int) bool {
	if len(s) > limit+cutNoteMax || !strings.HasSuffix(s, cutEnd) {
		return false
	}
	i := strings.LastIndex(s, cutMark)
	if i < 0 || i > limit {
		return false
	}
	count := s[i+len(cutMark) : len(s)-len(cutEnd)]
	n, err := strconv.Atoi(count)
	return err == nil && n > 0 && strconv.Itoa(n) == count
}

// cutMark begins the note CutText ends a cut string with, cutEnd ends it;
// cutNoteMax is the longest note, with a 19-digit count.
const (
	cutMark    = " ... ("
	cutEnd     = " bytes cut)"
	cutNoteMax = len(cutMark) + 19 + len(cutEnd)
)
