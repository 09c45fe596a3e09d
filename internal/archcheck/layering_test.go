package archcheck_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/limcheck/limcheck/internal/archcheck"
)

func TestLayering(t *testing.T) {
	pattern := archcheck.Module + "/..."
	graph, err := archcheck.LoadGraph(".", pattern)
	if err != nil {
		t.Fatalf("LoadGraph(%q, %q) error: %v", ".", pattern, err)
	}
	self := archcheck.Module + "/internal/archcheck"
	xtest := self + "_test [" + self + ".test]"
	for _, key := range []string{self, xtest} {
		if _, ok := graph[key]; !ok {
			t.Errorf("LoadGraph(%q, %q) has no package %q; the check would be vacuous", ".", pattern, key)
		}
	}
	if !slices.Contains(graph[xtest], self) {
		t.Errorf("LoadGraph(%q, %q)[%q] = %v, want it to contain %q", ".", pattern, xtest, graph[xtest], self)
	}
	// The conformance layers' direction is checked on real edges: each
	// layer imports the one below it.
	for _, e := range []struct{ from, to string }{
		{"conformance/judge", "conformance"},
		{"conformance/protocol", "conformance/judge"},
		{"conformance/search", "conformance/judge"},
		{"cmd/limcheck", "conformance/search"},
	} {
		from, to := archcheck.Module+"/"+e.from, archcheck.Module+"/"+e.to
		if !slices.Contains(graph[from], to) {
			t.Errorf("LoadGraph(%q, %q)[%q] = %v, want it to contain %q", ".", pattern, from, graph[from], to)
		}
	}
	t.Logf("LoadGraph(%q, %q) found %d packages and test variants: %v", ".", pattern, len(graph), slices.Sorted(maps.Keys(graph)))
	for _, v := range archcheck.Check(archcheck.Module, graph) {
		t.Errorf("Check(%q, graph) found %v", archcheck.Module, v)
	}
}
