package judge

import (
	"errors"
	"fmt"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/oracle"
)

// SubjectRunner runs traces on a Go oracle.Subject in process: an error
// wrapping oracle.ErrUnsupported is a skip, any other error a fault. It
// never breaks. It is the one in-process runner: [Check],
// conformance/conformancetest and limcheck's in-process checks all run
// through it.
type SubjectRunner struct{ S oracle.Subject }

// Name implements Runner.
func (r SubjectRunner) Name() string { return r.S.Name() }

// Implements implements Runner.
func (r SubjectRunner) Implements(c oracle.Component) bool { return r.S.Implements(c) }

// RunTraces implements Runner.
func (r SubjectRunner) RunTraces(ts []oracle.Trace, each func(int, TraceRun)) error {
	for i, t := range ts {
		each(i, r.run(t))
	}
	return nil
}

// run runs one trace: on one instance, or a twin trace on two opened side
// by side, each op on the first then on the second.
//
// spec PROTO-12: "two instances open at once, of the same component and config, are independent"
func (r SubjectRunner) run(t oracle.Trace) TraceRun {
	insts, run := r.open(t)
	if insts == nil {
		return run
	}
	for i, op := range t.Ops {
		for side, inst := range insts {
			res, err := inst.Do(op)
			switch {
			case errors.Is(err, oracle.ErrUnsupported):
				run.Skipped = fmt.Sprintf("op %d (%s): %v", i, op.Kind, err)
				return run
			case err != nil:
				run.Fault, run.FaultOp = err.Error(), i
				return run
			case side == 1:
				run.Twin = append(run.Twin, res)
			default:
				run.Outcome.Results = append(run.Outcome.Results, res)
			}
		}
	}
	return run
}

// open opens the instances t runs on: one, or two for a twin trace. When
// none opened (a refused config, a skip, a fault) it returns nil and the
// run as it ends there.
func (r SubjectRunner) open(t oracle.Trace) ([]oracle.Instance, TraceRun) {
	inst, class, err := r.S.Open(t.Component, t.Config)
	switch {
	case errors.Is(err, oracle.ErrUnsupported):
		return nil, TraceRun{Skipped: err.Error(), FaultOp: -1}
	case err != nil:
		return nil, TraceRun{Fault: err.Error(), FaultOp: -1}
	case class != "":
		return nil, TraceRun{Outcome: oracle.Outcome{Open: class}}
	}
	run := TraceRun{Outcome: oracle.Outcome{Results: make([]oracle.Result, 0, len(t.Ops))}}
	if !t.Twin {
		return []oracle.Instance{inst}, run
	}
	twin, class, err := r.S.Open(t.Component, t.Config)
	switch {
	case errors.Is(err, oracle.ErrUnsupported):
		return nil, TraceRun{Skipped: "open of the second instance: " + err.Error(), FaultOp: -1}
	case err != nil || class != "":
		return nil, TraceRun{Fault: fmt.Sprintf("open of the second instance of the same config: %q, %v", class, err), FaultOp: -1}
	}
	run.Twin = make([]oracle.Result, 0, len(t.Ops))
	return []oracle.Instance{inst, twin}, run
}

// Check runs case c on fresh instances of s in process and judges it, as
// RunCases does on SubjectRunner{s}: Pass, Fail (with the divergence, or
// the fault in Why) or Skip.
//
// spec VEC-12: "A subject that does not implement a case's component, or that declares the case unsupported ... skips it"
func Check(s oracle.Subject, c conformance.Case) CaseResult {
	var res CaseResult
	RunCasesEach(SubjectRunner{s}, []conformance.Case{c}, func(r CaseResult) { res = r }) //nolint:errcheck // a SubjectRunner never breaks
	return res
}
