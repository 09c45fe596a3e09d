package conformance

import (
	"errors"

	"github.com/limcheck/limcheck/oracle"
)

// Verdict is what Check concludes about one case; conformance/protocol's
// RunCases adds the verdicts of a port that broke (Broken, NotRun).
type Verdict string

// The verdicts.
const (
	Pass Verdict = "pass" // every result equals its expectation
	Fail Verdict = "fail" // a result differs, or the subject broke
	Skip Verdict = "skip" // the subject does not implement the case's component, or declines the case
)

// Check runs c on a fresh instance of s and compares the outcome with the
// case's expectations.
//
//   - Skip, nil, nil: s does not implement c's component, or Open or an op
//     returned an error wrapping oracle.ErrUnsupported.
//   - Pass, nil, nil: every result equals its expectation.
//   - Fail, d, nil: d is the first divergence (-expected +got).
//   - Fail, nil, err: the subject broke, or refused an op as malformed (a
//     valid case has no malformed op).
//
// spec VEC-12: "A subject that does not implement a case's component, or that declares the case unsupported ... skips it"
func Check(s oracle.Subject, c Case) (Verdict, *oracle.Divergence, error) {
	if !s.Implements(c.Component) {
		return Skip, nil, nil
	}
	t := c.Trace()
	var got oracle.Outcome
	var twin []oracle.Result
	var err error
	if t.Twin {
		got, twin, err = oracle.RunTwin(s, t)
	} else {
		got, err = oracle.Run(s, t)
	}
	switch {
	case errors.Is(err, oracle.ErrUnsupported):
		return Skip, nil, nil
	case err != nil:
		return Fail, nil, err
	}
	// spec VEC-10: "no field that expect lacks"
	if d := oracle.Compare(t, c.Expected(), got); d != nil {
		return Fail, d, nil
	}
	// spec VEC-15: "each instance's results must equal expect"
	if t.Twin && got.Open == "" {
		if d := oracle.Compare(t, c.Expected(), oracle.Outcome{Results: twin}); d != nil {
			d.Diff = "on the second instance: " + d.Diff
			return Fail, d, nil
		}
	}
	return Pass, nil, nil
}
