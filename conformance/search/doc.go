// Package search is limcheck's differential search: it runs generated
// traces on an implementation (a conformance/protocol Runner: a port, or a
// Go subject in process) and on the model, and shrinks the first trace on
// which they disagree into a conformance vector, ready for a suite.
//
// # API
//
//   - [Fuzz] runs the search under [FuzzOptions] (a seed, a bound in ops
//     or time, the components), reporting progress as a [FuzzStatus] and
//     its end as a [FuzzReport]. [GenFuzzTrace] is trace i of a seed:
//     a run depends on nothing else, so it is reproducible.
//   - [Shrink] shrinks a failing trace within [ShrinkLimits], re-running
//     candidates on the Runner; [ErrNotReproduced] when it does not fail
//     again.
//   - [Counterexample] is what Fuzz found, as found and as shrunk;
//     [Counterexample.Report] renders it for people, and its Case is the
//     vector [TraceCase] makes of a trace: level by [InContract], clauses
//     by [ClausesOf].
//
// # Imports
//
// The standard library, conformance (the vector format),
// conformance/protocol (the Runner and its errors), oracle and model/...;
// its tests also internal/slowdown. Never impl/ (internal/archcheck
// enforces the direction).
package search
