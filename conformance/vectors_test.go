package conformance_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/oracle"
)

// load returns the committed cases, failing the test on any error.
func load(t *testing.T) []conformance.Case {
	t.Helper()
	cases, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatalf("Load(Vectors) error: %v", err)
	}
	if len(cases) == 0 {
		t.Fatal("Load(Vectors) = no cases")
	}
	return cases
}

// VEC-1: the folder holds component folders of case files, schema.json and
// ids.txt, and nothing else.
func TestVectorsLayout(t *testing.T) {
	err := fs.WalkDir(conformance.Vectors, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		dir, name := path.Split(p)
		switch {
		case dir == "" && d.IsDir():
			if !slices.Contains(oracle.Components(), oracle.Component(name)) {
				t.Errorf("vectors/%s is a folder but not a component", p)
			}
		case dir == "":
			if name != conformance.SchemaFile && name != conformance.IDsFile {
				t.Errorf("vectors/%s: want only %s and %s at the top", p, conformance.SchemaFile, conformance.IDsFile)
			}
		case d.IsDir() || path.Ext(name) != ".json":
			t.Errorf("vectors/%s: a component folder holds only .json case files", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// VEC-3: every case's ID is issued and live, every live ID has its file.
func TestVectorsIDsAreIssued(t *testing.T) {
	cases := load(t)
	ids, err := conformance.ReadIDs(conformance.Vectors)
	if err != nil {
		t.Fatalf("ReadIDs(Vectors) error: %v", err)
	}
	for _, err := range conformance.CheckIDs(ids, cases) {
		t.Error(err)
	}
}

// VEC-2: every case names the version spec.md states.
func TestVectorsSpecVersion(t *testing.T) {
	spec, err := os.ReadFile("../spec.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := conformance.SpecVersion(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range load(t) {
		if c.SpecVersion != want {
			t.Errorf("%s: spec_version %q, want %q (spec.md's version line): run make vectors", c.ID, c.SpecVersion, want)
		}
	}
}

// VEC-13: every file is in canonical form: Encode of what it decodes to.
func TestVectorsAreCanonical(t *testing.T) {
	for _, c := range load(t) {
		p := path.Join(string(c.Component), c.ID+".json")
		data, err := fs.ReadFile(conformance.Vectors, p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := conformance.Encode(c)
		if err != nil {
			t.Fatalf("Encode(%s) error: %v", c.ID, err)
		}
		if !bytes.Equal(data, want) {
			t.Errorf("%s is not in canonical form (keys sorted, two-space indent, trailing newline): run make vectors", p)
		}
	}
}

// VEC-6, VEC-7: no file holds a JSON number, and a {"hex"} byte string is
// used exactly for bytes that are not UTF-8.
func TestVectorsIntegersAndBytesForm(t *testing.T) {
	for _, c := range load(t) {
		p := path.Join(string(c.Component), c.ID+".json")
		data, _ := fs.ReadFile(conformance.Vectors, p)
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var tree any
		if err := dec.Decode(&tree); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		walk(tree, func(v any) {
			switch v := v.(type) {
			case json.Number:
				t.Errorf("%s holds the JSON number %s: integers are decimal strings", p, v)
			case map[string]any:
				if h, ok := v["hex"].(string); ok && len(v) == 1 && utf8.ValidString(hexBytes(t, h)) {
					t.Errorf("%s writes the UTF-8 bytes %q as hex: want a plain string", p, h)
				}
			}
		})
	}
}

// VEC-5: a case is strict iff one of its ops is out of contract.
func TestVectorsLevels(t *testing.T) {
	for _, c := range load(t) {
		out := slices.ContainsFunc(c.Ops, func(s conformance.Step) bool { return outOfContract(s.Op) })
		want := conformance.Core
		if out {
			want = conformance.Strict
		}
		if c.Level != want {
			t.Errorf("%s: level %s, want %s (out-of-contract op: %v)", c.ID, c.Level, want, out)
		}
	}
}

// outOfContract reports whether op is input the seed forbids (spec.md:
// LIM-7's takes, lim_acq with n < 0, lim_resp_503 with retry < 0).
func outOfContract(op oracle.Op) bool {
	a, err := op.Lim()
	if err != nil {
		return false // not a lim op: every gate and throttle input is in contract
	}
	switch op.Kind {
	case oracle.LimTake:
		return min(a.Cap, a.Refil, a.Ivl, a.Maxif, a.Cost) < 1 || a.Tks < 0
	case oracle.LimAcq:
		return a.N < 0
	case oracle.LimResp503:
		return a.Retry < 0
	}
	return false
}

// The number of cases per component and level, for the record.
func TestVectorsCount(t *testing.T) {
	for _, row := range conformance.Count(load(t)) {
		t.Logf("%-16s core %3d  strict %3d", row.Component, row.Core, row.Strict)
	}
}

// walk calls f on v and everything inside it.
func walk(v any, f func(any)) {
	f(v)
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			walk(e, f)
		}
	case []any:
		for _, e := range v {
			walk(e, f)
		}
	}
}
