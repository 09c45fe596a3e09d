// Package archcheck checks the module's layering, which packages may
// import which, and the length of the functions of the wing third parties
// read (conformance/..., oracle). The layering rules keep the reference
// model independent of the implementation it judges, and keep the
// implementation from leaning on the model it is checked against.
//
// Rules (kept as data in rules.go; every layer may import the standard
// library; "model" means model and model/..., and so on):
//
//	layer                 non-test files may import        _test files may also import
//	model                 model                            internal, pgregory.net/rapid, github.com/google/go-cmp
//	impl                  impl                             pgregory.net/rapid, github.com/google/go-cmp
//	impl/redisgate,       impl, github.com/redis/rueidis   rapid, go-cmp (the tests against a
//	  impl/throttle/                                       real redis-server are in fuzz)
//	  redisstore,
//	  impl/internal/
//	  redisfault,
//	  impl/redisclient
//	oracle                oracle, model, rapid, go-cmp,    oracle/gen
//	                      github.com/anishathalye/porcupine;
//	                      never oracle/gen
//	oracle/gen            oracle, model, rapid             github.com/google/go-cmp
//	conformance           conformance, model, oracle,      internal/slowdown (the tests' time limits)
//	                      any third-party package; never
//	                      conformance/judge, /protocol,
//	                      /search, /conformancetest or
//	                      /report
//	conformance/judge     conformance, model, oracle;      github.com/google/go-cmp
//	                      never conformance/protocol,
//	                      /search, /conformancetest or
//	                      /report
//	conformance/protocol  conformance (the judge           internal/slowdown
//	                      included), model, oracle, any
//	                      third-party package; never
//	                      conformance/search,
//	                      /conformancetest or /report
//	conformance/search    conformance (the judge           conformance/protocol,
//	                      included), model, oracle, any    internal/slowdown
//	                      third-party package; never
//	                      conformance/protocol (the wire),
//	                      /conformancetest or /report
//	conformance/          conformance (the judge           (nothing more)
//	  conformancetest     included), model, oracle,
//	                      rapid; never conformance/
//	                      protocol, /search or /report
//	                      (a go test helper: no process)
//	conformance/report    conformance (never               internal/slowdown, rapid,
//	                      /conformancetest), model,        go-cmp, github.com/santhosh-
//	                      oracle, the root package         tekuri/jsonschema
//	                      (spec.md), internal/speccheck
//	fuzz                  anything                         anything
//	cmd                   anything                         anything
//	internal              anything                         anything
//	internal/subject      impl, oracle,                    (nothing more)
//	                      github.com/redis/rueidis; never
//	                      oracle/gen
//	(root)                (standard library only)          (nothing more)
//
// So impl never imports model, oracle, conformance, fuzz, cmd or internal,
// not even from its tests (which may use rapid and go-cmp on their own): checking impl against the model happens in
// oracle and fuzz. The module root holds only spec.md, embedded for the
// tools. A module package outside every layer is itself a violation, so a
// new layer needs a rule.
//
// A layer may lie inside another: a package is judged by the innermost
// layer that holds it, so conformance/protocol/x follows the
// conformance/protocol rule and conformance/internal/build the conformance
// one. The conformance layers make one direction: conformance (the vector
// format) <- conformance/judge (the runs and their verdicts) <-
// conformance/protocol (the wire) and conformance/search (the
// differential search) <- conformance/report (the reports, which only
// read what the others produce; none of them imports it) <- cmd/limcheck.
// The vector format imports none of the others; the protocol and the
// search never import each other, but the search's tests run it on ports.
//
// A second rule bounds size: no non-test function of the folders in
// [LengthRule] (conformance/..., conformance/report included, oracle,
// internal/subject, cmd/limcheck) spans more than [MaxFuncLines] lines,
// from its func keyword to its closing brace. [LongFuncs] finds those that do, by
// parsing the files alone, and TestFunctionLength applies it:
//
//	go test ./internal/archcheck -run TestFunctionLength
//
// [Check] is a pure function over an import graph; [LoadGraph] builds that
// graph from the real module with golang.org/x/tools/go/packages, tests
// included, and TestLayering applies one to the other:
//
//	go test ./internal/archcheck -run TestLayering
//
// Graph keys are package paths, or go/packages IDs for test variants:
// "p [p.test]" is p compiled with its _test.go files and "p_test [p.test]"
// is p's external test package; both are judged by p's test rules. A
// variant "q [p.test]" is q's own code recompiled for p's test and is
// judged by q's non-test rules.
//
// Imports: the standard library (go/parser for the lengths) and
// golang.org/x/tools/go/packages.
//
// API:
//
//   - [Module]: this module's path.
//   - [Check]: the layering violations of an import graph.
//   - [Violation]: one forbidden import edge (or unlayered package).
//   - [LoadGraph]: the import graph of packages and their tests.
//   - [LongFuncs], [LongFunc], [MaxFuncLines], [LengthRule]: the functions
//     longer than a limit, and the folders the limit holds for.
package archcheck
