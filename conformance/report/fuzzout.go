package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/conformance/search"
	"github.com/limcheck/limcheck/oracle"
)

// FuzzCounts is how far a fuzz run came, as its report lines say it:
// traces, ops run, and what was skipped apart.
func FuzzCounts(s search.FuzzStatus) string {
	return fmt.Sprintf("%d traces, %d ops run, %d traces (%d ops) skipped", s.Traces, s.Ops, s.Skipped, s.SkippedOps)
}

// isolationNote says how many twinned traces the port skipped, on which
// instance isolation (spec PROTO-12) was not checked; "" when it skipped
// none.
func isolationNote(s search.FuzzStatus) string {
	switch {
	case s.TwinnedSkipped == 0:
		return ""
	case s.IsolationChecked():
		return fmt.Sprintf("%d twinned traces skipped: instance isolation (PROTO-12) not checked on them (%d twinned traces ran)", s.TwinnedSkipped, s.Twinned-s.TwinnedSkipped)
	}
	return fmt.Sprintf("%d twinned traces skipped: instance isolation (PROTO-12) not checked", s.TwinnedSkipped)
}

// OpsRate is the ops run per second.
func OpsRate(s search.FuzzStatus) float64 { return float64(s.Ops) / max(s.Elapsed.Seconds(), 1e-9) }

// WriteFuzzText prints a fuzz run that found nothing for people and returns
// its status.
func WriteFuzzText(w io.Writer, res *Fuzz) int {
	rep := res.Report
	counts := FuzzCounts(rep.FuzzStatus)
	switch {
	case res.Broken != nil:
		fmt.Fprintf(w, "the port broke the protocol after %s: %s\n", counts, Clean(res.Broken.What))
		if res.Broken.Stderr != "" {
			fmt.Fprintln(w, "port stderr (last lines):")
			fmt.Fprint(w, portLines(res.Broken.Stderr, "  | "))
		}
	case res.Incomplete != "":
		fmt.Fprintf(w, "INCOMPLETE: %s, after %s in %v: no divergence in what ran\n", res.Incomplete, counts, rep.Elapsed.Round(time.Millisecond))
		if rep.FirstSkip != "" {
			fmt.Fprintf(w, "  the first trace skipped: %s\n", Clean(rep.FirstSkip))
		}
		if s := isolationNote(rep.FuzzStatus); s != "" {
			fmt.Fprintf(w, "  %s\n", s)
		}
		switch {
		case !rep.Checked():
			fmt.Fprintln(w, "  (--allow-empty accepts a run that checks nothing)")
		case !rep.IsolationChecked():
			fmt.Fprintln(w, "  (--isolation 0 runs no twinned trace; --allow-empty accepts the run)")
		}
	default:
		fmt.Fprintf(w, "no divergence: %s in %v (%.0f ops/s)\n", counts, rep.Elapsed.Round(time.Millisecond), OpsRate(rep.FuzzStatus))
		if !rep.Checked() {
			fmt.Fprintln(w, "  nothing was checked: the port skipped every trace (--allow-empty)")
		}
		if s := isolationNote(rep.FuzzStatus); s != "" {
			fmt.Fprintf(w, "  warning: %s\n", s)
		}
	}
	fmt.Fprintf(w, "reproduce: %s\n", res.Repro)
	return res.Status()
}

