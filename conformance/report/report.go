package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/oracle"
)

// The verdicts a report shows, as its strings: conformance/judge's, the
// one vocabulary, with a failure --expect-fail lists (xfail) and a listed
// case that passed (xpass).
const (
	vPass   = string(judge.Pass)
	vFail   = string(judge.Fail)
	vSkip   = string(judge.Skip)
	vXFail  = string(judge.XFail)
	vXPass  = string(judge.XPass)
	vBroken = string(judge.Broken)
	vNotRun = string(judge.NotRun)
)

// Format is the value of a --json report's "format": its version.
// report.schema.json ([Schema]) describes it; a change an old reader
// would misread gets a new version.
const Format = "limcheck-report/1"

// Run is one run's report, in every form. Its JSON form (--json) is
// report.schema.json's "run": deterministic, so that two runs
// of one command on one port differ only in summary.elapsed_ms.
type Run struct {
	Format       string          `json:"format"`  // Format
	Command      string          `json:"command"` // run or replay
	Status       int             `json:"status"`  // the exit status the run calls for
	Port         Port            `json:"port"`
	SpecVersion  string          `json:"spec_version"`
	Summary      Summary         `json:"summary"`
	Incomplete   string          `json:"incomplete,omitempty"`    // why the run is incomplete: nothing was checked, or its --timeout passed
	Broken       string          `json:"broken,omitempty"`        // how the port broke the protocol
	BrokenAt     string          `json:"broken_at,omitempty"`     // when: atHandshake, atRun, atShutdown
	BrokenStderr []string        `json:"broken_stderr,omitempty"` // the port's stderr then, clean lines
	Cases        []Case          `json:"cases"`
	Elapsed      time.Duration   `json:"-"`
	AllowEmpty   bool            `json:"-"` // --allow-empty: nothing checked is status 0
	TimedOut     bool            `json:"-"` // the run's --timeout passed: Incomplete says after what (never status 0)
	expectFail   map[string]bool // the IDs --expect-fail lists
	room         int             // bytes of port text the report may still keep (maxPortText)
	CannotRun    bool            `json:"-"` // the port's command could not run (run over several ports): status 2
	Signal       int             `json:"-"` // the signal that stopped limcheck during the run: status 128 + it
	StoppedBy    string          `json:"-"` // what stopped the run before its NOT RUN cases, when not the port or --timeout: --fail-fast, a signal
	Streamed     int             `json:"-"` // the cases the text report printed as they finished (live)
	HeadShown    bool            `json:"-"` // the text report's head is printed
}

// Port is the port's hello, clean.
type Port struct {
	Name       string   `json:"name"`
	Version    string   `json:"version"`
	Components []string `json:"components"`
}

// Summary counts cases by verdict.
type Summary struct {
	Passed           int `json:"passed"`
	Failed           int `json:"failed"`
	Skipped          int `json:"skipped"`
	ExpectedFailures int `json:"expected_failures"`
	UnexpectedPasses int `json:"unexpected_passes"`
	Broken           int `json:"broken"`
	NotRun           int `json:"not_run"`
	ElapsedMS        int `json:"elapsed_ms"`
}

// Case is one case in a report.
type Case struct {
	ID          string     `json:"id"`
	Component   string     `json:"component"`
	Level       string     `json:"level"`
	Clauses     []string   `json:"clauses"`
	Description string     `json:"description"`
	Verdict     string     `json:"verdict"`
	Why         string     `json:"why,omitempty"`
	OpIndex     *int       `json:"op_index,omitempty"` // the diverging op (-1: open)
	Op          *oracle.Op `json:"op,omitempty"`
	// Expected and Got are the results at the diverging op (for open: {}
	// or {"error":"config"}); nil where an outcome has none.
	Expected    json.RawMessage `json:"expected,omitempty"`
	Got         json.RawMessage `json:"got,omitempty"`
	Differences []Difference    `json:"differences,omitempty"` // field by field, sorted
	Stderr      *Stderr         `json:"stderr,omitempty"`      // only under a case that failed or broke
	Context     string          `json:"-"`                     // for people: the ops up to the divergence, one JSON line each
	Seconds     float64         `json:"-"`                     // the case's share of the run's time (judge.CaseResult.Elapsed)
	Timeline    []point         `json:"-"`                     // the ops up to the divergence with both sides' results (--html)
	Unclaimed   bool            `json:"-"`                     // skipped because the port's hello does not claim its component
}

