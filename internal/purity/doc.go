// Package purity is a go/analysis Analyzer that enforces the reference
// model's purity rule: no package-level mutable variables, goroutines,
// locks, wall clock or randomness.
//
// The model (package model/... of this module) is the specification that
// the optimized implementation is checked against, so it must be a plain
// deterministic function of its inputs. [Analyzer] reports, in the
// non-test files of each package it is run on:
//
//   - package-level var declarations, except those whose every name is
//     the blank identifier (var _ Store = (*MemStore)(nil) is allowed);
//   - func init;
//   - go statements, select statements, channel sends and channel types;
//   - imports of packages that bring in locks, shared state, randomness,
//     I/O or the runtime (see forbiddenImports in rules.go);
//   - uses of the wall-clock functions of package time (see wallClock in
//     rules.go), found through type information so renamed and dot
//     imports are caught too.
//
// Files ending in _test.go and the main package that go test generates
// are skipped: tests may keep state and use the clock.
//
// Run it with the puritycheck command:
//
//	go run ./internal/cmd/puritycheck ./model/...
//
// Imports: the standard library and golang.org/x/tools/go/analysis.
//
// API:
//
//   - [Analyzer]: the purity analyzer.
package purity
