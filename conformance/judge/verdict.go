package judge

// Verdict is what became of one case: the judgement of its run, or, in a
// report with an expect-fail list, that judgement against the list. Its
// value is the word every report prints (text, JSON, JUnit, HTML).
type Verdict string

// The verdicts.
const (
	Pass   Verdict = "PASS"    // every result equals its expectation
	Fail   Verdict = "FAIL"    // a result differs, or the implementation faulted
	Skip   Verdict = "SKIP"    // the implementation does not implement the case's component, or declines the case
	Broken Verdict = "BROKEN"  // the port broke the protocol during this case (PROTO-9)
	NotRun Verdict = "NOT RUN" // the port broke, or the deadline passed, before this case finished
	XFail  Verdict = "XFAIL"   // failed, and an expect-fail list names it
	XPass  Verdict = "XPASS"   // passed, but an expect-fail list names it
)

// Listed returns v for a case an expect-fail list names: XFail for Fail,
// XPass for Pass, v itself otherwise.
func (v Verdict) Listed() Verdict {
	switch v {
	case Fail:
		return XFail
	case Pass:
		return XPass
	}
	return v
}

// Failing reports whether v fails a run: Fail, XPass or Broken.
func (v Verdict) Failing() bool { return v == Fail || v == XPass || v == Broken }
