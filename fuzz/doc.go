// Package fuzz holds the go test -fuzz targets and rapid properties that
// check impl/ against model/: the same inputs through both, every result
// compared. It has no non-test code but this file.
//
// The differential checks speak oracle's vocabulary: oracle.Model against
// internal/subject.Impl, opened on one config.
//
//   - differential_test.go: the harness. Apply an op to both, compare the
//     results with cmp.Diff (-model +impl), report the ops so far with
//     conformance.Context (a whole trace's divergence with
//     conformance.Differ); compare the observable state (gate in-flight
//     and touched buckets, throttle checks of the key pool).
//   - statemachine_test.go: a rapid state machine per component, drawing
//     ops from gen.Ops; whole gen.Trace traces through oracle.Run.
//   - fuzz_test.go: the go test -fuzz targets: FuzzLim, FuzzGate,
//     FuzzThrottle and FuzzThrottleFaults over the byte format of
//     decode_test.go (encode_test.go inverts it), FuzzIPKey, FuzzResp503, and
//     FuzzMachine* (the state machines through rapid.MakeFuzz).
//   - seeds_test.go, corpus_test.go: named seed traces (the FIND-n
//     counterexamples and edges) as regression tests and as the seed corpus
//     under testdata/fuzz (rewritten by -update-corpus).
//   - throughput_test.go: BenchmarkDifferential*, ops/s through both.
//
// Run every target briefly with make test (fuzzsmoke), longer with make fuzz
// (FUZZTIME each).
//
// Imports (tests): model/..., impl/..., oracle, internal/subject, rapid,
// go-cmp.
package fuzz