// Difference is one field whose value differs at the diverging op; a
// side without the field has no value.
type Difference struct {
	Field    string          `json:"field"`
	Expected json.RawMessage `json:"expected,omitempty"`
	Got      json.RawMessage `json:"got,omitempty"`
}

// Stderr is the port's stderr shown under a failing or broken case:
// its lines, cleaned, and where they are from.
type Stderr struct {
	From  string   `json:"from"` // stderrAlone, stderrWindow or stderrLast
	Lines []string `json:"lines"`
	// Alone is the case's verdict when it ran alone, when that was not a
	// failure: its failure depends on the cases before it.
	Alone string `json:"alone_verdict,omitempty"`
}

// Where the stderr shown under a case is from (caseStderr.From). In a run
// up to 256 requests are in flight, so what the port wrote between a
// case's first request and its last reply may be its neighbours' too: the
// first DefaultAlone failing cases (run --alone) are re-run alone, each in
// a fresh port; run --alone takes at most MaxAlone, each a port start.
const (
	StderrAlone  = "alone"  // a fresh port that ran only this case
	stderrWindow = "window" // the run, between the case's first request and its last reply
	stderrLast   = "last"   // the run's last bytes, when the port broke during the case
	DefaultAlone = 20
	MaxAlone     = 1000
)

// label is the heading of the stderr.
func (s *Stderr) label() string {
	switch s.From {
	case StderrAlone:
		if s.Alone != "" {
			return "port stderr while this case ran alone (alone, it was " + s.Alone + ")"
		}
		return "port stderr while this case ran alone"
	case stderrLast:
		return "port stderr before it broke (its last lines)"
	}
	return "port stderr from the window around this case"
}

// text is the stderr under its label, one line each.
func (s *Stderr) text() string {
	if len(s.Lines) == 0 {
		return s.label() + ": none"
	}
	return s.label() + ":\n" + strings.Join(s.Lines, "\n")
}

// SetStderr shows stderr, from where from says, under the case cr, with
// the case's verdict alone when it is news; nothing when both are empty.
func (rep *Run) SetStderr(cr *Case, from, stderr, alone string) {
	cr.Stderr = nil
	if stderr == "" && alone == "" {
		return
	}
	cr.Stderr = &Stderr{From: from, Lines: []string{}, Alone: alone}
	if stderr != "" {
		text := rep.keep(strings.Join(CleanLines(lastBytes(stderr, maxStderr)), "\n"))
		cr.Stderr.Lines = strings.Split(text, "\n")
	}
}

// The most port text a report keeps: per case, and in all. Beyond them
// it says what it cut. Fault and skip messages, results and the hello are
// already cut where they are read (conformance/protocol).
//
// The room of maxPortText is shared so that no case loses what tells it
// apart: every case keeps, whatever the room, its ID, component, level,
// clauses, description (the vector's text, at most 1 KiB by VEC-1),
// verdict, the first maxWhyKept bytes of its why, and at a divergence the
// values of its first differing field. The room pays, case by case in
// order, for the rest: the why past maxWhyKept, the whole expected and got
// results, the ops before the divergence, and the stderr. So a port that
// fills the room with its first cases costs the later ones their stderr
// and whole results, never what failed and how.
const (
	maxStderr     = 64 << 10 // bytes of a case's stderr: its last ones
	maxContextOps = 20       // ops shown before the diverging one
	maxPortText   = 8 << 20  // bytes of port and vector text in one report, past what each case keeps
	maxWhyKept    = 1 << 10  // bytes of a case's why kept whatever the room
)

// New builds the report of results.
func New(h protocol.Hello, results []judge.CaseResult, expectFail map[string]bool, elapsed time.Duration) *Run {
	rep := Start(h, expectFail)
	rep.Add(results)
	rep.Finish(elapsed)
	return rep
}

