package archcheck

import "slices"

// Module is the path of the module whose layering is checked.
const Module = "github.com/limcheck/limcheck"

// anything, as the only entry of an allowance list, permits every package
// of that kind.
const anything = "*"

// Third-party module paths named by the rules.
const (
	rapid     = "pgregory.net/rapid"
	gocmp     = "github.com/google/go-cmp"
	porcupine = "github.com/anishathalye/porcupine"
	rueidis   = "github.com/redis/rueidis"
	jschema   = "github.com/santhosh-tekuri/jsonschema"
)

// allowance lists what a file may import beyond the standard library,
// which every file may import. Entries are path prefixes: "model" permits
// model and model/... but not modelx. An import under an entry of except
// is refused even where module permits it.
type allowance struct {
	module   []string // module-relative paths, or anything
	except   []string // module-relative paths refused though module permits them
	external []string // third-party import paths, or anything
}

// layerRule says what the packages of one layer may import.
type layerRule struct {
	layer string    // module-relative path prefix of the layer
	code  allowance // imports allowed in non-test files
	tests allowance // imports allowed in _test.go files
	says  string    // the rule in words, for violations
}

// genLayer is the generators' layer, inside oracle's.
const genLayer = "oracle/gen"

// subjectLayer holds impl/'s subjects, inside internal's.
const subjectLayer = "internal/subject"

// The conformance layers that lie inside the conformance layer: the judge
// builds on the vector format; the port protocol (the wire) and the
// differential search each build on the judge, and never on each other but
// in the search's tests.
const (
	judgeLayer    = "conformance/judge"
	protocolLayer = "conformance/protocol"
	searchLayer   = "conformance/search"
	helperLayer   = "conformance/conformancetest"
	reportLayer   = "conformance/report"
)

// rules is the layering table that doc.go documents. A layer may lie
// inside another (conformance/protocol inside conformance): a package
// belongs to the innermost layer that holds it, so exactly one rule judges
// each package, whatever the order of the table.
var rules = []layerRule{
	{
		layer: "model",
		code:  allowance{module: []string{"model"}},
		tests: allowance{module: []string{"model", "internal"}, external: []string{rapid, gocmp}},
		says:  "model may import only the standard library and model/... (its tests also internal/..., rapid and go-cmp)",
	},
	{
		layer: "impl",
		code:  allowance{module: []string{"impl"}},
		tests: allowance{module: []string{"impl"}, external: []string{rapid, gocmp}},
		says:  "impl may import only the standard library and impl/... (its tests also rapid and go-cmp, never the model)",
	},
	redisLayer("impl/throttle/redisstore"),
	redisLayer("impl/redisgate"),
	redisLayer("impl/internal/redisfault"),
	redisLayer("impl/redisclient"),
	{
		layer: "oracle",
		code:  allowance{module: []string{"oracle", "model"}, except: []string{genLayer}, external: []string{rapid, gocmp, porcupine}},
		tests: allowance{module: []string{"oracle", "model"}, external: []string{rapid, gocmp, porcupine}},
		says:  "oracle may import only the standard library, oracle/..., model/..., rapid, go-cmp and porcupine, never oracle/gen, which builds on it, but in its tests",
	},
	{
		// The generators draw the vocabulary; the conformance wing and
		// the fuzz targets draw from them, never the other way.
		layer: genLayer,
		code:  allowance{module: []string{"oracle", "model"}, external: []string{rapid}},
		tests: allowance{module: []string{"oracle", "model"}, external: []string{rapid, gocmp}},
		says:  "oracle/gen may import only the standard library, oracle, model/... and rapid (its tests also go-cmp), never conformance/...",
	},
	{
		layer: "conformance",
		code:  conformanceAllowance(judgeLayer, protocolLayer, searchLayer, helperLayer, reportLayer),
		tests: withSlowdown(conformanceAllowance(judgeLayer, protocolLayer, searchLayer, helperLayer, reportLayer)),
		says:  "conformance (the vector format) may import only the standard library, third-party packages, conformance/..., model/... and oracle/..., never conformance/judge, conformance/protocol, conformance/search, conformance/conformancetest or conformance/report, which build on it (its tests also internal/slowdown)",
	},
	{
		// The judge is pure: the standard library and the vocabulary.
		layer: judgeLayer,
		code:  allowance{module: []string{"conformance", "model", "oracle"}, except: []string{protocolLayer, searchLayer, helperLayer, reportLayer}},
		tests: allowance{module: []string{"conformance", "model", "oracle"}, except: []string{protocolLayer, searchLayer, helperLayer, reportLayer}, external: []string{gocmp}},
		says:  "conformance/judge may import only the standard library, conformance (the vector format), model/... and oracle/..., never conformance/protocol, conformance/search, conformance/conformancetest or conformance/report, which build on it (its tests also go-cmp)",
	},
	{
		layer: protocolLayer,
		code:  conformanceAllowance(searchLayer, helperLayer, reportLayer),
		tests: withSlowdown(conformanceAllowance(searchLayer, helperLayer, reportLayer)),
		says:  "conformance/protocol may import only the standard library, third-party packages, conformance/... (the judge included), model/... and oracle/..., never conformance/search, conformance/conformancetest or conformance/report (its tests also internal/slowdown)",
	},
	{
		// The search judges runs; it never speaks the wire, but its tests
		// run it on ports.
		layer: searchLayer,
		code:  conformanceAllowance(protocolLayer, helperLayer, reportLayer),
		tests: withSlowdown(conformanceAllowance(helperLayer, reportLayer)),
		says:  "conformance/search may import only the standard library, third-party packages, conformance/... (the judge included), model/... and oracle/..., never the wire, conformance/protocol, but in its tests, and never conformance/conformancetest or conformance/report (its tests also internal/slowdown)",
	},
	{
		// A Go implementer's go test helper runs the vectors and the model
		// in process: no port, no process, so never the protocol or the
		// search; rapid for its fuzz target, nothing else from outside,
		// since it lands in other modules' test binaries.
		layer: helperLayer,
		code:  helperAllowance(),
		tests: helperAllowance(),
		says:  "conformance/conformancetest may import only the standard library, conformance/... (the judge included, never conformance/protocol, conformance/search or conformance/report), model/..., oracle/... and rapid",
	},
	{
		// The reports render what the judge decided: the vector format, the
		// verdicts, the port's hello and the search's counterexamples, and
		// spec.md (the root package, read with internal/speccheck) for the
		// HTML page's clause links. Never cmd/: the command calls the
		// report, not the other way.
		layer: reportLayer,
		code:  reportAllowance(),
		tests: reportTestAllowance(),
		says:  "conformance/report may import only the standard library, the root package (spec.md), internal/speccheck, conformance/... (never conformance/conformancetest), model/... and oracle/... (its tests also internal/slowdown, rapid, go-cmp and jsonschema)",
	},
	{
		layer: "",
		says:  "the root package (spec.md, embedded) may import only the standard library",
	},
	{
		// The adapters of impl/ to the oracle's vocabulary: the one place
		// where impl and oracle meet outside the tests.
		layer: subjectLayer,
		code:  subjectAllowance(),
		tests: subjectAllowance(),
		says:  "internal/subject may import only the standard library, impl/..., oracle and github.com/redis/rueidis, never model, oracle/gen or conformance/...",
	},
	openLayer("fuzz"),
	openLayer("cmd"),
	openLayer("internal"),
}

