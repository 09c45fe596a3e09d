package speccheck

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// rapidPath is the import path that makes a test a property test.
const rapidPath = "pgregory.net/rapid"

// File holds the IDs one .go file refers to.
type File struct {
	Path   string // slash-separated, relative to the scanned root
	Test   bool   // a _test.go file
	Rapid  bool   // imports pgregory.net/rapid
	Cites  []Ref  // occurrences of the exact text "spec AREA-n"
	Tokens []Ref  // every whole-word AREA-n, whatever its prefix
}

// Refs holds the references of every scanned .go file, in walk order.
type Refs struct {
	Files []File
}

var citeRE = regexp.MustCompile(`\bspec ([A-Z]+-[0-9]+)\b`)

// Scan reads every .go file of fsys, skipping testdata, vendor and dot
// directories, and collects the IDs each refers to.
func Scan(fsys fs.FS) (*Refs, error) {
	refs := &Refs{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return skipDir(p, d.Name())
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := scanFile(fsys, p)
		refs.Files = append(refs.Files, f)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("speccheck: scan: %w", err)
	}
	return refs, nil
}

// skipDir returns fs.SkipDir for directories the scan leaves out.
func skipDir(p, name string) error {
	if p == "." {
		return nil
	}
	if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") {
		return fs.SkipDir
	}
	return nil
}

// scanFile collects the references of the .go file at p.
func scanFile(fsys fs.FS, p string) (File, error) {
	src, err := fs.ReadFile(fsys, p)
	if err != nil {
		return File{}, err
	}
	f := File{Path: p, Test: strings.HasSuffix(path.Base(p), "_test.go")}
	if f.Test {
		if f.Rapid, err = importsRapid(p, src); err != nil {
			return File{}, err
		}
	}
	for i, line := range strings.Split(string(src), "\n") {
		f.Tokens = append(f.Tokens, wordIDs(line, i+1)...)
		f.Cites = append(f.Cites, cites(line, i+1)...)
	}
	return f, nil
}

// cites returns the IDs cited as "spec AREA-n" on line n.
func cites(line string, n int) []Ref {
	var refs []Ref
	for _, m := range citeRE.FindAllStringSubmatch(line, -1) {
		refs = append(refs, Ref{ID: m[1], Line: n})
	}
	return refs
}

// importsRapid reports whether the Go source src imports rapid.
func importsRapid(p string, src []byte) (bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ImportsOnly)
	if err != nil {
		return false, err
	}
	for _, imp := range f.Imports {
		if v, _ := strconv.Unquote(imp.Path.Value); v == rapidPath {
			return true, nil
		}
	}
	return false, nil
}

// Load parses the specification's Files at the root of fsys (ReadSpec) and
// scans the .go files below it.
func Load(fsys fs.FS) (*Spec, *Refs, error) {
	spec, err := ReadSpec(fsys)
	if err != nil {
		return nil, nil, err
	}
	refs, err := Scan(fsys)
	if err != nil {
		return nil, nil, err
	}
	return spec, refs, nil
}
