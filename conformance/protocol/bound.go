package protocol

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/oracle"
)

// maxMessage is the most bytes of a fault or skip message, and of the
// hello's name and version, that a run keeps: a port's line may hold 1 MiB
// (PROTO-1), and a run that kept each would hold a gigabyte for a vector
// set.
const maxMessage = 4 << 10

// CutText returns s cut to its first limit bytes (at a rune boundary),
// saying how many bytes were cut; s itself when it is short enough, or
// when it is a string CutText already cut to limit, so that a string cut
// here and again by the search keeps its first, true count. A cut string
// is a copy, so the long one is not kept alive by it, and is longer than
// limit, so it never equals a string of at most limit bytes.
func CutText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	if i := strings.LastIndex(s, cutMark); i >= 0 && i <= limit && strings.HasSuffix(s, " bytes cut)") {
		if _, err := strconv.Atoi(s[i+len(cutMark) : len(s)-len(" bytes cut)")]); err == nil {
			return s // cut already
		}
	}
	k := limit
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return strings.Clone(s[:k]) + cutMark + strconv.Itoa(len(s)-k) + " bytes cut)"
}

// cutMark begins the note CutText ends a cut string with.
const cutMark = " ... ("

// boundResult cuts the strings of a result to conformance.MaxString
// bytes. Its comparison with an expectation keeps its outcome: an
// expected string has at most MaxString bytes (VEC-1), and a cut one has
// more.
func boundResult(r oracle.Result) oracle.Result {
	const limit = conformance.MaxString
	if len(r.Verdict) > limit {
		r.Verdict = CutText(r.Verdict, limit)
	}
	if len(r.Error) > limit {
		r.Error = oracle.ErrorClass(CutText(string(r.Error), limit))
	}
	if r.Response != nil && len(*r.Response) > limit {
		b := oracle.Bytes(CutText(string(*r.Response), limit))
		r.Response = &b
	}
	return r
}
