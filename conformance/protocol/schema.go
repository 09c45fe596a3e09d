package protocol

import _ "embed" // for ProtocolSchema

// ProtocolSchema is protocol.schema.json: a JSON Schema (2020-12) of every
// message of the port protocol (spec.md PROTO-1..PROTO-11).
//
//go:embed protocol.schema.json
var ProtocolSchema []byte
