package judge

import (
	"fmt"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/oracle"
)

// Judge compares run, the run of case c (t is c.Trace()), with the case's
// expectations: Skip when the implementation declined it, Fail on a fault
// or the first divergence (on either instance of a twin case), else Pass.
//
// spec VEC-10: "It passes iff every op's result equals its expect exactly"
func Judge(c conformance.Case, t oracle.Trace, run TraceRun) CaseResult {
	res := CaseResult{Case: c, Got: run.Outcome, Stderr: run.Stderr}
	switch {
	case run.Skipped != "":
		res.Verdict, res.Why = Skip, "skipped by the port: "+run.Skipped
	case run.Fault != "":
		res.Verdict, res.Why = Fail, run.FaultAt(OpName(t, run.FaultOp))
	default:
		res.Verdict = Pass
		if d, twin := Diverge(t, c.Expected(), run); d != nil {
			res.Verdict, res.Divergence, res.Twin = Fail, d, twin
			res.Why = "result differs at " + OpName(t, d.Index)
			if twin {
				res.Got = oracle.Outcome{Results: run.Twin} // what diverged: the second instance's
				res.Why = "result differs " + OnTwin + " at " + OpName(t, d.Index)
			}
		}
	}
	return res
}

// OnTwin says where a twin trace's divergence is when the first instance
// agreed.
const OnTwin = "on the second instance (open beside the first)"

// Diverge returns the first divergence of run from want on t: on the
// first instance, else on the second instance of a twin trace (twin
// true); nil when both agree with want. It is the one twin check: every
// judge of a run (Judge, conformance/search's fuzzer) asks it.
//
// spec VEC-15: "each instance's results must equal expect"
func Diverge(t oracle.Trace, want oracle.Outcome, run TraceRun) (d *oracle.Divergence, twin bool) {
	if d := oracle.Compare(t, want, run.Outcome); d != nil {
		return d, false
	}
	if !t.Twin || want.Open != "" {
		return nil, false
	}
	d = oracle.Compare(t, want, oracle.Outcome{Results: run.Twin})
	return d, d != nil
}

// Fails reports whether run, not skipped, faulted or diverges from want
// (Diverge).
func Fails(t oracle.Trace, want oracle.Outcome, run TraceRun) bool {
	if run.Skipped != "" {
		return false
	}
	d, _ := Diverge(t, want, run)
	return run.Fault != "" || d != nil
}

// OpName names request op of t for a diagnosis: "open gate", "op 3
// (admit)", "close" (op len(t.Ops)).
func OpName(t oracle.Trace, op int) string {
	switch {
	case op == -1:
		return "open " + string(t.Component)
	case op >= 0 && op < len(t.Ops):
		return fmt.Sprintf("op %d (%s)", op, t.Ops[op].Kind)
	case op == len(t.Ops):
		return "close"
	}
	return fmt.Sprintf("op %d", op)
}
