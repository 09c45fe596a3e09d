package report

import (
	"fmt"
	"io"
	"os"
	"time"
	"unicode/utf8"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/search"
)

// SaveCounterexample writes the counterexample res found as a vector file
// to res.File, by default limcheck-counterexample-COMPONENT-SEED.json
// (which it then sets). The port's name in the case's description is
// cleaned and cut to a vector's string limit (VEC-1), and the file is
// parsed back as replay will read it before it is written.
func SaveCounterexample(res *Fuzz) error {
	f := res.Report.Found
	f.Case.Description = fitText(Clean(f.Case.Description), conformance.MaxString)
	if res.File == "" {
		res.File = fmt.Sprintf("limcheck-counterexample-%s-%d.json", f.Trace.Component, f.Seed)
	}
	data, err := conformance.Encode(f.Case)
	if err == nil {
		_, err = conformance.Parse(data) // what replay will read
	}
	if err == nil {
		err = os.WriteFile(res.File, data, 0o644)
	}
	return err
}

// fitText returns s cut to at most limit bytes, at a rune boundary, saying
// how many bytes were cut.
func fitText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	note := fmt.Sprintf(" ... (%d bytes cut)", len(s)) // no shorter than the note for the bytes cut
	k := max(limit-len(note), 0)
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + fmt.Sprintf(" ... (%d bytes cut)", len(s)-k)
}

// FuzzProgress returns the progress line of a fuzz run that a terminal
// shows on w, redrawn at most every 100ms: search.FuzzOptions.Progress.
func FuzzProgress(w io.Writer) func(search.FuzzStatus) {
	var shown time.Duration
	return func(s search.FuzzStatus) {
		if s.Elapsed-shown < 100*time.Millisecond {
			return
		}
		shown = s.Elapsed
		fmt.Fprintf(w, "\rfuzz: %d traces, %d ops run (%.0f ops/s), %d traces (%d ops) skipped, %v ",
			s.Traces, s.Ops, float64(s.Ops)/max(s.Elapsed.Seconds(), 1e-9), s.Skipped, s.SkippedOps, s.Elapsed.Round(time.Second))
	}
}
