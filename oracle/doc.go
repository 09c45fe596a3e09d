// Package oracle is the vocabulary every check in limcheck speaks: the
// operations and results of the three components, with their JSON form (the
// one the conformance vectors and the port protocol carry), the [Subject]
// interface that the model, impl/ and third-party ports satisfy, a trace
// runner and a differ.
//
//   - [Num] (every integer, as a decimal string in JSON), [Bytes] (a byte
//     string, plain or {"hex": ...} in JSON).
//   - [Component], [Kind], [Op], [Result], [Config], [Fault], [ErrorClass]:
//     what is applied and what comes back.
//   - [Op.Lim], [Op.Gate], [Op.Throttle], [Config.GateConfig],
//     [Config.GateSeed], [Config.ThrottleConfig]: argument decoding shared
//     by every adapter, so that all subjects refuse the same malformed ops
//     ([ErrBadOp]); [ParseSeed] and [SeedText] convert a gate seed's text
//     form (32 lowercase hex digits, VEC-9).
//   - [Subject], [Instance]; [Model], the reference subject.
//   - [Trace], [Outcome], [Run], [Compare], [Divergence]: run a trace and
//     find the first divergence, field by field ([Field], [DiffFields],
//     [Result.Equal]); conformance.Differ renders one for people
//     (conformance/judge's SubjectRunner runs a twin trace, spec VEC-15,
//     on two instances side by side).
//
// The rapid generators of this vocabulary live in oracle/gen, which builds
// on it.
//
// Imports: the standard library and model/...; its tests also
// github.com/google/go-cmp and pgregory.net/rapid. Never impl/: the adapter
// of impl/ lives in internal/subject.
package oracle
