package protocol

import (
	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// maxMessage is the most bytes of a fault or skip message, and of the
// hello's name and version, that a run keeps: a port's line may hold 1 MiB
// (PROTO-1), and a run that kept each would hold a gigabyte for a vector
// set.
const maxMessage = 4 << 10

// boundResult cuts the strings of a result to conformance.MaxString
// bytes. Its comparison with an expectation keeps its outcome: an
// expected string has at most MaxString bytes (VEC-1), and a cut one has
// more.
func boundResult(r oracle.Result) oracle.Result {
	const limit = conformance.MaxString
	if len(r.Verdict) > limit {
		r.Verdict = judge.CutText(r.Verdict, limit)
	}
	if len(r.Error) > limit {
		r.Error = oracle.ErrorClass(judge.CutText(string(r.Error), limit))
	}
	if r.Response != nil && len(*r.Response) > limit {
		b := oracle.Bytes(judge.CutText(string(*r.Response), limit))
		r.Response = &b
	}
	return r
}
