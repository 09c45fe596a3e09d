package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/limcheck/limcheck/conformance/report"
)

// report.schema.json compiles as JSON Schema 2020-12, both of its
// definitions, and is not vacuous: it refuses a run report without its
// format. (cmd/limcheck's scripts validate real --json output against it.)
func TestReportSchema(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(report.Schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(report.SchemaFile, doc); err != nil {
		t.Fatal(err)
	}
	for _, def := range []string{"", "#/$defs/run", "#/$defs/runs", "#/$defs/fuzz"} {
		if _, err := c.Compile(report.SchemaFile + def); err != nil {
			t.Errorf("compile %s%s: %v", report.SchemaFile, def, err)
		}
	}
	run, err := c.Compile(report.SchemaFile + "#/$defs/run")
	if err != nil {
		t.Fatal(err)
	}
	report := `{"format": "limcheck-report/1", "command": "run", "status": 0,
		"port": {"name": "p", "version": "1", "components": ["lim"]}, "spec_version": "1.2.0",
		"summary": {"passed": 0, "failed": 0, "skipped": 0, "expected_failures": 0, "unexpected_passes": 0, "broken": 0, "not_run": 0, "elapsed_ms": 0},
		"cases": []}`
	for _, tt := range []struct {
		doc    string
		ok     bool
		reason string
	}{
		{report, true, "the smallest run report"},
		{strings.Replace(report, `"format": "limcheck-report/1", `, "", 1), false, "a report without its format"},
		{strings.Replace(report, `limcheck-report/1`, `limcheck-report/2`, 1), false, "another format"},
		{strings.Replace(report, `"cases": []`, `"cases": [], "diff": "x"`, 1), false, "a key the format does not have"},
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(tt.doc))
		if err != nil {
			t.Fatal(err)
		}
		if err := run.Validate(v); (err == nil) != tt.ok {
			t.Errorf("run.Validate(%s) = %v, want ok %v", tt.reason, err, tt.ok)
		}
	}
}
