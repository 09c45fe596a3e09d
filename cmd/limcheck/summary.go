package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
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

// maxSummaryRows is how many failing cases a summary lists; the text
// report has them all.
const maxSummaryRows = 50

func (cf *ciFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&cf.summary, "summary", "", "also write a Markdown summary for a CI job's page to `FILE` (default: appended to $GITHUB_STEP_SUMMARY when it is set)")
	fs.StringVar(&cf.badge, "badge", "", "also write a shields.io endpoint badge (JSON) of the outcome to `FILE`")
}

// write writes the summary md and the badge b where cf says, and returns
// the first error.
func (cf *ciFlags) write(md string, b badge) error {
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

// badge is a shields.io endpoint badge: https://shields.io/badges/endpoint-badge.
type badge struct {
	SchemaVersion int    `json:"schemaVersion"` // always 1
	Label         string `json:"label"`
	Message       string `json:"message"`
	Color         string `json:"color"`
}

// outcomeWord is the headline of an exit status.
func outcomeWord(status int) string {
	switch status {
	case exitOK:
		return "passed"
	case exitFailed:
		return "FAILED"
	case exitUsage:
		return "ERROR (usage or input)"
	case exitBroken:
		return "BROKEN (the port broke the protocol)"
	case exitIncomplete:
		return "INCOMPLETE"
	}
	return fmt.Sprintf("STOPPED (signal %d)", status-128)
}

// newBadge is the badge of an outcome of status whose message, when it
// passed or failed, is msg.
func newBadge(status int, msg string) badge {
	b := badge{SchemaVersion: 1, Label: "limcheck spec " + specVersion(), Message: msg, Color: "brightgreen"}
	switch status {
	case exitOK:
	case exitFailed:
		b.Color = "red"
	case exitBroken:
		b.Message, b.Color = "port broke the protocol", "red"
	case exitIncomplete:
		b.Message, b.Color = "incomplete", "lightgrey"
	default:
		b.Message, b.Color = "error", "lightgrey"
	}
	return b
}

// runBadge is the badge of a run over reps: the cases passed of those run,
// every port's together.
func runBadge(status int, reps []*report) badge {
	passed, ran := 0, 0
	for _, rep := range reps {
		s := rep.Summary
		passed += s.Passed + s.ExpectedFailures
		ran += s.Passed + s.ExpectedFailures + s.Failed + s.UnexpectedPasses + s.Broken
	}
	return newBadge(status, fmt.Sprintf("%d/%d passed", passed, ran))
}

// runSummary is the Markdown summary of a run (or replay) of cmd over
// reps, one port each: the outcome, a row per port, and the failing cases.
func runSummary(cmd string, status int, reps []*report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### limcheck %s: %s\n\nspec %s, %s, exit status %d\n\n", cmd, outcomeWord(status), specVersion(), plural(len(reps[0].Cases), "case"), status)
	b.WriteString("| port | passed | failed | skipped | broken | not run |\n|:--|--:|--:|--:|--:|--:|\n")
	for _, rep := range reps {
		s := rep.Summary
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d |\n", mdCell(rep.title()), s.Passed+s.ExpectedFailures, s.Failed+s.UnexpectedPasses, s.Skipped, s.Broken, s.NotRun)
	}
	writeProblemRows(&b, reps)
	writeFailingRows(&b, reps)
	return b.String()
}

// writeProblemRows writes the table of the ports that broke the protocol
// or whose run is incomplete, and how.
func writeProblemRows(b *strings.Builder, reps []*report) {
	head := "\n| port | problem |\n|:--|:--|\n"
	for _, rep := range reps {
		for _, problem := range []string{rep.Broken, rep.Incomplete} {
			if problem != "" {
				fmt.Fprintf(b, "%s| %s | %s |\n", head, mdCell(rep.title()), mdCell(problem))
				head = ""
			}
		}
	}
}

// writeFailingRows writes the table of the cases that failed the run,
// the first maxSummaryRows of them.
func writeFailingRows(b *strings.Builder, reps []*report) {
	n := 0
	for _, rep := range reps {
		for _, c := range rep.Cases {
			if !failing(c.Verdict) {
				continue
			}
			if n == 0 {
				b.WriteString("\n| port | case | verdict | clauses | why |\n|:--|:--|:--|:--|:--|\n")
			}
			if n++; n <= maxSummaryRows {
				fmt.Fprintf(b, "| %s | `%s` | %s | %s | %s |\n", mdCell(rep.title()), mdCode(c.ID), c.Verdict, mdCell(strings.Join(c.Clauses, " ")), mdCell(cut(c.Why, 200)))
			}
		}
	}
	if n > maxSummaryRows {
		fmt.Fprintf(b, "\nand %d more failing cases: the job's log has them all\n", n-maxSummaryRows)
	}
}

// fuzzSummary is the Markdown summary of a fuzz run.
func fuzzSummary(res *fuzzOutcome, status int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### limcheck fuzz: %s\n\nspec %s, %s, exit status %d\n\n", outcomeWord(status), specVersion(), fuzzCounts(res.rep.FuzzStatus), status)
	if f := res.rep.Found; f != nil {
		fmt.Fprintf(&b, "a divergence: trace %d of seed %d, shrunk to %d ops\n\n| case | clauses | file |\n|:--|:--|:--|\n| `%s` | %s | `%s` |\n\n",
			f.Index, f.Seed, len(f.Shrunk.Ops), mdCode(f.Case.ID), mdCell(strings.Join(f.Case.Clauses, " ")), mdCode(cmp.Or(res.file, "not written")))
	}
	b.WriteString("| | |\n|:--|:--|\n")
	for _, row := range [][2]string{{"incomplete", res.incomplete}, {"broken", brokenWhat(res)}} {
		if row[1] != "" {
			fmt.Fprintf(&b, "| %s | %s |\n", row[0], mdCell(row[1]))
		}
	}
	fmt.Fprintf(&b, "| reproduce | `%s` |\n", mdCode(res.repro))
	return b.String()
}

// brokenWhat is how the port broke the protocol in res, or "".
func brokenWhat(res *fuzzOutcome) string {
	if res.broken == nil {
		return ""
	}
	return "the port broke the protocol: " + clean(res.broken.What)
}

// fuzzBadge is the badge of a fuzz run.
func fuzzBadge(res *fuzzOutcome, status int) badge {
	if res.rep.Found != nil {
		return newBadge(exitFailed, "divergence found")
	}
	return newBadge(status, fmt.Sprintf("no divergence in %d ops", res.rep.Ops))
}

// mdCell is s, text from a port or a vector (cleaned already: no control
// characters), made safe in a cell of a Markdown table: no character
// starts inline markup, a link, a tag or an entity, or ends the cell (a
// cell starts no block, so # - + . need nothing).
func mdCell(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '|', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCode is s made safe inside a `code span` of a table cell: a backtick
// would end the span, so it becomes a quote, and a bar the cell, so it is
// escaped (GitHub's tables read \| in a code span as |).
func mdCode(s string) string {
	return strings.NewReplacer("`", "'", "|", `\|`).Replace(s)
}

// fuzzCI writes the summary and the badge of the fuzz run res that ends
// with status, and returns the status: 2 when they cannot be written and
// the run passed.
func (c cli) fuzzCI(cf *ciFlags, res *fuzzOutcome, status int) int {
	if err := cf.write(fuzzSummary(res, status), fuzzBadge(res, status)); err != nil {
		fmt.Fprintf(c.stderr, "limcheck fuzz: %v\n", err)
		return worse(status, exitUsage)
	}
	return status
}
