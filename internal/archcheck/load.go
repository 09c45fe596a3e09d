package archcheck

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// LoadGraph loads the packages matching patterns from dir, with their test
// variants, and returns their import graph keyed as [Check] expects. The
// main packages that go test generates are left out. It fails if any
// package could not be listed, since its imports would then be unknown.
func LoadGraph(dir string, patterns ...string) (map[string][]string, error) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedImports, Dir: dir, Tests: true}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("archcheck: loading %q: %w", patterns, err)
	}
	if err := loadErrors(pkgs); err != nil {
		return nil, fmt.Errorf("archcheck: loading %q: %w", patterns, err)
	}
	graph := map[string][]string{}
	for _, p := range pkgs {
		if !isTestMain(p) {
			graph[p.ID] = slices.Sorted(maps.Keys(p.Imports))
		}
	}
	return graph, nil
}

// loadErrors joins the errors of pkgs, or returns nil.
func loadErrors(pkgs []*packages.Package) error {
	var errs []error
	for _, p := range pkgs {
		for _, e := range p.Errors {
			errs = append(errs, e)
		}
	}
	return errors.Join(errs...)
}

// isTestMain reports whether p is the main package that go test
// generates (ID "p.test").
func isTestMain(p *packages.Package) bool {
	return p.Name == "main" && strings.HasSuffix(p.ID, ".test")
}
