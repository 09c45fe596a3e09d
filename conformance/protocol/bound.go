package protocol

import (
	"strconv"
	"unicode/utf8"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/oracle"
)

// maxMessage is the most bytes of a fault or skip message, and of the
// hello's name and version, that a run keeps: a port's line may hold 1 MiB
// (PROTO-1), and a run that kept each would hold a gigabyte for a vector
// set.
const maxMessage = 4 << 10

// cutText returns s cut to its first limit bytes (at a rune boundary),
// saying how many bytes were cut; s itself when it is short enough. A cut
// string is a copy, so the long one is not kept alive by it, and is longer
// than limit, so it never equals a string of at most limit bytes.
func cutText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	k := limit
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + " ... (" + strconv.Itoa(len(s)-k) + " bytes cut)"
}

// boundResult cuts the strings of a result to conformance.MaxString
// bytes. Its comparison with an expectation keeps its outcome: an
// expected string has at most MaxString bytes (VEC-1), and a cut one has
// more.
func boundResult(r oracle.Result) oracle.Result {
	const limit = conformance.MaxString
	if len(r.Verdict) > limit {
		r.Verdict = cutText(r.Verdict, limit)
	}
	if len(r.Error) > limit {
		r.Error = oracle.ErrorClass(cutText(string(r.Error), limit))
	}
	if r.Response != nil && len(*r.Response) > limit {
		b := oracle.Bytes(cutText(string(*r.Response), limit))
		r.Response = &b
	}
	return r
}
