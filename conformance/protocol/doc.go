// Package protocol is limcheck's end of the port protocol (spec.md
// PROTO-1..PROTO-11), the wire only: a port is a program, in any
// language, that reads requests on stdin and writes replies on stdout,
// one JSON line each, and this package is the client that runs traces on
// one (a [Port] is a conformance/judge Runner and Streamer) and the
// server that makes any oracle.Subject a port. Judging what a port did
// is conformance/judge's.
//
// # API
//
//   - [StartPort] starts a port process (sh -c, its own process group) and
//     [ServePipe] an in-process [Serve] behind a [Port]; [PortOptions]
//     bound the conversation. [Port.Hello] is the port's handshake
//     ([Hello]; [Protocol] is the version spoken), [Port.Close] ends it
//     and kills the port's process group, [Port.Stderr] is what it wrote
//     on stderr. [KillAll] kills every port
//     process group StartPort started, from the moment each starts, for
//     a program that is being stopped.
//   - A port that breaks the protocol (PROTO-9) returns a
//     *judge.BrokenError naming the trace and op in flight; a port whose
//     PortOptions.Deadline passed, a *judge.DeadlineError, which is no
//     break; a command that cannot run at all, a [*StartError].
//   - A result whose field holds a value that does not fit it (a ban
//     end past 2^64-1) fails its op, undecodable, with a [*FieldError]
//     naming the field and the value sent (judge.TraceRun.BadField).
//   - A Port chooses each instance's inst itself (PROTO-3): a large id
//     (up to 2^53-2, each side of 2^16, 2^31 and 2^32) for every fourth
//     trace, the first one included, the id of the trace before (closed
//     by then) for the next, else the next small one (insts.go).
//   - [Serve] makes any oracle.Subject a port on a reader and a writer.
//   - [ProtocolSchema] is protocol.schema.json, the JSON Schema of every
//     message, embedded.
//
// The files follow the concerns: port.go the types and options,
// lifecycle.go the handshake and the end of a conversation, pipes.go the
// reader and writer goroutines, events.go the queue of what the reader
// saw, reply.go the decoding of what a port writes, stream.go the
// conversation's state machine (RunStream's stream), codec.go the request
// lines, exact.go strict JSON, insts.go the instance ids. The hot path (codec.go, reply.go) writes
// requests and reads replies without reflection; its tests pin it to
// encoding/json, which defines the wire form.
//
// conformance/search builds on this package to fuzz a port against the
// model.
//
// # Imports
//
// The standard library, conformance/judge (the Runner it implements and
// its errors), oracle and (through them) model/...; its tests also
// github.com/santhosh-tekuri/jsonschema/v6, rapid, go-cmp and
// internal/slowdown. Never conformance/search, which imports it, and never
// impl/ (internal/archcheck enforces the direction).
package protocol