// WriteCounterexample prints a found divergence for people.
func WriteCounterexample(w io.Writer, res *Fuzz, portCommand string) {
	rep, f := res.Report, res.Report.Found
	fmt.Fprintf(w, "DIVERGENCE after %s (%v): trace %d of seed %d, %d ops, shrunk to %d ops in %d runs (%v)\n",
		FuzzCounts(rep.FuzzStatus), f.FoundAfter.Round(time.Millisecond), f.Index, f.Seed, len(f.Original.Ops), len(f.Shrunk.Ops), f.ShrinkRuns, f.ShrinkTime.Round(time.Millisecond))
	if s := res.shrinkStopped(); s != "" {
		fmt.Fprintln(w, s)
		if st := res.shrinkStderr(); st != "" {
			fmt.Fprint(w, portLines(st, "  | "))
		}
	}
	if s := res.confirmation(); s != "" {
		fmt.Fprintln(w, s)
	}
	if !f.Reproduced {
		fmt.Fprintln(w, "warning: the trace did not fail again when re-run, so it was not shrunk: the port answers the same ops differently (state leaking between instances, time, randomness?)")
	}
	fmt.Fprint(w, clausesLine(f))
	if f.Divergence != nil {
		fmt.Fprint(w, DivergenceText(f, "port"))
	} else {
		fmt.Fprint(w, indent(resultsContext(f, f.FaultOp, "port"), "  "))
		if m := misfit(f); m != "" {
			fmt.Fprintf(w, "  at %s %s\n", OpLabel(f.FaultOp), m)
		} else if f.Run.Undecodable {
			fmt.Fprintf(w, "  the port's result of %s does not decode: %s\n", OpLabel(f.FaultOp), Clean(f.Fault))
		} else {
			fmt.Fprintf(w, "  the port faulted at %s: %s\n", OpLabel(f.FaultOp), Clean(f.Fault))
		}
	}
	if f.Run.Stderr != "" {
		fmt.Fprintln(w, "port stderr while it ran:")
		fmt.Fprint(w, portLines(f.Run.Stderr, "  | "))
	}
	if res.Broken != nil {
		fmt.Fprintf(w, "the port broke the protocol at its end: %s\n", Clean(res.Broken.What))
	}
	if res.WriteErr != nil {
		fmt.Fprintf(w, "NOT WRITTEN: %v (the counterexample is above)\n", res.WriteErr)
	} else {
		fmt.Fprintf(w, "wrote %s (case %s)\n", res.File, f.Case.ID)
		fmt.Fprintf(w, "keep it: cp %s DIR/%s/%s.json, DIR your copy of the vectors (limcheck vectors export DIR), then limcheck run --vectors DIR\n",
			shellWord(res.File), f.Case.Component, f.Case.ID)
		portArg := ""
		if portCommand != "" {
			portArg = " --port " + ShellQuote(portCommand)
		}
		fmt.Fprintf(w, "replay: limcheck replay%s %s\n", portArg, res.File)
	}
	fmt.Fprintf(w, "reproduce: %s\n", res.Repro)
}

// clausesLine renders the clauses of f's case, those its differing fields
// rest on first, then what each differing field rests on.
func clausesLine(f *search.Counterexample) string {
	s := fmt.Sprintf("clauses: %s\n", strings.Join(f.Clauses(), " "))
	if d := f.Divergence; d != nil && d.Index >= 0 && d.Index < len(f.Trace.Ops) {
		for _, fd := range d.Fields {
			s += fmt.Sprintf("  %s of %s rests on %s\n", fd.Name, f.Trace.Ops[d.Index].Kind, strings.Join(search.FieldClauses(f.Trace.Ops[d.Index].Kind, fd.Name), " "))
		}
	}
	return s
}

// misfit says, where the port's result at f's fault op holds a value
// that does not fit its field, what it sent beside what the model
// answers there: "the port sent X for FIELD, which does not fit it
// (want Y)"; "" otherwise.
func misfit(f *search.Counterexample) string {
	if !f.Run.Undecodable || f.Run.BadField == "" {
		return ""
	}
	want := "no " + f.Run.BadField
	if f.FaultOp >= 0 && f.FaultOp < len(f.Case.Ops) {
		var m map[string]json.RawMessage
		if b, err := json.Marshal(f.Case.Ops[f.FaultOp].Expect); err == nil && json.Unmarshal(b, &m) == nil && m[f.Run.BadField] != nil {
			want = string(m[f.Run.BadField])
		}
	}
	return fmt.Sprintf("the port sent %s for %s, which does not fit it (want %s)", Clean(f.Run.BadValue), Clean(f.Run.BadField), want)
}

// shellWord is s as one sh word: as it is when it needs no quotes,
// else in single quotes.
func shellWord(s string) string {
	for _, r := range s {
		if !strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+=,-", r) {
			return ShellQuote(s)
		}
	}
	if s == "" {
		return "''"
	}
	return s
}

// OpLabel names op i of a trace: "open" or "op 3".
func OpLabel(i int) string {
	if i < 0 {
		return "open"
	}
	return fmt.Sprintf("op %d", i)
}

// DivergenceText renders a counterexample's divergence: its ops up to
// the diverging one, each before it with the model's and the subject's
// result, then the two results there, each clean (the subject's is the
// port's text).
func DivergenceText(f *search.Counterexample, name string) string {
	d := conformance.Differ(f.Trace, f.Divergence)
	d.Want, d.Got = Clean(d.Want), Clean(d.Got)
	d.Context = resultsContext(f, f.Divergence.Index, name)
	text := indent(d.Text("model", name), "  ")
	if f.OnTwin {
		text = "  on the second instance: the trace ran twinned, on two instances of its config opened side by side (VEC-15);\n  the first agreed with the model, so the port shares state between instances (PROTO-12)\n" + text
	}
	return text
}

// resultsContext renders f's trace up to op at, each op before it with
// the model's result (the case's expectation) and the subject's (named
// name), so a reader sees what each earlier op did.
func resultsContext(f *search.Counterexample, at int, name string) string {
	var want []oracle.Result
	for _, s := range f.Case.Ops {
		want = append(want, s.Expect)
	}
	return conformance.ResultsContext(f.Trace, at, want, f.Got().Results, "model", name, Clean)
}

