// Package search is limcheck's differential search: it runs generated
// traces on an implementation (a conformance/judge Runner: a port, or a
// Go subject in process) and on the model, and shrinks the first trace on
// which they disagree into a conformance vector, ready for a suite.
//
// # API
//
//   - [Fuzz] runs the search under [FuzzOptions] (a seed, a bound in ops
//     or time, a deadline, the components, a way to start a fresh
//     runner, a channel that stops it), reporting progress as a
//     [FuzzStatus] (ops run and ops skipped apart, twinned traces skipped
//     apart again; [FuzzStatus.Checked], [FuzzStatus.IsolationChecked])
//     and its end as a [FuzzReport].
//     Under a time bound it sizes each chunk of traces it hands the
//     runner to the time left, so a slow port cannot run a whole batch
//     past it; a port (a judge.Streamer) gets the chunks as one
//     stream, never idle between them.
//     [GenFuzzTrace] is trace i of a seed: a run depends on nothing else,
//     so it is reproducible.
//   - [Shrink] shrinks a failing trace within [ShrinkLimits], re-running
//     candidates on the Runner; [ErrNotReproduced] when it does not fail
//     again.
//   - [Counterexample] is what Fuzz found, as found and as shrunk, never
//     lost to a break, a limit or a stop ([ShrinkStop] says why shrinking
//     stopped) and confirmed alone on a fresh runner ([Confirmation];
//     [ErrStopped] when a stop came first); it
//     keeps at most [MaxText] bytes of each string the implementation
//     controls. [Counterexample.Report] renders it for people, and its
//     Case is the vector [TraceCase] makes of a trace: level by
//     [InContract], clauses by [ClausesOf].
//
// # Imports
//
// The standard library, conformance (the vector format),
// conformance/judge (the Runner, its errors and the one comparison of a
// run with the model's outcome), oracle and model/...: never the wire,
// conformance/protocol, but in its tests;
// its tests also internal/slowdown. Never impl/ (internal/archcheck
// enforces the direction).
package search