// Start begins the report of a run on the port h; add takes in its
// results, batch by batch, and finish closes it. Every string of it that
// a port or a vector file controls is cleaned as it comes in, once
// (escape.go): the hello, the case's text, the why (fault and skip
// messages), the stderr, and the divergence's JSON (jsonSafe); the writers
// print the report as it is.
func Start(h protocol.Hello, expectFail map[string]bool) *Run {
	return &Run{Format: Format, Port: cleanHello(h), SpecVersion: SpecVersion(), Cases: []Case{}, expectFail: expectFail, room: maxPortText}
}

// Add takes in results.
func (rep *Run) Add(results []judge.CaseResult) {
	for _, r := range results {
		cr := rep.caseOf(r)
		rep.count(cr.Verdict)
		rep.Cases = append(rep.Cases, cr)
	}
}

// Finish closes the report of a run that took elapsed.
func (rep *Run) Finish(elapsed time.Duration) {
	rep.Elapsed = elapsed
	rep.Summary.ElapsedMS = int(elapsed.Milliseconds())
	rep.Incomplete = rep.nothingChecked()
}

// caseOf is the report of one result.
func (rep *Run) caseOf(r judge.CaseResult) Case {
	cr := Case{ID: Clean(r.Case.ID), Component: Clean(string(r.Case.Component)), Level: Clean(string(r.Case.Level)), Clauses: CleanAll(r.Case.Clauses),
		Description: Clean(r.Case.Description), Why: rep.keepAtLeast(Clean(r.Why), maxWhyKept), Seconds: r.Elapsed.Seconds()}
	v := r.Verdict
	if rep.expectFail[r.Case.ID] {
		v = v.Listed()
	}
	if v == judge.Skip {
		cr.Unclaimed = !slices.Contains(rep.Port.Components, cr.Component)
	}
	if v == judge.XPass {
		cr.Why = "passed, but -expect-fail lists it: remove it from the list"
	}
	cr.Verdict = string(v)
	switch cr.Verdict {
	case vFail:
		rep.SetStderr(&cr, stderrWindow, r.Stderr, "")
	case vBroken:
		rep.SetStderr(&cr, stderrLast, r.Stderr, "")
	}
	if d := r.Divergence; d != nil {
		i := d.Index
		cr.OpIndex = &i
		if i >= 0 && i < len(r.Case.Ops) {
			op := r.Case.Ops[i].Op
			cr.Op = &op
		}
		diff := conformance.Differ(r.Case.Trace(), d)
		cr.Context = rep.keep(jsonSafe(lastOps(diff.Context, maxContextOps)))
		if !strings.HasSuffix(cr.Context, "\n") {
			cr.Context += "\n" // a cut one: its note on a line of its own
		}
		cr.Expected, cr.Got = rep.keepJSON(diff.Want), rep.keepJSON(diff.Got)
		cr.Differences = differences(d.Fields)
		if (cr.Expected == nil) != (diff.Want == "(no result)") || (cr.Got == nil) != (diff.Got == "(no result)") {
			cr.Why += fmt.Sprintf(" (its results are not kept, only their first difference: the report's limit of %d MiB of port text is reached)", maxPortText>>20)
			cr.Expected, cr.Got = nil, nil
			cr.Differences = differences(d.Fields[:min(1, len(d.Fields))])
		}
		cr.Timeline = timeline(r.Case, i, r.Got)
	}
	return cr
}

// keepJSON returns the JSON text js (or nil for "(no result)") if the
// report has room for it, else nil: a JSON value is kept whole or not at
// all. Its strings are bounded already (conformance/protocol cuts a
// result's).
func (rep *Run) keepJSON(js string) json.RawMessage {
	if !json.Valid([]byte(js)) || len(js) > rep.room {
		return nil
	}
	rep.room -= len(js)
	return json.RawMessage(jsonSafe(js))
}

