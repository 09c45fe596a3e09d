// Package conformancetest runs limcheck's conformance suite inside a Go
// implementer's own go test: a Go implementation needs no driver and no
// port process, only an [oracle.Subject] that wraps it.
//
//	func TestConformance(t *testing.T) { conformancetest.Run(t, mySubject{}) }
//	func FuzzConformance(f *testing.F) { conformancetest.Fuzz(f, mySubject{}) }
//
// [Run] runs every core vector of the built-in set (conformance.Vectors)
// as a subtest named by the case's ID (go test -run 'TestConformance/gate-retry-'
// picks cases as limcheck run --case does); a case of a component the
// subject does not implement, or one it declines (oracle.ErrUnsupported),
// is skipped. [RunCases] runs a set of your choosing. [Fuzz] is a
// go test -fuzz target: each input draws a trace (gen.Trace, through
// rapid.MakeFuzz) of a component the subject implements, and the subject
// must give the model's results on it.
//
// Imports: conformance (the vectors and Check), oracle (the Subject and
// the model) and pgregory.net/rapid; never conformance/protocol or a
// process: it is meant for test binaries, and cmd/limcheck does not import
// it.
//
// API:
//
//   - [Run]: every core vector against a subject, a subtest each.
//   - [RunCases]: the given cases, a subtest each.
//   - [Check], [Result]: one case, without a *testing.T.
//   - [Fuzz]: a go test -fuzz target against the model.
package conformancetest
