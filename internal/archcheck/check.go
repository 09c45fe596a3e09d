package archcheck

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Violation is one import that the layering rules forbid, or, when Import
// is empty, a module package that no layer covers.
type Violation struct {
	Package string // graph key of the importing package
	Import  string // the forbidden import path; empty for an unlayered package
	Reason  string // the rule broken, in words
}

// String renders v as "pkg imports path: reason".
func (v Violation) String() string {
	if v.Import == "" {
		return fmt.Sprintf("%s: %s", v.Package, v.Reason)
	}
	return fmt.Sprintf("%s imports %s: %s", v.Package, v.Import, v.Reason)
}

// Check returns, sorted by package and import, the layering violations in
// graph, which maps package keys (see the package doc) to import paths.
// Packages outside module are skipped.
func Check(module string, graph map[string][]string) []Violation {
	var out []Violation
	for _, key := range slices.Sorted(maps.Keys(graph)) {
		out = append(out, checkPackage(module, key, graph[key])...)
	}
	return out
}

// checkPackage returns the violations of the package with graph key key.
func checkPackage(module, key string, imports []string) []Violation {
	path, test := splitKey(key)
	rel, ok := relative(module, path)
	if !ok {
		return nil
	}
	rule, ok := ruleFor(rel)
	if !ok {
		return []Violation{{Package: key, Reason: "no layering rule covers this package; add its layer to the rules"}}
	}
	allow := rule.code
	if test {
		allow = rule.tests
	}
	var out []Violation
	for _, imp := range slices.Sorted(slices.Values(imports)) {
		if !allow.permits(module, imp) {
			out = append(out, Violation{Package: key, Import: imp, Reason: rule.says})
		}
	}
	return out
}

// splitKey returns the package path that key is judged as, and whether it
// is judged by test rules: "p [p.test]" and "p_test [p.test]" are p's
// tests, "q [p.test]" is q's code and a plain path is that package's code.
func splitKey(key string) (path string, test bool) {
	path, variant, ok := strings.Cut(key, " [")
	if !ok {
		return key, false
	}
	owner := strings.TrimSuffix(variant, ".test]")
	if base, isX := strings.CutSuffix(path, "_test"); isX && base == owner {
		return base, true
	}
	return path, path == owner
}

// relative returns path relative to module, and whether path is in it.
func relative(module, path string) (string, bool) {
	if path == module {
		return "", true
	}
	return strings.CutPrefix(path, module+"/")
}

// ruleFor returns the rule of the innermost layer that holds the
// module-relative path rel: the longest layer path it is under.
func ruleFor(rel string) (layerRule, bool) {
	var best layerRule
	found := false
	for _, r := range rules {
		if under(rel, r.layer) && (!found || len(r.layer) > len(best.layer)) {
			best, found = r, true
		}
	}
	return best, found
}

// permits reports whether a file with allowance a may import imp.
func (a allowance) permits(module, imp string) bool {
	if rel, ok := relative(module, imp); ok {
		return matches(a.module, rel) && !matches(a.except, rel)
	}
	if isStd(imp) {
		return true
	}
	return matches(a.external, imp)
}

// matches reports whether path is under one of prefixes.
func matches(prefixes []string, path string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool {
		return p == anything || under(path, p)
	})
}

// under reports whether path is prefix or inside it.
func under(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// isStd reports whether imp is a standard-library path: its first element
// has no dot.
func isStd(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".")
}
