// Command puritycheck runs the purity analyzer (package
// internal/purity) over the packages named on its command line and exits
// non-zero if any breaks the model's purity rule: no package-level
// mutable variables, goroutines, locks, wall clock or randomness.
//
// Usage:
//
//	go run ./internal/cmd/puritycheck ./model/...
//
// It accepts the standard flags of
// golang.org/x/tools/go/analysis/singlechecker (run with -help).
//
// Imports: internal/purity and golang.org/x/tools/go/analysis/singlechecker.
//
// API: none; this is a command.
package main
