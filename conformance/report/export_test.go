package report_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/conformance/report"
)

// Export writes every file of the embedded vectors, byte for byte, and
// the two schemas, and counts the case files; a second Export into the
// same folder writes the same.
func TestExportWritesTheVectorsAndSchemas(t *testing.T) {
	dir := t.TempDir()
	for range 2 {
		n, err := report.Export(dir)
		if err != nil {
			t.Fatalf("Export: %v", err)
		}
		cases := 0
		err = fs.WalkDir(conformance.Vectors, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if strings.Contains(p, "/") && filepath.Ext(p) == ".json" {
				cases++
			}
			want, _ := fs.ReadFile(conformance.Vectors, p)
			if got, err := os.ReadFile(filepath.Join(dir, p)); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: err %v, content equal %v; want the embedded file", p, err, bytes.Equal(got, want))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != cases || n == 0 {
			t.Errorf("Export = %d cases, want %d (the case files embedded)", n, cases)
		}
		for name, want := range map[string][]byte{"protocol.schema.json": protocol.ProtocolSchema, report.SchemaFile: report.Schema} {
			if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: err %v; want the embedded schema", name, err)
			}
		}
	}
}

// Export refuses a folder with a symbolic link where it would write, by
// name, and writes nothing through it.
func TestExportRefusesLinks(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dir, "lim")); err != nil {
		t.Fatal(err)
	}
	_, err := report.Export(dir)
	if err == nil || !strings.Contains(err.Error(), "lim is a symbolic link (to "+elsewhere+")") {
		t.Errorf("Export error = %v, want one naming the link lim and its target", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("Export wrote %d entries through the link", len(ents))
	}
}