// differences returns the fields of a divergence (oracle.Divergence's)
// as the report shows them: each value as JSON, none for a side without
// it.
func differences(fields []oracle.Field) []Difference {
	out := make([]Difference, len(fields))
	for i, f := range fields {
		out[i] = Difference{Field: Clean(f.Name), Expected: fieldJSON(f.Want), Got: fieldJSON(f.Got)}
	}
	return out
}

// fieldJSON is a result field's value as JSON, in bytes no terminal acts
// on; nil for no value.
func fieldJSON(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil { // a result field always marshals
		return nil
	}
	return json.RawMessage(jsonSafe(string(b)))
}

// keep returns s, clean text for the report, if the report has room for
// it; else as much of it as fits, saying what was cut (maxPortText).
func (rep *Run) keep(s string) string {
	if len(s) <= rep.room {
		rep.room -= len(s)
		return s
	}
	k := rep.room
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	rep.room = 0
	return fmt.Sprintf("%s... (%d bytes cut: the report's limit of %d MiB of port text is reached)", s[:k], len(s)-k, maxPortText>>20)
}

// keepAtLeast is keep, but the first floor bytes of s (to a rune start)
// are kept whatever the room, and only the rest is paid from it.
func (rep *Run) keepAtLeast(s string, floor int) string {
	if len(s) <= floor {
		return s
	}
	for floor > 0 && !utf8.RuneStart(s[floor]) {
		floor--
	}
	return s[:floor] + rep.keep(s[floor:])
}

// lastBytes returns the last limit bytes of s (from a line start when
// there is one), saying how many were cut.
func lastBytes(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	tail := s[len(s)-limit:]
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
		tail = tail[i+1:]
	}
	return fmt.Sprintf("(%d earlier bytes cut)\n%s", len(s)-len(tail), tail)
}

// lastOps returns a divergence's context (its first line the component and
// config, then one line per op) with at most n ops before the diverging
// one, saying how many earlier ones were left out.
func lastOps(context string, n int) string {
	lines := strings.SplitAfter(context, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= n+2 {
		return context
	}
	ops := lines[len(lines)-n-1:]
	return lines[0] + fmt.Sprintf("      (%d earlier ops)\n", len(lines)-1-len(ops)) + strings.Join(ops, "")
}

// cleanHello is h with every field clean.
func cleanHello(h protocol.Hello) Port {
	out := Port{Name: Clean(h.Name), Version: Clean(h.Version), Components: []string{}}
	for _, c := range h.Components {
		out.Components = append(out.Components, Clean(string(c)))
	}
	return out
}

// CleanAll returns every string of ss clean.
func CleanAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Clean(s)
	}
	return out
}

// cleanText is multi-line text a port controls (its stderr) as clean lines
// joined by LF.
func cleanText(s string) string {
	if s == "" {
		return ""
	}
	return strings.Join(CleanLines(s), "\n")
}

// Where in a run the port broke the protocol (report.BrokenAt).
const (
	AtHandshake = "handshake" // before any case: its hello
	AtRun       = "run"       // while cases ran: the case in flight is BROKEN, if one is known
	AtShutdown  = "shutdown"  // after its last reply: its exit
)

// Breaks records that the port broke the protocol at a phase (atHandshake,
// atRun, atShutdown): what, its diagnosis, and stderr, the port's stderr
// then; both cleaned.
func (rep *Run) Breaks(at, what, stderr string) {
	rep.BrokenAt, rep.Broken = at, Clean(what)
	if stderr != "" {
		rep.BrokenStderr = CleanLines(lastBytes(stderr, maxStderr))
	}
}

// nothingChecked says why no case was executed, or is "" when one was:
// every case skipped, by the port or because it claims none of their
// components.
//
// spec PROTO-10: "4 when the run is incomplete: no case was executed (the port skipped every case, or claims none of their components"
func (rep *Run) nothingChecked() string {
	s := rep.Summary
	if s.Passed+s.Failed+s.ExpectedFailures+s.UnexpectedPasses+s.Broken+s.NotRun > 0 {
		return ""
	}
	var theirs []string
	for _, comp := range oracle.Components() {
		has := slices.ContainsFunc(rep.Cases, func(c Case) bool { return c.Component == string(comp) })
		if has && slices.Contains(rep.Port.Components, string(comp)) {
			return "nothing was checked: the port skipped every case"
		}
		if has {
			theirs = append(theirs, string(comp))
		}
	}
	return fmt.Sprintf("nothing was checked: the port claims none of the components of the selected cases (it claims %s; they are of %s)",
		strings.Join(rep.Port.Components, ", "), strings.Join(theirs, ", "))
}

