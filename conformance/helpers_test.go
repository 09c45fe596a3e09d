package conformance_test

import (
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/limcheck/limcheck/conformance"
)

// basePath is the case the broken-file tests start from: the smallest lim
// case.
const basePath = "lim/lim-vec-001.json"

// baseCase returns basePath's case file as a JSON tree to edit.
func baseCase(t *testing.T) map[string]any {
	t.Helper()
	data, err := fs.ReadFile(conformance.Vectors, basePath)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// firstOp returns the first op of the case tree m.
func firstOp(m map[string]any) map[string]any {
	return m["ops"].([]any)[0].(map[string]any)
}

// marshal encodes a case tree.
func marshal(t *testing.T, m map[string]any) []byte {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// folder returns a vectors folder holding one file.
func folder(p string, data []byte) fs.FS {
	return fstest.MapFS{p: &fstest.MapFile{Data: data}}
}

// hexBytes decodes h, failing the test when it is not hex.
func hexBytes(t *testing.T, h string) string {
	t.Helper()
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatalf("hex %q: %v", h, err)
	}
	return string(b)
}
