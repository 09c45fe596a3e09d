package archcheck

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
)

// allowance lists what a file may import beyond the standard library,
// which every file may import. Entries are path prefixes: "model" permits
// model and model/... but not modelx.
type allowance struct {
	module   []string // module-relative paths, or anything
	external []string // third-party import paths, or anything
}

// layerRule says what the packages of one layer may import.
type layerRule struct {
	layer string    // module-relative path prefix of the layer
	code  allowance // imports allowed in non-test files
	tests allowance // imports allowed in _test.go files
	says  string    // the rule in words, for violations
}

// rules is the layering table that doc.go documents. Layers must not
// overlap.
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
	{
		layer: "oracle",
		code:  oracleAllowance(),
		tests: oracleAllowance(),
		says:  "oracle may import only the standard library, oracle/..., model/..., rapid, go-cmp and porcupine",
	},
	{
		layer: "conformance",
		code:  conformanceAllowance(),
		tests: allowance{module: append(conformanceAllowance().module, "internal/slowdown"), external: []string{anything}},
		says:  "conformance may import only the standard library, third-party packages, conformance/..., model/... and oracle/... (its tests also internal/slowdown)",
	},
	{
		layer: "",
		says:  "the root package (spec.md, embedded) may import only the standard library",
	},
	openLayer("fuzz"),
	openLayer("cmd"),
	openLayer("internal"),
}

// oracleAllowance is what oracle's files may import.
func oracleAllowance() allowance {
	return allowance{
		module:   []string{"oracle", "model"},
		external: []string{rapid, gocmp, porcupine},
	}
}

// conformanceAllowance is what conformance's files may import.
func conformanceAllowance() allowance {
	return allowance{
		module:   []string{"conformance", "model", "oracle"},
		external: []string{anything},
	}
}

// openLayer is the rule for a layer that may import anything.
func openLayer(layer string) layerRule {
	all := allowance{module: []string{anything}, external: []string{anything}}
	return layerRule{layer: layer, code: all, tests: all, says: layer + " may import anything"}
}
