package conformance_test

// broken is a case file that breaks one rule of the format, made by editing
// the base case.
type broken struct {
	clause string // the VEC clause it breaks
	reason string // what is wrong
	edit   func(m map[string]any)
	raw    string // the file's bytes instead, when the JSON itself is broken
	path   string // where the file lies, if not at basePath
	loader string // a part of the loader's error
	schema bool   // whether schema.json rejects it too (false: beyond a schema)
}

// brokenFiles lists the broken files both the loader and the schema tests
// run.
func brokenFiles() []broken {
	return []broken{
		{clause: "VEC-6", reason: "an integer written as a JSON number", schema: true, loader: "must be a decimal string",
			edit: func(m map[string]any) { firstOp(m)["tks"] = 1 }},
		{clause: "VEC-6", reason: "an integer with a leading zero", schema: true, loader: "not a canonical decimal",
			edit: func(m map[string]any) { firstOp(m)["tks"] = "01" }},
		{clause: "VEC-6", reason: "the integer -0", schema: false, loader: "not a canonical decimal",
			edit: func(m map[string]any) { firstOp(m)["tks"] = "-0" }},
		{clause: "VEC-6", reason: "an integer above 2^64 - 1", schema: false, loader: "not a canonical decimal",
			edit: func(m map[string]any) { firstOp(m)["tks"] = "18446744073709551616" }},
		{clause: "VEC-6", reason: "an int64 argument above MaxInt64", schema: false, loader: "want an int64",
			edit: func(m map[string]any) { firstOp(m)["tks"] = "9223372036854775808" }},
		{clause: "VEC-5", reason: "an unknown level", schema: true, loader: `level "extreme"`,
			edit: func(m map[string]any) { m["level"] = "extreme" }},
		{clause: "VEC-3", reason: "a missing id", schema: true, loader: `"id" is missing`,
			edit: func(m map[string]any) { delete(m, "id") }},
		{clause: "VEC-3", reason: "an id that is not <component>-<area>-<nnn>", schema: true, loader: "is not <component>-<area>-<nnn>",
			edit: func(m map[string]any) { m["id"] = "lim-vec-1" }},
		{clause: "VEC-3", reason: "an id of another component", schema: true, loader: "does not start with its component",
			edit: func(m map[string]any) { m["id"] = "gate-vec-002" }},
		{clause: "VEC-1", reason: "a file named after another id", schema: false, loader: "must be at lim/lim-vec-001.json",
			path: "lim/lim-vec-002.json", edit: func(map[string]any) {}},
		{clause: "VEC-1", reason: "an unknown component", schema: true, loader: `unknown component "bucket"`,
			edit: func(m map[string]any) { m["component"] = "bucket" }},
		{clause: "VEC-2", reason: "another format", schema: true, loader: `format "limcheck-vectors/2"`,
			edit: func(m map[string]any) { m["format"] = "limcheck-vectors/2" }},
		{clause: "VEC-2", reason: "a missing spec_version", schema: true, loader: `"spec_version" is missing`,
			edit: func(m map[string]any) { delete(m, "spec_version") }},
		{clause: "VEC-4", reason: "no clauses", schema: true, loader: `"clauses" is missing or empty`,
			edit: func(m map[string]any) { m["clauses"] = []any{} }},
		{clause: "VEC-4", reason: "a clause that is not an ID", schema: true, loader: `clause "lim-9" is not a spec ID`,
			edit: func(m map[string]any) { m["clauses"] = []any{"lim-9"} }},
		{clause: "VEC-4", reason: "a decision without its side", schema: false, loader: "on which side of DEC-4",
			edit: func(m map[string]any) { m["clauses"] = []any{"LIM-11", "DEC-4"} }},
		{clause: "VEC-4", reason: "a description on two lines", schema: true, loader: "not one line",
			edit: func(m map[string]any) { m["description"] = "one\ntwo" }},
		{clause: "VEC-9", reason: "a lim case with a config", schema: true, loader: "a lim case has no config",
			edit: func(m map[string]any) { m["config"] = map[string]any{} }},
		{clause: "VEC-9", reason: "a gate case without a config", schema: true, loader: "a gate case needs a config",
			path: "gate/gate-vec-002.json", edit: func(m map[string]any) {
				m["component"], m["id"], m["ops"] = "gate", "gate-vec-002", []any{}
			}},
		{clause: "VEC-9", reason: "a gate config without a seed", schema: true, loader: "config: seed is absent, want 32 lowercase hex digits",
			path: "gate/gate-vec-002.json", edit: func(m map[string]any) { gateCaseWithSeed(m, nil) }},
		{clause: "VEC-9", reason: "a gate seed in upper case", schema: true, loader: `config: seed is "000102030405060708090A0B0C0D0E0F", want 32 lowercase hex digits`,
			path: "gate/gate-vec-002.json", edit: func(m map[string]any) { gateCaseWithSeed(m, "000102030405060708090A0B0C0D0E0F") }},
		{clause: "VEC-9", reason: "a gate seed of 15 bytes", schema: true, loader: "config: seed is \"000102030405060708090a0b0c0d0e\", want 32 lowercase hex digits",
			path: "gate/gate-vec-002.json", edit: func(m map[string]any) { gateCaseWithSeed(m, "000102030405060708090a0b0c0d0e") }},
		{clause: "VEC-9", reason: "a gate seed that is a number", schema: true, loader: "seed",
			path: "gate/gate-vec-002.json", edit: func(m map[string]any) { gateCaseWithSeed(m, 7) }},
		{clause: "VEC-11", reason: "a refused config with ops", schema: true, loader: "a refused config runs no op",
			edit: func(m map[string]any) { m["expect_open"] = "config" }},
		{clause: "VEC-11", reason: "expect_open other than config", schema: true, loader: `expect_open "store"`,
			edit: func(m map[string]any) { m["expect_open"], m["ops"] = "store", []any{} }},
		{clause: "VEC-10", reason: "an op without expect", schema: true, loader: `"expect" is missing`,
			edit: func(m map[string]any) { delete(firstOp(m), "expect") }},
		{clause: "VEC-10", reason: "an op of another component", schema: true, loader: "not a lim op",
			edit: func(m map[string]any) { firstOp(m)["op"] = "admit" }},
		{clause: "VEC-10", reason: "an op without one of its arguments", schema: true, loader: "cost is absent",
			edit: func(m map[string]any) { delete(firstOp(m), "cost") }},
		{clause: "VEC-10", reason: "no ops at all", schema: true, loader: `"ops" is missing`,
			edit: func(m map[string]any) { delete(m, "ops") }},
		{clause: "VEC-7", reason: "a byte string in neither form", schema: true, loader: `must be a string or {"hex": ...}`,
			edit: func(m map[string]any) {
				m["ops"] = []any{map[string]any{"op": "lim_ip_key", "ip": 7, "expect": map[string]any{}}}
			}},
		{clause: "VEC-7", reason: "a hex byte string that is not hex", schema: true, loader: "byte string hex",
			edit: func(m map[string]any) {
				m["ops"] = []any{map[string]any{"op": "lim_ip_key", "ip": map[string]any{"hex": "zz"}, "expect": map[string]any{}}}
			}},
		{clause: "VEC-2", reason: "malformed JSON", schema: false, loader: "malformed case", raw: `{"format": "limcheck-vectors/1",`},
	}
}

// gateCaseWithSeed makes m the gate case gate-vec-002 with a refused config
// whose seed is seed (nil: none).
func gateCaseWithSeed(m map[string]any, seed any) {
	g := map[string]any{"cap": "0", "refil": "1", "ivl": "1", "maxif": "1", "sets": "1", "ways": "1", "tick_nanos": "1"}
	if seed != nil {
		g["seed"] = seed
	}
	m["component"], m["id"], m["ops"], m["expect_open"] = "gate", "gate-vec-002", []any{}, "config"
	m["clauses"], m["config"] = []any{"GATE-1"}, map[string]any{"gate": g}
}
