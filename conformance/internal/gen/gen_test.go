package gen_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/internal/build"
	"github.com/limcheck/limcheck/conformance/internal/gen"
)

// VEC-13: regenerating the committed vectors changes nothing, so the files
// are what the builders and the model make now (make vectorcheck does the
// same with diff -r).
func TestCommittedVectorsAreCurrent(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, conformance.Vectors); err != nil {
		t.Fatal(err)
	}
	spec, err := os.ReadFile("../../../spec.md")
	if err != nil {
		t.Fatal(err)
	}
	version, err := conformance.SpecVersion(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gen.Generate(dir, version, build.All()); err != nil {
		t.Fatalf("Generate error: %v", err)
	}
	compare(t, conformance.Vectors, os.DirFS(dir))
	compare(t, os.DirFS(dir), conformance.Vectors)
}

// compare reports every file of a that b lacks or holds differently.
func compare(t *testing.T, a, b fs.FS) {
	t.Helper()
	err := fs.WalkDir(a, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		x, _ := fs.ReadFile(a, p)
		y, err := fs.ReadFile(b, p)
		switch {
		case err != nil:
			t.Errorf("%s: only one of the committed and the regenerated vectors has it: run make vectors", p)
		case !bytes.Equal(x, y):
			t.Errorf("%s differs from what the generator writes now: run make vectors", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// VEC-3: a generator run keeps IDs by description, numbers new cases after
// every number ever issued, retires the IDs of removed cases and never
// reuses them.
func TestGenerateKeepsIDsStable(t *testing.T) {
	dir := t.TempDir()
	all := build.All()
	first, second := all[:3], append([]build.Draft{all[0]}, all[2:4]...)
	ids := generate(t, dir, first)
	if want := []string{"lim-vec-001", "lim-vec-002", "gate-vec-001"}; strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Fatalf("first run IDs %v, want %v", ids, want)
	}
	ids = generate(t, dir, second)
	if want := []string{"lim-vec-001", "gate-vec-001", "throttle-vec-001"}; strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("second run IDs %v, want %v: kept by description", ids, want)
	}
	ids = generate(t, dir, first)
	if want := []string{"lim-vec-001", "lim-vec-003", "gate-vec-001"}; strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("third run IDs %v, want %v: the retired lim-vec-002 is never reused", ids, want)
	}
	text, _ := os.ReadFile(filepath.Join(dir, conformance.IDsFile))
	if want := "lim-vec-001\nlim-vec-002 retired\ngate-vec-001\nthrottle-vec-001 retired\nlim-vec-003\n"; string(text) != want {
		t.Errorf("ids.txt = %q, want %q", text, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "lim", "lim-vec-002.json")); err == nil {
		t.Error("lim/lim-vec-002.json survives its retirement")
	}
}

// generate runs Generate on dir and returns the IDs it gave.
func generate(t *testing.T, dir string, drafts []build.Draft) []string {
	t.Helper()
	cases, err := gen.Generate(dir, "0.0.0", drafts)
	if err != nil {
		t.Fatalf("Generate error: %v", err)
	}
	var ids []string
	for _, c := range cases {
		ids = append(ids, c.ID)
	}
	return ids
}

// VEC-3: two cases of one component may not share a description, their
// identity.
func TestAssignRefusesTwinDescriptions(t *testing.T) {
	d := build.All()[0]
	_, err := gen.Generate(t.TempDir(), "0.0.0", []build.Draft{d, d})
	if err == nil || !strings.Contains(err.Error(), "a description names one case") {
		t.Errorf("Generate(twin drafts) error %v, want the twin descriptions refused", err)
	}
}
