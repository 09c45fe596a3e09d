package archcheck_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/internal/archcheck"
)

// TestFunctionLength: no non-test function of a folder under the length
// rule spans more than MaxFuncLines lines.
func TestFunctionLength(t *testing.T) {
	for _, rel := range archcheck.LengthRule {
		dir := filepath.Join("..", "..", rel)
		long, err := archcheck.LongFuncs(dir, archcheck.MaxFuncLines)
		if err != nil {
			t.Fatalf("LongFuncs(%q, %d) error: %v", dir, archcheck.MaxFuncLines, err)
		}
		for _, f := range long {
			t.Errorf("%v, more than %d: split it", f, archcheck.MaxFuncLines)
		}
	}
}

// TestLongFuncsCountsFromFuncToBrace: a function of limit+1 lines is
// long, one of limit lines is not, a long literal counts on its own, and
// test files and testdata are left out.
func TestLongFuncsCountsFromFuncToBrace(t *testing.T) {
	const limit = 5
	body := func(name string, lines int) string { // a function of lines lines
		return "func " + name + "() {\n" + strings.Repeat("\t_ = 1\n", lines-2) + "}\n"
	}
	lit := "var v = func() {\n" + strings.Repeat("\t_ = 1\n", limit) + "}\n" // limit+2 lines
	dir := t.TempDir()
	files := map[string]string{
		"a.go":            "package p\n\n" + body("short", limit) + body("long", limit+1) + lit,
		"a_test.go":       "package p\n\n" + body("inTest", limit+10),
		"testdata/b.go":   "package p\n\n" + body("inTestdata", limit+10),
		"sub/c.go":        "package q\n\n" + body("deep", limit+3),
		"sub/README.text": "not Go",
	}
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long, err := archcheck.LongFuncs(dir, limit)
	if err != nil {
		t.Fatalf("LongFuncs error: %v", err)
	}
	var got []string
	for _, f := range long {
		got = append(got, f.String()[len(dir)+1:])
	}
	want := []string{"a.go:8: long spans 6 lines", "a.go:14: func literal spans 7 lines", "sub/c.go:3: deep spans 8 lines"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("LongFuncs(dir, %d) =\n%s\nwant\n%s", limit, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