// portLines renders multi-line text a port wrote (its stderr) for a
// report: its last 20 lines, each clean, each after prefix.
func portLines(s, prefix string) string {
	lines := CleanLines(s)
	if len(lines) > 20 {
		lines = append([]string{fmt.Sprintf("[%d earlier lines]", len(lines)-20)}, lines[len(lines)-20:]...)
	}
	return prefix + strings.Join(lines, "\n"+prefix) + "\n"
}

// fuzzJSONFound is a counterexample in fuzz's JSON report.
type fuzzJSONFound struct {
	Seed          uint64           `json:"seed"`
	Index         int              `json:"index"`
	Original      int              `json:"original_ops"`
	ShrinkRuns    int              `json:"shrink_runs"`
	ShrinkStopped string           `json:"shrink_stopped,omitempty"`
	ShrinkStderr  string           `json:"shrink_stderr,omitempty"`
	Confirmation  string           `json:"confirmation"`
	Confirmed     string           `json:"confirmation_note,omitempty"`
	FoundMS       int64            `json:"found_after_ms"`
	ShrinkMS      int64            `json:"shrink_ms"`
	File          string           `json:"file"`
	WriteError    string           `json:"write_error,omitempty"`
	Case          conformance.Case `json:"case"`
	Clauses       []string         `json:"clauses"`               // the case's, those the differing fields rest on first
	Differences   []Difference     `json:"differences,omitempty"` // at the divergence, field by field: deterministic, unlike a cmp.Diff
	Fault         string           `json:"fault,omitempty"`
	Misfit        string           `json:"misfit,omitempty"` // a value sent that does not fit its field, beside the model's
	Stderr        string           `json:"stderr,omitempty"`
}

// WriteFuzzJSON writes the fuzz result res to w as JSON, the schema's
// #/$defs/fuzz, and returns the write error.
func WriteFuzzJSON(w io.Writer, res *Fuzz) error {
	rep := res.Report
	out := struct {
		Format     string         `json:"format"`  // Format: report.schema.json's #/$defs/fuzz
		Command    string         `json:"command"` // fuzz
		Status     int            `json:"status"`  // the exit status the run calls for
		Traces     int            `json:"traces"`
		Ops        int            `json:"ops"`
		Skipped    int            `json:"skipped"`
		SkippedOps int            `json:"skipped_ops"`
		Twinned    int            `json:"twinned"`
		TwinSkip   int            `json:"twinned_skipped"`
		Isolation  string         `json:"isolation,omitempty"`
		FirstSkip  string         `json:"first_skip,omitempty"`
		ElapsedMS  int64          `json:"elapsed_ms"`
		OpsPerSec  float64        `json:"ops_per_second"`
		Found      *fuzzJSONFound `json:"found,omitempty"`
		Broken     string         `json:"broken,omitempty"`
		Stderr     string         `json:"broken_stderr,omitempty"`
		Incomplete string         `json:"incomplete,omitempty"`
		Stopped    string         `json:"stopped,omitempty"`
		Reproduce  string         `json:"reproduce"`
	}{Format: Format, Command: "fuzz", Status: res.Status(), Traces: rep.Traces, Ops: rep.Ops, Skipped: rep.Skipped, SkippedOps: rep.SkippedOps,
		Twinned: rep.Twinned, TwinSkip: rep.TwinnedSkipped, Isolation: isolationNote(rep.FuzzStatus), FirstSkip: Clean(rep.FirstSkip),
		ElapsedMS: rep.Elapsed.Milliseconds(), OpsPerSec: OpsRate(rep.FuzzStatus), Incomplete: res.Incomplete, Stopped: res.StoppedBy, Reproduce: res.Repro}
	if res.Broken != nil {
		out.Broken, out.Stderr = Clean(res.Broken.What), cleanText(res.Broken.Stderr)
	}
	if f := rep.Found; f != nil {
		out.Found = &fuzzJSONFound{Seed: f.Seed, Index: f.Index, Original: len(f.Original.Ops), ShrinkRuns: f.ShrinkRuns,
			ShrinkStopped: res.shrinkStopped(), ShrinkStderr: cleanText(res.shrinkStderr()),
			Confirmation: string(f.Confirmation), Confirmed: res.confirmation(),
			FoundMS: f.FoundAfter.Milliseconds(), ShrinkMS: f.ShrinkTime.Milliseconds(), File: res.File, Case: f.Case, Clauses: f.Clauses(),
			Fault: Clean(f.Fault), Misfit: misfit(f), Stderr: cleanText(f.Run.Stderr)}
		if f.Confirmation == search.Unconfirmed {
			out.Found.Confirmation = "unconfirmed"
		}
		if res.WriteErr != nil {
			out.Found.WriteError = res.WriteErr.Error()
		}
		if f.Divergence != nil {
			out.Found.Differences = differences(f.Divergence.Fields)
		}
	}
	return WriteJSON(w, &out)
}

