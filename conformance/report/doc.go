// Package report is limcheck's reports: it turns what the judge decided
// about a run (conformance/judge's case results) and what the differential
// search found (conformance/search's fuzz report) into every form limcheck
// prints or writes, and owns their formats: limcheck-report/1 ([Format]),
// limcheck-runs/1 ([RunsFormat]) and their JSON Schema, report.schema.json
// ([Schema], [SchemaFile]). cmd/limcheck parses flags, runs ports and
// calls this package; it renders nothing itself.
//
// Every string a port or a vector file controls is cleaned once, as it
// comes in ([Clean], [CleanLines], [CleanAll]): no form can carry a byte a
// terminal or viewer acts on ([ByteClean] is that property, for tests).
// The JSON forms are deterministic: two runs of one command on one port
// differ only in their elapsed times.
//
// # API
//
//   - A run on one port: [Start] begins its [Run], [Run.Add] takes in
//     results batch by batch and [Run.Finish] closes it; [New] does all
//     three. [NotStarted] is the report of a port that never ran. A Run
//     holds the [Port]'s hello, a [Summary] of counts and a [Case] per
//     case, each with its field-by-field [Difference]s and the port's
//     [Stderr] under a failing case ([Run.SetStderr]; [StderrAlone] and
//     its siblings say where from); [Run.Breaks] records a protocol break
//     ([AtHandshake], [AtRun], [AtShutdown]). [Run.ExitStatus] is the exit
//     status it calls for, [Run.Closing] its closing line, [Run.Label] its
//     port's name for people.
//   - A run as it goes: [Live] ([NewLive], [LiveOptions]) streams the text
//     case by case, draws a terminal's progress line, runs the cases in
//     batches ([Live.RunInBatches], [BatchOps]) and closes the report of
//     a run a signal stops ([Live.Interrupt]).
//   - A port that cannot start: [PortProblem] says why, and its status.
//   - A run over several ports: [Runs], one Run per port, [Runs.ExitStatus].
//   - A fuzz run: [Fuzz] is how it ended; [Fuzz.Status] its exit status;
//     [SaveCounterexample] writes what it found as a vector file, and
//     [FuzzProgress] draws a terminal's progress line.
//   - Text: [WriteText], [WriteHead], [WriteCase] (a run, streamed case by
//     case), [WriteMatrix] (several ports side by side), [WriteFuzzText],
//     [WriteCounterexample], [DivergenceText], [PrintStderr], and the
//     phrases they share: [Plural], [FuzzCounts], [OpsRate], [OpLabel],
//     [ShellQuote].
//   - JSON: [WriteJSON] (a Run or Runs), [WriteFuzzJSON].
//   - JUnit XML: [WriteJUnit]. HTML, one self-contained page with each
//     failure's timeline: [WriteHTML], [WriteFoundHTML] (a counterexample);
//     [Slug] is a Markdown heading's anchor, as the page links spec.md.
//   - CI: [RunSummary] and [FuzzSummary], Markdown for a job's page;
//     [RunBadge] and [FuzzBadge], a shields.io endpoint [Badge].
//   - Exit statuses (spec PROTO-10): [ExitOK], [ExitFailed], [ExitUsage],
//     [ExitBroken], [ExitIncomplete]; [Worse] combines two, [Failing] says
//     whether a verdict fails a run.
//   - Export (limcheck vectors export): [Export] writes the vectors, the
//     port protocol's schema and [Schema] to a folder, never through a link.
//   - Versions the reports carry: [SpecVersion] (spec.md's) and
//     [ToolVersion] (limcheck's build).
//
// # Imports
//
// The standard library, conformance (the vector format), conformance/judge,
// conformance/protocol (a port's hello) and conformance/search (a fuzz
// run's counterexample), oracle and model through them, and the root
// package with internal/speccheck for spec.md's version and clause links.
// Never cmd/ nor conformance/conformancetest (internal/archcheck enforces
// the direction).
package report
