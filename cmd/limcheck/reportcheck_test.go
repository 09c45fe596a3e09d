package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/limcheck/limcheck/conformance/report"
)

// The script commands that check limcheck's reports as a CI tool or a
// terminal receives them (registered in TestScripts).

// cmdByteClean is `byteclean FILE`: it fails unless FILE (or stdout, the
// last command's) is text no terminal or viewer acts on: valid UTF-8, no
// byte below 0x20 but LF (a tab neither), no DEL, no C1 control, no bidi
// or line-breaking rune, and a final LF.
func cmdByteClean(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: byteclean FILE")
	}
	if err := report.ByteClean(ts.ReadFile(args[0])); err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
}

// cmdSchema is `schema DEF FILE`: it fails unless FILE (or stdout) is one
// JSON document that conformance/report/report.schema.json's definition DEF
// ("run" or "fuzz") accepts.
func cmdSchema(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: schema run|runs|fuzz FILE")
	}
	err := validateReport(args[0], []byte(ts.ReadFile(args[1])))
	switch {
	case err != nil && !neg:
		ts.Fatalf("%s: %v", args[1], err)
	case err == nil && neg:
		ts.Fatalf("%s: the schema's %s accepts it", args[1], args[0])
	}
}

// validateReport validates data against the report schema's definition
// def.
func validateReport(def string, data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(report.Schema))
	if err != nil {
		return fmt.Errorf("report.schema.json: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(report.SchemaFile, doc); err != nil {
		return err
	}
	s, err := c.Compile(report.SchemaFile + "#/$defs/" + def)
	if err != nil {
		return fmt.Errorf("compile report.schema.json#/$defs/%s: %w", def, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// cmdSameReport is `samereport A B`: it fails unless the JSON documents A
// and B are equal byte for byte once every timing (a key ending in _ms) is
// dropped: two runs of one command report the same.
func cmdSameReport(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: samereport A B")
	}
	a, b := untimed(ts, args[0]), untimed(ts, args[1])
	if a != b {
		ts.Fatalf("%s and %s differ beyond their timings:\n%s\n\n%s", args[0], args[1], a, b)
	}
	if !strings.Contains(ts.ReadFile(args[0]), `"elapsed_ms"`) {
		ts.Fatalf("%s has no elapsed_ms: the timings moved", args[0])
	}
}

// untimed is file's text without the lines of its timings: the report's
// timings are lines of their own, keys ending in _ms.
func untimed(ts *testscript.TestScript, file string) string {
	data := ts.ReadFile(file)
	if !json.Valid([]byte(data)) {
		ts.Fatalf("%s is not one JSON document", file)
	}
	var keep []string
	for _, l := range strings.Split(data, "\n") {
		if k, _, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && strings.HasSuffix(k, `_ms"`) {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}
