package walkthrough

import "fmt"

// Step is one call of an example: what was called, what the model returned
// and what spec.md says it returns, each formatted with %+v.
type Step struct {
	Call string
	Got  string
	Want string
}

// OK reports whether the model returned what spec.md says.
func (s Step) OK() bool { return s.Got == s.Want }

// Example is one worked example or finding of spec.md.
type Example struct {
	ID    string // a spec.md ID (FIND-n) or "worked-example"
	Title string
	Steps []Step
}

// Failed returns the number of steps whose result differs from spec.md.
func (e Example) Failed() int {
	n := 0
	for _, s := range e.Steps {
		if !s.OK() {
			n++
		}
	}
	return n
}

// All returns every example, the worked example first, then the findings in
// ID order. Each call runs the model afresh.
func All() []Example {
	return append([]Example{
		workedExample(),
		find1(), find2(), find3(), find4(), find5(), find6(),
		find7(), find8(), find9(), find10(), find11(), find12(), find13(),
		find14(), find15(), find16(),
	}, append(reviewFindings(), find27())...)
}

// recorder collects the steps of one example.
type recorder struct{ steps []Step }

// step records a call, its result and the expected result.
func (r *recorder) step(call string, got any, want string) {
	r.steps = append(r.steps, Step{Call: call, Got: fmt.Sprintf("%+v", got), Want: want})
}
