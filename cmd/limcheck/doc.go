// Command limcheck checks rate limiters against the limcheck reference model.
//
// Usage:
//
//	limcheck [-q]
//
// With no arguments it runs the built-in default: it walks spec.md's worked
// example and the counterexample of every finding through the model, prints
// each step with the model's result and spec.md's expected result, and closes
// with "N passed, M failed" (steps). -q prints only failed steps and the
// closing line.
//
// Exit status: 0 every step matched spec.md; 1 some step did not; 2 usage error.
//
// Imports: the standard library and internal/walkthrough (later: conformance
// and oracle).
package main
