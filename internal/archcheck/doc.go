// Package archcheck checks the module's layering: which packages may
// import which. The rules keep the reference model independent of the
// implementation it judges, and keep the implementation from leaning on
// the model it is checked against.
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
//	oracle                oracle, model, rapid, go-cmp,    (nothing more)
//	                      github.com/anishathalye/porcupine
//	conformance           conformance, model, oracle,      internal/slowdown (the tests' time limits)
//	                      any third-party package; never
//	                      conformance/protocol or
//	                      conformance/search
//	conformance/protocol  conformance, model, oracle,      internal/slowdown
//	                      any third-party package; never
//	                      conformance/search
//	conformance/search    conformance (the protocol        internal/slowdown
//	                      included), model, oracle, any
//	                      third-party package
//	conformance/          conformance, model, oracle,      (nothing more)
//	  conformancetest     rapid; never conformance/
//	                      protocol or conformance/search
//	                      (a go test helper: no process)
//	fuzz                  anything                         anything
//	cmd                   anything                         anything
//	internal              anything                         anything
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
// one. The three conformance layers make one direction, conformance (the
// vector format) <- conformance/protocol (the port protocol) <-
// conformance/search (the differential search) <- cmd/limcheck: the vector
// format never imports the protocol or the search, the protocol never the
// search.
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
// Imports: the standard library and golang.org/x/tools/go/packages.
//
// API:
//
//   - [Module]: this module's path.
//   - [Check]: the layering violations of an import graph.
//   - [Violation]: one forbidden import edge (or unlayered package).
//   - [LoadGraph]: the import graph of packages and their tests.
package archcheck
