// Command limcheck checks rate limiters against the limcheck reference
// model: the bundled Go implementation, or any port in any language that
// speaks the port protocol of spec.md (PROTO-1..PROTO-11) on its stdin and
// stdout.
//
// Usage:
//
//	limcheck                      the built-in default
//	limcheck run [flags]          every vector against a port
//	limcheck fuzz [flags]         differential random testing, shrinking
//	limcheck replay [flags] FILE  one vector file or counterexample
//	limcheck vectors export DIR   the vectors and the schemas, as files
//	limcheck coverage             spec.md's clauses by vectors
//	limcheck serve [-model]       the bundled implementation as a port
//	                              (-redis ADDR: the Redis-backed one;
//	                              -redis-cluster, -redis-sentinel)
//	limcheck walk [-q]            spec.md's worked example through the model
//	limcheck list [flags]         the cases run would run, with no port
//	limcheck version              the tool's, spec's and protocol's versions
//
// With no arguments limcheck checks the bundled implementation (impl/,
// served through the protocol in process) against every vector, fuzzes it
// against the model for 40,000 operations (seed 1) and walks spec.md's
// worked example and findings through the model.
//
// run takes --port 'COMMAND ARGS' (run by sh -c; without it, the bundled
// implementation), runs every core vector (--strict adds the strict ones,
// --case, --clause and --component filter) and prints each case as PASS,
// FAIL or SKIP with its clauses, a failure with its op, expected and actual
// result and the port's stderr, and a closing line "N passed, M failed, K
// skipped". --json prints the report as JSON (format limcheck-report/1,
// described by conformance/report/report.schema.json), --junit FILE also writes
// JUnit XML, and --expect-fail FILE lists case IDs known to fail (XFAIL; one
// that passes is XPASS, a failure). fuzz runs generated traces (--seed,
// --duration or --ops, --component; one gate or throttle trace in 8
// twinned, on two instances side by side: --isolation) on the port and the
// model, shrinks the
// first divergence by re-running the port, confirms it alone in a fresh
// port process, prints it and writes it as a vector file (--out); a break
// or a limit while shrinking stops shrinking, never loses the divergence;
// so does a signal, after which fuzz exits 128+n.
// It counts the ops of skipped traces apart, and a run in which the port
// skipped every trace checked nothing: status 4, unless --allow-empty; so
// is one in which it skipped every twinned trace (instance isolation,
// PROTO-12, was never checked; some skipped is a warning).
// replay runs one vector file.
//
// run prints each case as it finishes (a terminal gets a progress line on
// stderr); SIGINT or SIGTERM prints the partial report, the rest NOT RUN,
// before exiting 128+n. --fail-fast stops at the first failure, --clause
// takes globs (GATE-*), --level core|strict chooses levels. Repeating
// --port checks several ports side by side: one table, a case per row and
// a port per column, summaries per clause area and per port, --json as
// limcheck-runs/1, --junit a testsuite per port (fuzz and replay check one
// port: --port twice is a usage error). --html FILE (run, replay,
// fuzz) writes one self-contained HTML page with each failure's timeline
// as inline SVG. list prints the cases the filters select; version the
// tool's, spec's, protocol's and formats' versions.
//
// Exit status of run, fuzz, replay and the default: 0 every case passed (or
// was skipped, or failed as --expect-fail lists); 1 some case failed, fuzz
// found a divergence, or a listed failure passed; 2 usage or input error;
// 3 the port broke the protocol (bad hello, crash, hang past
// --request-timeout, non-JSON output, replies out of order or with an
// unknown seq, early exit), after which the remaining cases are reported as
// not run; 4 incomplete: nothing was checked (the port skipped every case;
// --allow-empty makes that 0).
//
// The command parses flags, runs ports and the search, and leaves every
// report, text, JSON, JUnit, HTML, the CI summary and badge, to
// conformance/report.
//
// Imports: conformance (the vector format), conformance/protocol (ports),
// conformance/search (fuzz), conformance/report (the reports), oracle,
// internal/subject (the bundled implementation), internal/speccheck (coverage), internal/walkthrough,
// and the root package (spec.md).
package main