func (rep *Run) count(v string) {
	s := &rep.Summary
	switch v {
	case vPass:
		s.Passed++
	case vFail:
		s.Failed++
	case vSkip:
		s.Skipped++
	case vXFail:
		s.ExpectedFailures++
	case vXPass:
		s.UnexpectedPasses++
	case vBroken:
		s.Broken++
	default:
		s.NotRun++
	}
}

// ExitStatus is the exit status the report calls for.
func (rep *Run) ExitStatus() int {
	switch {
	case rep.Signal != 0:
		return 128 + rep.Signal
	case rep.Broken != "":
		return ExitBroken
	case rep.CannotRun:
		return ExitUsage
	case rep.Summary.Failed > 0 || rep.Summary.UnexpectedPasses > 0:
		return ExitFailed
	case rep.Incomplete != "" && (rep.TimedOut || !rep.AllowEmpty):
		return ExitIncomplete
	}
	return ExitOK
}

// Closing is the closing line: "N passed, M failed, K skipped", then the
// other counts that are not zero.
func (rep *Run) Closing() string {
	s := rep.Summary
	line := fmt.Sprintf("%d passed, %d failed, %d skipped", s.Passed, s.Failed, s.Skipped)
	for _, x := range []struct {
		n             int
		one, multiple string
	}{
		{s.ExpectedFailures, "expected failure", "expected failures"},
		{s.UnexpectedPasses, "unexpected pass", "unexpected passes"},
		{s.Broken, "broken", "broken"},
		{s.NotRun, "not run", "not run"},
	} {
		switch {
		case x.n == 1:
			line += ", 1 " + x.one
		case x.n > 1:
			line += fmt.Sprintf(", %d %s", x.n, x.multiple)
		}
	}
	return line
}

// WriteText writes the human report: its head, each case, its tail.
func WriteText(w io.Writer, rep *Run, quiet bool) {
	if !rep.HeadShown {
		WriteHead(w, rep, len(rep.Cases))
	}
	for _, c := range rep.Cases[rep.Streamed:] {
		WriteCase(w, c, quiet)
	}
	if !quiet {
		writeUnclaimed(w, rep)
	}
	writeTail(w, rep)
}

// writeUnclaimed writes one line for each component whose cases were
// skipped because the port does not claim it: they are not listed one by
// one.
func writeUnclaimed(w io.Writer, rep *Run) {
	var order []string
	counts := map[string]int{}
	for _, c := range rep.Cases {
		if c.Verdict == vSkip && c.Unclaimed {
			if counts[c.Component] == 0 {
				order = append(order, c.Component)
			}
			counts[c.Component]++
		}
	}
	for _, comp := range order {
		fmt.Fprintf(w, "SKIP   %s: the port does not implement %s (its hello lists %s)\n", Plural(counts[comp], comp+" case"), comp, listOrNone(rep.Port.Components))
	}
}

// Plural is "1 case" or "n cases" for n and a singular noun.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// listOrNone joins names with commas, or is "none".
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// WriteHead writes the report's first line, for a run of n cases.
func WriteHead(w io.Writer, rep *Run, n int) {
	fmt.Fprintf(w, "limcheck: port %s (%s), spec %s, %s\n", rep.Label(), protocol.Protocol, rep.SpecVersion, Plural(n, "case"))
}

