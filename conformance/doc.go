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
//     [ReadFile] reads one case file, a regular file only; input over the
//     limits ([MaxFileSize], [MaxOps], [MaxString], [MaxFolderSize],
//     [MaxFolderOps]) is refused with an error matching [ErrLimit].
//   - [Select] keeps the cases a [Filter] chooses (ID and clause globs,
//     components, levels); a refused filter is a [FilterError], one that
//     chooses nothing [ErrNoMatch].
//   - [Differ] renders an oracle.Divergence for people ([Difference],
//     [Difference.Text]); [Context] the ops up to an op, [ResultsContext]
//     with the results of each side under each.
//   - [Encode] writes a case's canonical file; [SpecVersion] reads spec.md's
//     version line.
//   - [ReadIDs], [ParseIDs], [FormatIDs], [CheckIDs], [IssuedID]: ids.txt,
//     the list of every ID ever issued.
//   - limcheck's --json reports and their JSON Schema are
//     conformance/report's.
//   - [Coverage] tabulates spec IDs by cases ([CoverageReport],
//     [CoverageRow], [Extreme], [SpecID], [Need]); [Count] tallies cases by
//     component and level ([Tally]).
//
// The vectors are written by conformance/cmd/genvectors from the builders
// of conformance/internal/build (make vectors; make vectorcheck fails on
// stale files). impl/ is checked against them from fuzz/vectors_test.go.
//
// Four packages build on this one: conformance/judge runs cases on an
// implementation and judges them (the verdicts); conformance/protocol
// runs traces on a port, a program speaking the port protocol (spec.md
// PROTO-1..PROTO-11), and serves an oracle.Subject as one;
// conformance/search fuzzes a port against the model and shrinks what it
// finds into a case of this format; conformance/conformancetest runs the
// vectors, and a go test -fuzz target, inside a Go implementer's go test.
//
// # Imports
//
// The standard library, oracle and (through oracle) model/...; its tests
// also github.com/santhosh-tekuri/jsonschema/v6. Never impl/, and never
// conformance/judge, conformance/protocol, conformance/search or
// conformance/conformancetest, which import it
// (internal/archcheck enforces the direction).
package conformance
