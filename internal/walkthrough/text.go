package walkthrough

import (
	"fmt"
	"io"
)

// WriteText prints examples for limcheck walk: each example's ID and
// title, then its steps (with quiet, only the failed ones), and the
// closing line. It returns the number of failed steps.
func WriteText(w io.Writer, examples []Example, quiet bool) int {
	passed, failed := 0, 0
	for _, e := range examples {
		if !quiet {
			fmt.Fprintf(w, "%s: %s\n", e.ID, e.Title)
		}
		for _, s := range e.Steps {
			if s.OK() {
				passed++
			} else {
				failed++
			}
			writeStep(w, e.ID, s, quiet)
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed)
	return failed
}

// writeStep prints one step: every step normally, only failures when quiet.
func writeStep(w io.Writer, id string, s Step, quiet bool) {
	switch {
	case !s.OK():
		fmt.Fprintf(w, "  FAIL %s %s\n       got  %s\n       want %s\n", id, s.Call, s.Got, s.Want)
	case !quiet:
		fmt.Fprintf(w, "  ok   %s = %s\n", s.Call, s.Got)
	}
}

// WriteBrief prints examples for limcheck's default run: a line for each
// failed step and one closing line. It returns the number of failed steps.
func WriteBrief(w io.Writer, examples []Example) int {
	passed, failed := 0, 0
	for _, e := range examples {
		for _, s := range e.Steps {
			if s.OK() {
				passed++
				continue
			}
			failed++
			fmt.Fprintf(w, "FAIL   %s %s: got %s, spec.md says %s\n", e.ID, s.Call, s.Got, s.Want)
		}
	}
	fmt.Fprintf(w, "spec.md worked example and findings, through the model: %d steps: %d passed, %d failed\n", passed+failed, passed, failed)
	return failed
}
