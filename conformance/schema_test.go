package conformance_test

import (
	"bytes"
	"io/fs"
	"path"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/limcheck/limcheck/conformance"
)

// schema compiles the committed schema.json.
func schema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	data, err := fs.ReadFile(conformance.Vectors, conformance.SchemaFile)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("schema.json: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(conformance.SchemaFile, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(conformance.SchemaFile)
	if err != nil {
		t.Fatalf("compile schema.json: %v", err)
	}
	return s
}

// validate validates one case file against s.
func validate(s *jsonschema.Schema, data []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// VEC-1: every case file validates against schema.json.
func TestSchemaAcceptsEveryVector(t *testing.T) {
	s := schema(t)
	for _, c := range load(t) {
		p := path.Join(string(c.Component), c.ID+".json")
		data, _ := fs.ReadFile(conformance.Vectors, p)
		if err := validate(s, data); err != nil {
			t.Errorf("%s does not validate against schema.json: %v", p, err)
		}
	}
}

// The schema rejects what it can express of the broken files, and accepts
// unknown keys (VEC-8).
func TestSchemaRejectsBrokenFiles(t *testing.T) {
	s := schema(t)
	for _, b := range brokenFiles() {
		if !b.schema {
			continue
		}
		m := baseCase(t)
		b.edit(m)
		if err := validate(s, marshal(t, m)); err == nil {
			t.Errorf("%s: schema.json accepts %s, want it refused", b.clause, b.reason)
		}
	}
	m := baseCase(t)
	m["x-note"], firstOp(m)["x-note"] = "ignored", []any{1}
	if err := validate(s, marshal(t, m)); err != nil {
		t.Errorf("VEC-8: schema.json refuses unknown keys: %v", err)
	}
}
