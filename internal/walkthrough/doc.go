// Package walkthrough runs spec.md's worked example and the counterexample of
// every finding through the model, step by step, and says for each step what
// the model returned and what spec.md says it returns.
//
// It is the body of limcheck's default run until the conformance vectors
// exist: a reader sees the model's behaviour on the spec's own examples, and a
// mismatch between spec.md's text and the model shows up as a failed step.
//
// API: [All] lists the [Example]s; each is a list of [Step]s. [WriteText]
// prints them for limcheck walk, [WriteBrief] for the default run.
//
// Imports: the standard library and model/....
package walkthrough
