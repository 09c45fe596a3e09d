// Package build holds the builders of the conformance vectors: small
// functions, one per clause area, decision or finding, that each return the
// [Draft] cases of one concern. A draft names its component, area, level,
// clauses, description, config and ops; [Fill] runs it through the model
// (oracle.Model) to fill in every op's expected result, so no expected value
// is ever written by hand (spec VEC-13). [All] lists every draft, in a fixed
// order; the generator (conformance/internal/gen) gives each its ID.
//
// Imports: the standard library, conformance, oracle and model/... (the
// builders choose keys by their sets, GATE-13).
package build