// WriteCase writes one case of the human report: nothing for a case not
// run (the tail counts them) or of a component the port does not claim
// (writeUnclaimed sums them up), a line for one that passed or skipped
// (with why), and a failure with its description, why, divergence and
// stderr.
func WriteCase(w io.Writer, c Case, quiet bool) {
	if c.Verdict == vNotRun || c.Unclaimed || (quiet && (c.Verdict == vPass || c.Verdict == vSkip || c.Verdict == vXFail)) {
		return
	}
	head := fmt.Sprintf("%-6s %s [%s]", c.Verdict, c.ID, strings.Join(c.Clauses, " "))
	if c.Verdict == vSkip && c.Why != "" {
		head += ": " + c.Why
	}
	fmt.Fprintln(w, head)
	if c.Verdict == vPass || c.Verdict == vSkip {
		return
	}
	fmt.Fprintf(w, "       %s\n", c.Description)
	if c.Why != "" {
		fmt.Fprintf(w, "       %s\n", c.Why)
	}
	if c.Context != "" {
		fmt.Fprint(w, indent(c.difference().Text("expected", "got"), "       "))
	}
	if s := c.Stderr; s != nil && len(s.Lines) == 0 {
		fmt.Fprintf(w, "       %s: none\n", s.label())
	} else if s != nil {
		fmt.Fprintf(w, "       %s:\n", s.label())
		fmt.Fprint(w, indent(lastLines(strings.Join(s.Lines, "\n"), 20), "       | "))
	}
}

// writeTail writes what follows the cases: the cases not run, why the
// run is incomplete or broken, and the closing line.
func writeTail(w io.Writer, rep *Run) {
	if n := rep.Summary.NotRun; n > 0 {
		fmt.Fprintf(w, "NOT RUN %s: %s before them\n", Plural(n, "case"), rep.stopper())
	}
	if rep.Incomplete != "" {
		fmt.Fprintln(w, rep.Incomplete)
	}
	if rep.Broken != "" {
		fmt.Fprintf(w, "the port broke the protocol: %s\n", rep.Broken)
		if len(rep.BrokenStderr) > 0 {
			fmt.Fprint(w, indent(lastLines(strings.Join(rep.BrokenStderr, "\n"), 20), "  | "))
		}
	}
	fmt.Fprintln(w, rep.Closing())
}

// stopper names what stopped the run before its NOT RUN cases.
func (rep *Run) stopper() string {
	if rep.StoppedBy != "" {
		return rep.StoppedBy
	}
	if rep.TimedOut {
		return "the run's --timeout passed"
	}
	return "the port broke the protocol"
}

// difference is the case's divergence for people.
//
// A case whose results the report did not keep shows their first
// difference: the field and its two values, as objects of that one field.
func (c Case) difference() conformance.Difference {
	d := conformance.Difference{Context: c.Context, Want: resultText(c.Expected), Got: resultText(c.Got)}
	for _, f := range c.Differences {
		d.Fields = append(d.Fields, f.Field)
	}
	if c.Expected == nil && c.Got == nil && len(c.Differences) > 0 {
		f := c.Differences[0]
		d.Want, d.Got = fieldText(f.Field, f.Expected), fieldText(f.Field, f.Got)
	}
	return d
}

// fieldText is the JSON object of one field, {} for a side without it,
// and a note that the result's other fields are not kept.
func fieldText(field string, v json.RawMessage) string {
	if v == nil {
		return "{} (without it; the result's other fields are not kept)"
	}
	key, _ := json.Marshal(field)
	return fmt.Sprintf("{%s:%s} (its other fields are not kept)", key, v)
}

// resultText is a result's JSON as the text report shows it.
func resultText(r json.RawMessage) string {
	if r == nil {
		return "(no result)"
	}
	return string(r)
}

// PrintStderr prints a port's stderr, its last lines cleaned, under a
// heading.
func PrintStderr(w io.Writer, s string) {
	if s == "" {
		return
	}
	fmt.Fprintln(w, "port stderr (last lines):")
	fmt.Fprint(w, indent(lastLines(cleanText(s), 20), "  | "))
}

// indent prefixes every line of s; the result ends in a newline.
func indent(s, prefix string) string {
	s = strings.TrimRight(s, "\n")
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix) + "\n"
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[%d earlier lines]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// WriteJSON writes v as one JSON document, in bytes no terminal acts on
// (jsonSafe).
func WriteJSON(w io.Writer, v any) error {
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, jsonSafe(string(out))+"\n")
	return err
}
