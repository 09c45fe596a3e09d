// Command speccheck checks the clause discipline of a repository: every
// clause ID of its spec.md is cited by the code that implements it and
// exercised by a test, and every cited ID exists and is not retired.
//
// Usage:
//
//	go run ./internal/cmd/speccheck [root]
//
// root defaults to ".". The command prints the coverage table on standard
// output and each problem on standard error. It exits 0 when there are no
// problems, 1 when there are, and 2 on a usage or I/O error.
//
// It imports the standard library and internal/speccheck only.
package main
