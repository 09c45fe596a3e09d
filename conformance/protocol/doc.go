// Package protocol is limcheck's end of the port protocol (spec.md
// PROTO-1..PROTO-11): a port is a program, in any language, that reads
// requests on stdin and writes replies on stdout, one JSON line each, and
// this package is the client that runs traces and conformance cases on
// one, and the server that makes any oracle.Subject a port.
//
// # API
//
//   - [Runner] runs traces on an implementation, a [TraceRun] per trace: a
//     [Port] over the protocol, or a [SubjectRunner] running an
//     oracle.Subject in process. A [Streamer] (a Port) also runs traces
//     as they come, the window running on from one slice into the next.
//   - [StartPort] starts a port process (sh -c, its own process group) and
//     [ServePipe] an in-process [Serve] behind a [Port]; [PortOptions]
//     bound the conversation. [Port.Hello] is the port's handshake
//     ([Hello]; [Protocol] is the version spoken), [Port.Close] ends it
//     and kills the port's process group, [Port.Stderr] is what it wrote
//     on stderr. [KillAll] kills every port
//     process group StartPort started, from the moment each starts, for
//     a program that is being stopped.
//   - A port that breaks the protocol (PROTO-9) returns a [*BrokenError]
//     (errors.Is [ErrBroken]) naming the trace and op in flight; a port
//     whose PortOptions.Deadline passed, a [*DeadlineError] (errors.Is
//     [ErrDeadline]), which is no break; a command that cannot run at
//     all, a [*StartError].
//   - [Serve] makes any oracle.Subject a port on a reader and a writer.
//   - [RunCases] runs conformance cases on a Runner, pipelined: a
//     [CaseResult] each, with the verdicts [Broken] and [NotRun] beside
//     conformance.Check's Pass, Fail and Skip.
//   - [ProtocolSchema] is protocol.schema.json, the JSON Schema of every
//     message, embedded.
//
// The hot path (codec.go) writes requests and reads replies without
// reflection; its tests pin it to encoding/json, which defines the wire
// form.
//
// conformance/search builds on this package to fuzz a port against the
// model.
//
// # Imports
//
// The standard library, conformance (the vector format: cases and
// verdicts), oracle and (through them) model/...; its tests also
// github.com/santhosh-tekuri/jsonschema/v6, rapid, go-cmp and
// internal/slowdown. Never conformance/search, which imports it, and never
// impl/ (internal/archcheck enforces the direction).
package protocol
