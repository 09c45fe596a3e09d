// Package judge is limcheck's one judge of a run: it runs conformance
// cases and traces on an implementation, a port or a Go subject in
// process, and says what became of each, in one vocabulary of verdicts.
//
// # API
//
//   - [Runner] runs traces on an implementation, a [TraceRun] per trace:
//     conformance/protocol's Port over the protocol, or a
//     [SubjectRunner], the one in-process runner of an oracle.Subject. A
//     [Streamer] (a Port) also runs traces as they come. A runner that
//     breaks returns a [*BrokenError] (errors.Is [ErrBroken]); one whose
//     deadline passed, a [*DeadlineError] (errors.Is [ErrDeadline]).
//   - [RunCases] and [RunCasesEach] run conformance cases on a Runner,
//     pipelined: a [CaseResult] each. [Check] runs one case on an
//     oracle.Subject.
//   - [Judge] judges one case's run; [Diverge] is the one comparison of a
//     run with its expected outcome, the second instance of a twin trace
//     included (spec VEC-15), and [Fails] its yes or no; [OpName] names a
//     request in a diagnosis.
//   - [CutText] bounds the text an implementation controls, once, so
//     that a runner's cut and the search's again keep the true count.
//   - [Verdict] is the vocabulary: [Pass], [Fail], [Skip], [Broken],
//     [NotRun], and, against an expect-fail list ([Verdict.Listed]),
//     [XFail] and [XPass].
//
// # Imports
//
// The standard library, conformance (the vector format), oracle and
// (through them) model/.... Never conformance/protocol or
// conformance/search, which build on it, and never impl/
// (internal/archcheck enforces the direction).
package judge