// Fuzz is how a fuzz run ended, for its text, JSON and CI forms. The
// command fills it in as the run goes; the writers only read it.
type Fuzz struct {
	Report     search.FuzzReport  // the search's own report: counts, times, the counterexample found
	Hello      protocol.Hello     // the port's, for the HTML page of a divergence
	File       string             // where the counterexample was written
	WriteErr   error              // why it could not be
	Broken     *judge.BrokenError // how the port broke the protocol, outside shrinking
	Incomplete string             // why the run is incomplete (status 4)
	StoppedBy  string             // the signal that stopped the run: "limcheck was stopped (interrupt)"
	Repro      string             // the command line that reproduces the run
	JSONOut    bool               // the run prints JSON (--json), not text
}

// Status is the exit status res calls for.
func (res *Fuzz) Status() int {
	switch {
	case res.Report.Found != nil:
		return ExitFailed
	case res.Broken != nil:
		return ExitBroken
	case res.Incomplete != "":
		return ExitIncomplete
	}
	return ExitOK
}

// shrinkStopped says why shrinking stopped short, "" when it did not.
func (res *Fuzz) shrinkStopped() string {
	f := res.Report.Found
	var why string
	switch f.ShrinkStop {
	case search.ShrinkDone:
		return ""
	case search.ShrinkDeadline:
		why = "the --timeout passed"
	case search.ShrinkTimeLimit:
		why = "-shrink-time passed"
	case search.ShrinkRunLimit:
		why = "-shrink-runs reached"
	case search.ShrinkInterrupted:
		why = res.StoppedBy
	default:
		why = Clean(f.ShrinkErr.Error())
		var be *judge.BrokenError
		if errors.As(f.ShrinkErr, &be) {
			why = "the port broke the protocol: " + Clean(be.What)
		}
	}
	return fmt.Sprintf("shrinking stopped after %d runs: %s", f.ShrinkRuns, why)
}

// confirmation says how the counterexample fared alone in a fresh
// process, "" when it failed there as shrunk.
func (res *Fuzz) confirmation() string {
	f := res.Report.Found
	const leak = "the port keeps state across instances (PROTO-4: open builds a fresh instance)"
	switch f.Confirmation {
	case search.ConfirmedOriginal:
		return fmt.Sprintf("the shrunk trace does not reproduce in a fresh process: %s; the trace as found (%d ops) does, and is the counterexample", leak, len(f.Original.Ops))
	case search.NotReproducible:
		return fmt.Sprintf("does not reproduce in a fresh process: %s; neither the shrunk trace nor the trace as found fails alone there, so the one that failed in the run is written, marked NOT REPRODUCIBLE", leak)
	case search.Unconfirmed:
		if errors.Is(f.ConfirmErr, search.ErrStopped) {
			return "not confirmed in a fresh process: " + res.StoppedBy
		}
		if f.ShrinkStop == search.ShrinkDeadline {
			return "not confirmed in a fresh process: the --timeout passed"
		}
		if f.ConfirmErr != nil {
			return "not confirmed in a fresh process: " + Clean(f.ConfirmErr.Error())
		}
	}
	return ""
}

// shrinkStderr is the stderr of the break that stopped shrinking, if any.
func (res *Fuzz) shrinkStderr() string {
	var be *judge.BrokenError
	if f := res.Report.Found; f != nil && errors.As(f.ShrinkErr, &be) {
		return be.Stderr
	}
	return ""
}

// ShellQuote quotes s for sh.
func ShellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// WriteFoundHTML writes the counterexample f, found on the port h, as the
// HTML report of its one case.
func WriteFoundHTML(file string, h protocol.Hello, f *search.Counterexample) error {
	r := judge.CaseResult{Case: f.Case, Verdict: judge.Fail, Divergence: f.Divergence, Twin: f.OnTwin, Got: f.Got(), Stderr: f.Run.Stderr}
	switch {
	case f.Divergence != nil:
		r.Why = fmt.Sprintf("result differs at op %d", f.Divergence.Index)
	default:
		r.Why = "fault: " + f.Fault
		if f.Run.Undecodable {
			r.Why = "result does not decode: " + f.Fault
		}
		if m := misfit(f); m != "" {
			r.Why = fmt.Sprintf("at %s %s", OpLabel(f.FaultOp), m)
		}
	}
	return WriteHTML(file, New(h, []judge.CaseResult{r}, nil, f.FoundAfter+f.ShrinkTime))
}
