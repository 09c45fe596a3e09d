package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/limcheck/limcheck/conformance/report"
)

// ciFlags choose the two reports a CI job shows besides the log: a
// Markdown summary for the job's page and a shields.io endpoint badge.
type ciFlags struct {
	summary string // --summary FILE; "": $GITHUB_STEP_SUMMARY when it is set
	badge   string // --badge FILE
}

// stepSummaryEnv is the variable GitHub Actions sets to the file a step
// appends its Markdown summary to.
const stepSummaryEnv = "GITHUB_STEP_SUMMARY"

func (cf *ciFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&cf.summary, "summary", "", "also write a Markdown summary for a CI job's page to `FILE` (default: appended to $GITHUB_STEP_SUMMARY when it is set)")
	fs.StringVar(&cf.badge, "badge", "", "also write a shields.io endpoint badge (JSON) of the outcome to `FILE`")
}

// write writes the summary md and the badge b where cf says, and returns
// the first error.
func (cf *ciFlags) write(md string, b report.Badge) error {
	var errs []error
	switch {
	case cf.summary != "":
		errs = append(errs, os.WriteFile(cf.summary, []byte(md), 0o644))
	case os.Getenv(stepSummaryEnv) != "":
		errs = append(errs, appendFile(os.Getenv(stepSummaryEnv), md))
	}
	if cf.badge != "" {
		data, err := json.Marshal(b)
		if err == nil {
			err = os.WriteFile(cf.badge, append(data, '\n'), 0o644)
		}
		errs = append(errs, err)
	}
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("-summary, -badge: %w", err)
		}
	}
	return nil
}

// appendFile appends text to the file name, creating it.
func appendFile(name, text string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// fuzzCI writes the summary and the badge of the fuzz run res that ends
// with status, and returns the status: 2 when they cannot be written and
// the run passed.
func (c cli) fuzzCI(cf *ciFlags, res *report.Fuzz, status int) int {
	if err := cf.write(report.FuzzSummary(res, status), report.FuzzBadge(res, status)); err != nil {
		fmt.Fprintf(c.stderr, "limcheck fuzz: %v\n", err)
		return report.Worse(status, report.ExitUsage)
	}
	return status
}
