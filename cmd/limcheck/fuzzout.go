package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/search"
)

// fuzzCounts is how far a fuzz run came, as its report lines say it:
// traces, ops run, and what was skipped apart.
func fuzzCounts(s search.FuzzStatus) string {
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

// opsRate is the ops run per second.
func opsRate(s search.FuzzStatus) float64 { return float64(s.Ops) / max(s.Elapsed.Seconds(), 1e-9) }

// fuzzText prints a fuzz run that found nothing for people and returns
// its status.
func (c cli) fuzzText(res *fuzzOutcome) int {
	rep := res.rep
	counts := fuzzCounts(rep.FuzzStatus)
	switch {
	case res.broken != nil:
		fmt.Fprintf(c.stdout, "the port broke the protocol after %s: %s\n", counts, clean(res.broken.What))
		if res.broken.Stderr != "" {
			fmt.Fprintln(c.stdout, "port stderr (last lines):")
			fmt.Fprint(c.stdout, portLines(res.broken.Stderr, "  | "))
		}
	case res.incomplete != "":
		fmt.Fprintf(c.stdout, "INCOMPLETE: %s, after %s in %v: no divergence in what ran\n", res.incomplete, counts, rep.Elapsed.Round(time.Millisecond))
		if rep.FirstSkip != "" {
			fmt.Fprintf(c.stdout, "  the first trace skipped: %s\n", clean(rep.FirstSkip))
		}
		if s := isolationNote(rep.FuzzStatus); s != "" {
			fmt.Fprintf(c.stdout, "  %s\n", s)
		}
		switch {
		case !rep.Checked():
			fmt.Fprintln(c.stdout, "  (--allow-empty accepts a run that checks nothing)")
		case !rep.IsolationChecked():
			fmt.Fprintln(c.stdout, "  (--isolation 0 runs no twinned trace; --allow-empty accepts the run)")
		}
	default:
		fmt.Fprintf(c.stdout, "no divergence: %s in %v (%.0f ops/s)\n", counts, rep.Elapsed.Round(time.Millisecond), opsRate(rep.FuzzStatus))
		if !rep.Checked() {
			fmt.Fprintln(c.stdout, "  nothing was checked: the port skipped every trace (--allow-empty)")
		}
		if s := isolationNote(rep.FuzzStatus); s != "" {
			fmt.Fprintf(c.stdout, "  warning: %s\n", s)
		}
	}
	fmt.Fprintf(c.stdout, "reproduce: %s\n", res.repro)
	return res.status()
}

// printCounterexample prints a found divergence for people.
func (c cli) printCounterexample(res *fuzzOutcome, pf *portFlags) {
	rep, f := res.rep, res.rep.Found
	fmt.Fprintf(c.stdout, "DIVERGENCE after %s (%v): trace %d of seed %d, %d ops, shrunk to %d ops in %d runs (%v)\n",
		fuzzCounts(rep.FuzzStatus), f.FoundAfter.Round(time.Millisecond), f.Index, f.Seed, len(f.Original.Ops), len(f.Shrunk.Ops), f.ShrinkRuns, f.ShrinkTime.Round(time.Millisecond))
	if s := res.shrinkStopped(); s != "" {
		fmt.Fprintln(c.stdout, s)
		if st := res.shrinkStderr(); st != "" {
			fmt.Fprint(c.stdout, portLines(st, "  | "))
		}
	}
	if s := res.confirmation(); s != "" {
		fmt.Fprintln(c.stdout, s)
	}
	if !f.Reproduced {
		fmt.Fprintln(c.stdout, "warning: the trace did not fail again when re-run, so it was not shrunk: the port answers the same ops differently (state leaking between instances, time, randomness?)")
	}
	fmt.Fprintf(c.stdout, "clauses: %s\n", strings.Join(f.Case.Clauses, " "))
	if f.Divergence != nil {
		fmt.Fprint(c.stdout, divergenceText(f, "port"))
	} else {
		fmt.Fprint(c.stdout, indent(conformance.Context(f.Trace, f.FaultOp), "  "))
		if f.Run.Undecodable {
			fmt.Fprintf(c.stdout, "  the port's result of %s does not decode: %s\n", opLabel(f.FaultOp), clean(f.Fault))
		} else {
			fmt.Fprintf(c.stdout, "  the port faulted at %s: %s\n", opLabel(f.FaultOp), clean(f.Fault))
		}
	}
	if f.Run.Stderr != "" {
		fmt.Fprintln(c.stdout, "port stderr while it ran:")
		fmt.Fprint(c.stdout, portLines(f.Run.Stderr, "  | "))
	}
	if res.broken != nil {
		fmt.Fprintf(c.stdout, "the port broke the protocol at its end: %s\n", clean(res.broken.What))
	}
	if res.writeErr != nil {
		fmt.Fprintf(c.stdout, "NOT WRITTEN: %v (the counterexample is above)\n", res.writeErr)
	} else {
		fmt.Fprintf(c.stdout, "wrote %s (case %s)\n", res.file, f.Case.ID)
		fmt.Fprintf(c.stdout, "keep it: cp %s DIR/%s/%s.json, DIR your copy of the vectors (limcheck vectors export DIR), then limcheck run --vectors DIR\n",
			shellWord(res.file), f.Case.Component, f.Case.ID)
		portArg := ""
		if pf.command != "" {
			portArg = " --port " + shellQuote(pf.command)
		}
		fmt.Fprintf(c.stdout, "replay: limcheck replay%s %s\n", portArg, res.file)
	}
	fmt.Fprintf(c.stdout, "reproduce: %s\n", res.repro)
}

// shellWord is s as one sh word: as it is when it needs no quotes,
// else in single quotes.
func shellWord(s string) string {
	for _, r := range s {
		if !strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+=,-", r) {
			return shellQuote(s)
		}
	}
	if s == "" {
		return "''"
	}
	return s
}

