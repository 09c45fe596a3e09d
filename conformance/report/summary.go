package report

import (
	"cmp"
	"fmt"
	"strings"
)

// maxSummaryRows is how many failing cases a summary lists; the text
// report has them all.
const maxSummaryRows = 50

// Badge is a shields.io endpoint badge: https://shields.io/badges/endpoint-badge.
type Badge struct {
	SchemaVersion int    `json:"schemaVersion"` // always 1
	Label         string `json:"label"`
	Message       string `json:"message"`
	Color         string `json:"color"`
}

// outcomeWord is the headline of an exit status.
func outcomeWord(status int) string {
	switch status {
	case ExitOK:
		return "passed"
	case ExitFailed:
		return "FAILED"
	case ExitUsage:
		return "ERROR (usage or input)"
	case ExitBroken:
		return "BROKEN (the port broke the protocol)"
	case ExitIncomplete:
		return "INCOMPLETE"
	}
	return fmt.Sprintf("STOPPED (signal %d)", status-128)
}

// newBadge is the badge of an outcome of status whose message, when it
// passed or failed, is msg.
func newBadge(status int, msg string) Badge {
	b := Badge{SchemaVersion: 1, Label: "limcheck spec " + SpecVersion(), Message: msg, Color: "brightgreen"}
	switch status {
	case ExitOK:
	case ExitFailed:
		b.Color = "red"
	case ExitBroken:
		b.Message, b.Color = "port broke the protocol", "red"
	case ExitIncomplete:
		b.Message, b.Color = "incomplete", "lightgrey"
	default:
		b.Message, b.Color = "error", "lightgrey"
	}
	return b
}

// RunBadge is the badge of a run over reps: the cases passed of those run,
// every port's together.
func RunBadge(status int, reps []*Run) Badge {
	passed, ran := 0, 0
	for _, rep := range reps {
		s := rep.Summary
		passed += s.Passed + s.ExpectedFailures
		ran += s.Passed + s.ExpectedFailures + s.Failed + s.UnexpectedPasses + s.Broken
	}
	return newBadge(status, fmt.Sprintf("%d/%d passed", passed, ran))
}

// RunSummary is the Markdown summary of a run (or replay) of cmd over
// reps, one port each: the outcome, a row per port, and the failing cases.
func RunSummary(cmd string, status int, reps []*Run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### limcheck %s: %s\n\nspec %s, %s, exit status %d\n\n", cmd, outcomeWord(status), SpecVersion(), Plural(len(reps[0].Cases), "case"), status)
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
func writeProblemRows(b *strings.Builder, reps []*Run) {
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
func writeFailingRows(b *strings.Builder, reps []*Run) {
	n := 0
	for _, rep := range reps {
		for _, c := range rep.Cases {
			if !Failing(c.Verdict) {
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

// FuzzSummary is the Markdown summary of a fuzz run.
func FuzzSummary(res *Fuzz, status int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### limcheck fuzz: %s\n\nspec %s, %s, exit status %d\n\n", outcomeWord(status), SpecVersion(), FuzzCounts(res.Report.FuzzStatus), status)
	if f := res.Report.Found; f != nil {
		fmt.Fprintf(&b, "a divergence: trace %d of seed %d, shrunk to %d ops\n\n| case | clauses | file |\n|:--|:--|:--|\n| `%s` | %s | `%s` |\n\n",
			f.Index, f.Seed, len(f.Shrunk.Ops), mdCode(f.Case.ID), mdCell(strings.Join(f.Case.Clauses, " ")), mdCode(cmp.Or(res.File, "not written")))
	}
	b.WriteString("| | |\n|:--|:--|\n")
	for _, row := range [][2]string{{"incomplete", res.Incomplete}, {"broken", brokenWhat(res)}} {
		if row[1] != "" {
			fmt.Fprintf(&b, "| %s | %s |\n", row[0], mdCell(row[1]))
		}
	}
	fmt.Fprintf(&b, "| reproduce | `%s` |\n", mdCode(res.Repro))
	return b.String()
}

// brokenWhat is how the port broke the protocol in res, or "".
func brokenWhat(res *Fuzz) string {
	if res.Broken == nil {
		return ""
	}
	return "the port broke the protocol: " + Clean(res.Broken.What)
}

// FuzzBadge is the badge of a fuzz run.
func FuzzBadge(res *Fuzz, status int) Badge {
	if res.Report.Found != nil {
		return newBadge(ExitFailed, "divergence found")
	}
	return newBadge(status, fmt.Sprintf("no divergence in %d ops", res.Report.Ops))
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
