// Command genvectors writes the conformance vectors: every case of
// conformance/internal/build, with its expectations computed by the model,
// one canonical file per case, into a vectors folder, keeping the IDs of the
// cases already there and appending new IDs to its ids.txt (spec VEC-3,
// VEC-13).
//
// Usage:
//
//	go run ./conformance/cmd/genvectors [-spec spec.md] [-dir conformance/vectors]
//
// make vectors runs it on the committed folder; make vectorcheck runs it on
// a copy and fails on any difference. It prints one line: how many cases it
// wrote, per component and level. Exit status: 0 written, 1 failed, 2 usage.
//
// Imports: the standard library, conformance and conformance/internal/....
package main