// opLabel names op i of a trace: "open" or "op 3".
func opLabel(i int) string {
	if i < 0 {
		return "open"
	}
	return fmt.Sprintf("op %d", i)
}

// divergenceText renders a counterexample's divergence: its ops up to
// the diverging one, then the model's and the subject's result there,
// each clean (the subject's is the port's text).
func divergenceText(f *search.Counterexample, name string) string {
	d := conformance.Differ(f.Trace, f.Divergence)
	d.Want, d.Got = clean(d.Want), clean(d.Got)
	text := indent(d.Text("model", name), "  ")
	if f.OnTwin {
		text = "  on the second instance: the trace ran twinned, on two instances of its config opened side by side (VEC-15);\n  the first agreed with the model, so the port shares state between instances (PROTO-12)\n" + text
	}
	return text
}

// portLines renders multi-line text a port wrote (its stderr) for a
// report: its last 20 lines, each clean, each after prefix.
func portLines(s, prefix string) string {
	lines := cleanLines(s)
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
	Differences   []difference     `json:"differences,omitempty"` // at the divergence, field by field: deterministic, unlike a cmp.Diff
	Fault         string           `json:"fault,omitempty"`
	Stderr        string           `json:"stderr,omitempty"`
}

// fuzzJSON prints the fuzz result as JSON and returns its status.
func (c cli) fuzzJSON(res *fuzzOutcome) int {
	rep := res.rep
	out := struct {
		Format     string         `json:"format"`  // reportFormat: report.schema.json's #/$defs/fuzz
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
	}{Format: reportFormat, Command: "fuzz", Status: res.status(), Traces: rep.Traces, Ops: rep.Ops, Skipped: rep.Skipped, SkippedOps: rep.SkippedOps,
		Twinned: rep.Twinned, TwinSkip: rep.TwinnedSkipped, Isolation: isolationNote(rep.FuzzStatus), FirstSkip: clean(rep.FirstSkip),
		ElapsedMS: rep.Elapsed.Milliseconds(), OpsPerSec: opsRate(rep.FuzzStatus), Incomplete: res.incomplete, Stopped: res.stoppedBy, Reproduce: res.repro}
	if res.broken != nil {
		out.Broken, out.Stderr = clean(res.broken.What), cleanText(res.broken.Stderr)
	}
	if f := rep.Found; f != nil {
		out.Found = &fuzzJSONFound{Seed: f.Seed, Index: f.Index, Original: len(f.Original.Ops), ShrinkRuns: f.ShrinkRuns,
			ShrinkStopped: res.shrinkStopped(), ShrinkStderr: cleanText(res.shrinkStderr()),
			Confirmation: string(f.Confirmation), Confirmed: res.confirmation(),
			FoundMS: f.FoundAfter.Milliseconds(), ShrinkMS: f.ShrinkTime.Milliseconds(), File: res.file, Case: f.Case,
			Fault: clean(f.Fault), Stderr: cleanText(f.Run.Stderr)}
		if f.Confirmation == search.Unconfirmed {
			out.Found.Confirmation = "unconfirmed"
		}
		if res.writeErr != nil {
			out.Found.WriteError = res.writeErr.Error()
		}
		if f.Divergence != nil {
			out.Found.Differences = differences(f.Divergence.Fields)
		}
	}
	if err := writeJSON(c.stdout, &out); err != nil {
		fmt.Fprintf(c.stderr, "limcheck fuzz: %v\n", err)
		return max(res.status(), exitUsage) // a worse outcome's status wins
	}
	return res.status()
}
