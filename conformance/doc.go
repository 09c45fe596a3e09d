// Package conformance is the conformance vector format of limcheck: the
// committed cases (conformance/vectors/, spec.md clauses VEC-1..VEC-14) that
// any implementation of lim, the gate or the throttle, in any language, runs
// to check itself against the model.
//
// A case is one scenario on one fresh instance of a component: a config,
// ops in order, and the result each op must return, computed by the model
// (oracle.Model) when the vectors were generated. Every integer is a decimal
// string and every byte string a string or {"hex": ...}, so no reader loses
// precision.
//
// # API
//
//   - [Vectors]: the committed vectors folder, embedded; [SchemaFile] and
//     [IDsFile] name its schema.json and ids.txt.
//   - [Case], [Step], [Level] ([Core], [Strict]), [Format]; [Case.Trace]
//     and [Case.Expected] turn a case into an oracle.Trace and the
//     oracle.Outcome it must have.
//   - [Load] reads and validates every case file of a vectors folder,
//     [Parse] one file; errors wrap [ErrInvalid] and name the file.
//   - [Check] runs one case against an oracle.Subject: [Pass], [Fail] (with
//     the oracle.Divergence) or [Skip] ([Verdict]).
//   - [Encode] writes a case's canonical file; [SpecVersion] reads spec.md's
//     version line.
//   - [ReadIDs], [ParseIDs], [FormatIDs], [CheckIDs], [IssuedID]: ids.txt,
//     the list of every ID ever issued.
//   - [Coverage] tabulates spec IDs by cases ([CoverageReport],
//     [CoverageRow], [Extreme], [SpecID], [Need]); [Count] tallies cases by
//     component and level ([Tally]).
//
// The port protocol (spec.md PROTO-1..PROTO-11; [ProtocolSchema] is its
// JSON Schema):
//
//   - [Runner] runs traces on an implementation ([TraceRun] per trace); a
//     [Port] is one, a conversation with a port process ([StartPort]) or an
//     in-process [Serve] ([ServePipe]), with [PortOptions] bounding it; a
//     [SubjectRunner] runs an oracle.Subject directly. [Hello] is a port's
//     handshake, [Protocol] the version spoken; a port that breaks the
//     protocol returns a [*BrokenError] (errors.Is [ErrBroken]).
//   - [Serve] makes any oracle.Subject a port on a reader and a writer.
//   - [RunCases] runs cases on a Runner, pipelined: a [CaseResult] each,
//     with the verdicts [Broken] and [NotRun] beside Check's.
//   - [Fuzz] ([FuzzOptions], [FuzzStatus], [FuzzReport]) runs generated
//     traces ([GenFuzzTrace]: reproducible from a seed) on a Runner and on
//     the model; the first divergence is shrunk by [Shrink] into a
//     [Counterexample], whose Case ([TraceCase], [InContract], [ClausesOf],
//     [FuzzArea]) is a vector file ready for a suite.
//
// The vectors are written by conformance/cmd/genvectors from the builders
// of conformance/internal/build (make vectors; make vectorcheck fails on
// stale files). impl/ is checked against them from fuzz/vectors_test.go.
//
// # Imports
//
// The standard library, oracle and (through oracle) model/...; its tests
// also github.com/santhosh-tekuri/jsonschema/v6, rapid and go-cmp. Never
// impl/.
package conformance