// conformanceAllowance is what the files of a conformance layer may
// import: conformance/... but the layers under except, which build on it.
func conformanceAllowance(except ...string) allowance {
	return allowance{
		module:   []string{"conformance", "model", "oracle"},
		except:   except,
		external: []string{anything},
	}
}

// helperAllowance is what conformance/conformancetest's files may import.
func helperAllowance() allowance {
	return allowance{
		module:   []string{"conformance", "model", "oracle"},
		except:   []string{protocolLayer, searchLayer, reportLayer},
		external: []string{rapid},
	}
}

// subjectAllowance is what internal/subject's files may import.
func subjectAllowance() allowance {
	return allowance{
		module:   []string{"impl", "oracle"},
		except:   []string{genLayer},
		external: []string{rueidis},
	}
}

// reportAllowance is what conformance/report's files may import; "" is
// the root package alone.
func reportAllowance() allowance {
	return allowance{
		module: []string{"", "conformance", "model", "oracle", "internal/speccheck"},
		except: []string{helperLayer},
	}
}

// reportTestAllowance is what conformance/report's tests may import.
func reportTestAllowance() allowance {
	a := withSlowdown(reportAllowance())
	a.external = []string{rapid, gocmp, jschema}
	return a
}

// withSlowdown is a, plus internal/slowdown: the tests' time limits.
func withSlowdown(a allowance) allowance {
	a.module = append(slices.Clone(a.module), "internal/slowdown")
	return a
}

// redisLayer is the rule for an impl package on Redis: impl's rule plus
// rueidis. The tests against a real server live in fuzz/, which starts one
// with internal/redistest.
func redisLayer(layer string) layerRule {
	return layerRule{
		layer: layer,
		code:  allowance{module: []string{"impl"}, external: []string{rueidis}},
		tests: allowance{module: []string{"impl"}, external: []string{rueidis, rapid, gocmp}},
		says:  layer + " may import only the standard library, impl/... and github.com/redis/rueidis (its tests also rapid and go-cmp, never the model)",
	}
}

// openLayer is the rule for a layer that may import anything.
func openLayer(layer string) layerRule {
	all := allowance{module: []string{anything}, external: []string{anything}}
	return layerRule{layer: layer, code: all, tests: all, says: layer + " may import anything"}
}
