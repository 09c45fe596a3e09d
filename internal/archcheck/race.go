package archcheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// concurrentImports are the standard packages whose use starts goroutines
// or processes that run beside the caller's code: a test binary that uses
// one of them from the module's code can race without a go statement of
// its own.
var concurrentImports = map[string]bool{
	"os/exec":           true,
	"os/signal":         true,
	"net/http/httptest": true,
}

// ConcurrentTests returns, for every package of the module matching
// patterns (loaded from dir), whether its test binary runs the module's
// code on more than one goroutine: whether the package's own files, its
// test files, or the non-test files of a module package it imports
// (directly or not) hold a go statement or import one of
// concurrentImports. Only those binaries can show a data race, so only
// they need the race detector; the others (the model, the oracle, the
// spec and vector tools) run the same tests without it, several times
// faster. The keys are import paths; a package without test files maps to
// false.
func ConcurrentTests(dir string, patterns ...string) (map[string]bool, error) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps, Dir: dir, Tests: true}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("archcheck: loading %q: %w", patterns, err)
	}
	if err := loadErrors(pkgs); err != nil {
		return nil, fmt.Errorf("archcheck: loading %q: %w", patterns, err)
	}
	sp := spawners{files: map[string]bool{}}
	out := map[string]bool{}
	for _, p := range pkgs {
		if !inModule(p) || isTestMain(p) {
			continue
		}
		key := strings.TrimSuffix(p.PkgPath, "_test")
		if _, ok := out[key]; !ok {
			out[key] = false
		}
		if !strings.HasSuffix(p.ID, ".test]") || out[key] {
			continue // the plain package: its test variants decide
		}
		// A test variant (p [p.test] or p_test [p.test]): it and every
		// module package it reaches.
		if out[key], err = sp.reaches(p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// inModule reports whether p is a package of this module.
func inModule(p *packages.Package) bool {
	return p.PkgPath == Module || strings.HasPrefix(p.PkgPath, Module+"/")
}

// spawners finds the files and packages that spawn goroutines: a file
// that holds a go statement or imports a package of concurrentImports.
type spawners struct {
	files map[string]bool // file path -> spawns, for the files read so far
}

// reaches reports whether p or a module package it imports, directly or
// not, spawns.
func (sp spawners) reaches(p *packages.Package) (bool, error) {
	seen := map[string]bool{}
	stack := []*packages.Package{p}
	for len(stack) > 0 {
		q := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[q.ID] || !inModule(q) {
			continue
		}
		seen[q.ID] = true
		if v, err := sp.pkg(q); err != nil || v {
			return v, err
		}
		for _, k := range slices.Sorted(maps.Keys(q.Imports)) {
			stack = append(stack, q.Imports[k])
		}
	}
	return false, nil
}

// pkg reports whether a module package's own files (for a test variant,
// its test files too) spawn.
func (sp spawners) pkg(p *packages.Package) (bool, error) {
	for _, f := range p.GoFiles {
		if v, err := sp.file(f); err != nil || v {
			return v, err
		}
	}
	return false, nil
}

// file reports whether the file at path spawns.
func (sp spawners) file(path string) (bool, error) {
	if v, ok := sp.files[path]; ok {
		return v, nil
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return false, fmt.Errorf("archcheck: %w", err)
	}
	v := false
	for _, im := range f.Imports {
		if p, err := strconv.Unquote(im.Path.Value); err == nil && concurrentImports[p] {
			v = true
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if _, ok := n.(*ast.GoStmt); ok {
			v = true
		}
		return !v
	})
	sp.files[path] = v
	return v, nil
}

// ListPackages returns the import paths of the packages matching patterns
// (loaded from dir), without their test variants.
func ListPackages(dir string, patterns ...string) ([]string, error) {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName, Dir: dir}, patterns...)
	if err != nil {
		return nil, fmt.Errorf("archcheck: loading %q: %w", patterns, err)
	}
	if err := loadErrors(pkgs); err != nil {
		return nil, fmt.Errorf("archcheck: loading %q: %w", patterns, err)
	}
	var out []string
	for _, p := range pkgs {
		out = append(out, p.PkgPath)
	}
	slices.Sort(out)
	return out, nil
}
