package archcheck_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/limcheck/limcheck/internal/archcheck"
)

// mod is the synthetic module the graphs below belong to.
const mod = "example.com/m"

// testOf returns the graph key of pkg compiled with its _test.go files.
func testOf(pkg string) string { return mod + "/" + pkg + " [" + mod + "/" + pkg + ".test]" }

// xtestOf returns the graph key of pkg's external test package.
func xtestOf(pkg string) string { return mod + "/" + pkg + "_test [" + mod + "/" + pkg + ".test]" }

// edge is a wanted violation without its reason.
func edge(pkg, imp string) archcheck.Violation {
	return archcheck.Violation{Package: pkg, Import: imp}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		reason string
		graph  map[string][]string
		want   []archcheck.Violation
	}{
		{
			reason: "model may import the standard library and other model packages",
			graph:  map[string][]string{mod + "/model/lim": {"time", "errors", mod + "/model"}},
		},
		{
			reason: "model's tests may import rapid, go-cmp and internal test helpers",
			graph: map[string][]string{
				testOf("model/lim"):  {"testing", "pgregory.net/rapid", "github.com/google/go-cmp/cmp"},
				xtestOf("model/lim"): {mod + "/model/lim", mod + "/internal/testutil"},
			},
		},
		{
			reason: "impl may import the standard library and other impl packages",
			graph:  map[string][]string{mod + "/impl/lim": {"sync", mod + "/impl/internal/ring"}},
		},
		{
			reason: "oracle may import model, rapid, go-cmp and porcupine",
			graph: map[string][]string{mod + "/oracle": {
				mod + "/model/lim", "pgregory.net/rapid", "github.com/google/go-cmp/cmp", "github.com/anishathalye/porcupine",
			}},
		},
		{
			reason: "conformance may import model, oracle and any third-party package",
			graph:  map[string][]string{mod + "/conformance/vectors": {mod + "/model", mod + "/oracle", "example.org/yaml"}},
		},
		{
			reason: "the go test helper may import conformance, oracle, model and rapid",
			graph: map[string][]string{
				mod + "/conformance/conformancetest":   {"testing", mod + "/conformance", mod + "/oracle", mod + "/model", "pgregory.net/rapid"},
				xtestOf("conformance/conformancetest"): {mod + "/conformance/conformancetest", mod + "/oracle"},
			},
		},
		{
			reason: "the go test helper runs no process: never the protocol, the search or another third-party package",
			graph: map[string][]string{mod + "/conformance/conformancetest": {
				mod + "/conformance/protocol", mod + "/conformance/search", "github.com/google/go-cmp/cmp",
			}},
			want: []archcheck.Violation{
				edge(mod+"/conformance/conformancetest", mod+"/conformance/protocol"),
				edge(mod+"/conformance/conformancetest", mod+"/conformance/search"),
				edge(mod+"/conformance/conformancetest", "github.com/google/go-cmp/cmp"),
			},
		},
		{
			reason: "fuzz, cmd and internal may import anything in the module",
			graph: map[string][]string{
				mod + "/fuzz":                {mod + "/impl/lim", mod + "/model/lim"},
				mod + "/cmd/limcheck":        {mod + "/impl", mod + "/oracle", mod + "/conformance"},
				mod + "/internal/purity":     {"golang.org/x/tools/go/analysis", mod + "/model"},
				testOf("internal/archcheck"): {mod + "/impl"},
			},
		},
		{
			reason: "packages outside the module are not judged",
			graph:  map[string][]string{"example.org/other": {mod + "/impl", "os"}},
		},
		{
			reason: "impl must not import the model it is checked against",
			graph:  map[string][]string{mod + "/impl/lim": {"time", mod + "/model/lim"}},
			want:   []archcheck.Violation{edge(mod+"/impl/lim", mod+"/model/lim")},
		},
		{
			reason: "impl reaching model through impl/x is caught at the impl/x -> model edge, not at impl -> impl/x",
			graph: map[string][]string{
				mod + "/impl":   {mod + "/impl/x"},
				mod + "/impl/x": {mod + "/model"},
			},
			want: []archcheck.Violation{edge(mod+"/impl/x", mod+"/model")},
		},
		{
			reason: "impl's tests may use rapid but never the oracle or a third-party package beyond rapid and go-cmp: checking against the model lives in oracle and fuzz",
			graph: map[string][]string{
				testOf("impl/lim"):  {"pgregory.net/rapid", "golang.org/x/time/rate"},
				xtestOf("impl/lim"): {mod + "/impl/lim", mod + "/oracle"},
			},
			want: []archcheck.Violation{
				edge(testOf("impl/lim"), "golang.org/x/time/rate"),
				edge(xtestOf("impl/lim"), mod+"/oracle"),
			},
		},
		{
			reason: "model's non-test code must not import a third-party module, even one its tests may use",
			graph:  map[string][]string{mod + "/model/gate": {"pgregory.net/rapid"}},
			want:   []archcheck.Violation{edge(mod+"/model/gate", "pgregory.net/rapid")},
		},
		{
			reason: "model's non-test code must not import internal helpers",
			graph:  map[string][]string{mod + "/model": {mod + "/internal/testutil"}},
			want:   []archcheck.Violation{edge(mod+"/model", mod+"/internal/testutil")},
		},
		{
			reason: "model's tests must never import impl",
			graph:  map[string][]string{xtestOf("model/lim"): {mod + "/impl/lim"}},
			want:   []archcheck.Violation{edge(xtestOf("model/lim"), mod+"/impl/lim")},
		},
		{
			reason: "model's code recompiled for another package's test is judged as code, not as a test",
			graph:  map[string][]string{mod + "/model [" + mod + "/fuzz.test]": {"pgregory.net/rapid"}},
			want:   []archcheck.Violation{edge(mod+"/model ["+mod+"/fuzz.test]", "pgregory.net/rapid")},
		},
		{
			reason: "oracle must not import impl, conformance or cmd",
			graph:  map[string][]string{mod + "/oracle": {mod + "/impl/lim", mod + "/conformance", mod + "/cmd/x"}},
			want: []archcheck.Violation{
				edge(mod+"/oracle", mod+"/cmd/x"),
				edge(mod+"/oracle", mod+"/conformance"),
				edge(mod+"/oracle", mod+"/impl/lim"),
			},
		},
		{
			reason: "the generators may import oracle, model and rapid; their tests also go-cmp; oracle's tests may draw from them",
			graph: map[string][]string{
				mod + "/oracle/gen":   {mod + "/oracle", mod + "/model/gate", "pgregory.net/rapid"},
				xtestOf("oracle/gen"): {mod + "/oracle/gen", "github.com/google/go-cmp/cmp"},
				xtestOf("oracle"):     {mod + "/oracle", mod + "/oracle/gen"},
			},
		},
		{
			reason: "impl's subjects may import impl, oracle and rueidis",
			graph: map[string][]string{
				mod + "/internal/subject": {mod + "/impl/throttle/redisstore", mod + "/oracle", "github.com/redis/rueidis"},
			},
		},
		{
			reason: "impl's subjects must not import the model, the generators or conformance",
			graph:  map[string][]string{mod + "/internal/subject": {mod + "/conformance", mod + "/model/lim", mod + "/oracle/gen"}},
			want: []archcheck.Violation{
				edge(mod+"/internal/subject", mod+"/conformance"),
				edge(mod+"/internal/subject", mod+"/model/lim"),
				edge(mod+"/internal/subject", mod+"/oracle/gen"),
			},
		},
		{
			reason: "oracle's code must not import the generators, which build on it",
			graph:  map[string][]string{mod + "/oracle": {mod + "/oracle/gen"}},
			want:   []archcheck.Violation{edge(mod+"/oracle", mod+"/oracle/gen")},
		},
		{
			reason: "the generators must not import conformance (the wire included), impl or a third-party module beyond rapid",
			graph:  map[string][]string{mod + "/oracle/gen": {mod + "/conformance/protocol", mod + "/impl/lim", "github.com/google/go-cmp/cmp"}},
			want: []archcheck.Violation{
				edge(mod+"/oracle/gen", mod+"/conformance/protocol"),
				edge(mod+"/oracle/gen", mod+"/impl/lim"),
				edge(mod+"/oracle/gen", "github.com/google/go-cmp/cmp"),
			},
		},
		{
			reason: "oracle must not import a third-party module outside its list",
			graph:  map[string][]string{mod + "/oracle": {"example.org/yaml"}},
			want:   []archcheck.Violation{edge(mod+"/oracle", "example.org/yaml")},
		},
		{
			reason: "conformance must not import impl or cmd",
			graph:  map[string][]string{mod + "/conformance": {mod + "/impl", mod + "/cmd/x"}},
			want: []archcheck.Violation{
				edge(mod+"/conformance", mod+"/cmd/x"),
				edge(mod+"/conformance", mod+"/impl"),
			},
		},
		{
			reason: "the port protocol and the search may import the vector format, the judge, model and oracle; the search's tests also the protocol; their tests also internal/slowdown",
			graph: map[string][]string{
				mod + "/conformance/protocol":   {mod + "/conformance", mod + "/conformance/judge", mod + "/oracle", mod + "/model/lim", "example.org/yaml"},
				mod + "/conformance/search":     {mod + "/conformance", mod + "/conformance/judge", mod + "/oracle", mod + "/model/lim"},
				xtestOf("conformance/protocol"): {mod + "/conformance/protocol", mod + "/internal/slowdown"},
				testOf("conformance/search"):    {mod + "/conformance/search", mod + "/conformance/protocol", mod + "/internal/slowdown"},
			},
		},
		{
			reason: "the search judges runs and never speaks the wire: its code must not import the protocol",
			graph:  map[string][]string{mod + "/conformance/search": {mod + "/conformance/judge", mod + "/conformance/protocol"}},
			want:   []archcheck.Violation{edge(mod+"/conformance/search", mod+"/conformance/protocol")},
		},
		{
			reason: "the judge may import the vector format, model and oracle; its tests also go-cmp",
			graph: map[string][]string{
				mod + "/conformance/judge":   {mod + "/conformance", mod + "/oracle", mod + "/model/lim"},
				xtestOf("conformance/judge"): {mod + "/conformance/judge", mod + "/conformance", "github.com/google/go-cmp/cmp"},
			},
		},
		{
			reason: "the judge lies below the protocol, the search and the go test helper, and outside packages: it imports none of them, not even from its tests",
			graph: map[string][]string{
				mod + "/conformance/judge":   {mod + "/conformance/protocol", mod + "/conformance/search", "example.org/yaml"},
				xtestOf("conformance/judge"): {mod + "/conformance/conformancetest"},
			},
			want: []archcheck.Violation{
				edge(mod+"/conformance/judge", mod+"/conformance/protocol"),
				edge(mod+"/conformance/judge", mod+"/conformance/search"),
				edge(mod+"/conformance/judge", "example.org/yaml"),
				edge(xtestOf("conformance/judge"), mod+"/conformance/conformancetest"),
			},
		},
		{
			reason: "the vector format must not import the judge, which builds on it",
			graph:  map[string][]string{mod + "/conformance": {mod + "/conformance/judge"}},
			want:   []archcheck.Violation{edge(mod+"/conformance", mod+"/conformance/judge")},
		},
		{
			reason: "the vector format must not import the port protocol, which builds on it",
			graph:  map[string][]string{mod + "/conformance": {mod + "/oracle", mod + "/conformance/protocol"}},
			want:   []archcheck.Violation{edge(mod+"/conformance", mod+"/conformance/protocol")},
		},
		{
			reason: "the vector format must not import the differential search, which builds on it",
			graph:  map[string][]string{mod + "/conformance": {mod + "/conformance/search"}},
			want:   []archcheck.Violation{edge(mod+"/conformance", mod+"/conformance/search")},
		},
		{
			reason: "the port protocol must not import the differential search, which builds on it",
			graph:  map[string][]string{mod + "/conformance/protocol": {mod + "/conformance", mod + "/conformance/search"}},
			want:   []archcheck.Violation{edge(mod+"/conformance/protocol", mod+"/conformance/search")},
		},
		{
			reason: "the vector format's tests are bound too: they must not import the protocol or the search",
			graph: map[string][]string{
				xtestOf("conformance"): {mod + "/conformance", mod + "/conformance/protocol"},
				testOf("conformance"):  {mod + "/internal/slowdown", mod + "/conformance/search"},
			},
			want: []archcheck.Violation{
				edge(testOf("conformance"), mod+"/conformance/search"),
				edge(xtestOf("conformance"), mod+"/conformance/protocol"),
			},
		},
		{
			reason: "a package inside the vector format (conformance/internal/build) must not import a package inside the protocol either",
			graph:  map[string][]string{mod + "/conformance/internal/build": {mod + "/conformance", mod + "/conformance/protocol/wire"}},
			want:   []archcheck.Violation{edge(mod+"/conformance/internal/build", mod+"/conformance/protocol/wire")},
		},
		{
			reason: "a package inside the protocol is judged by the protocol's rule, the innermost layer: it must not import the search",
			graph:  map[string][]string{mod + "/conformance/protocol/wire": {mod + "/conformance/protocol", mod + "/conformance/search"}},
			want:   []archcheck.Violation{edge(mod+"/conformance/protocol/wire", mod+"/conformance/search")},
		},
		{
			reason: "the protocol and the search, like the vector format, must not import impl or cmd",
			graph: map[string][]string{
				mod + "/conformance/protocol": {mod + "/impl"},
				mod + "/conformance/search":   {mod + "/cmd/x"},
			},
			want: []archcheck.Violation{
				edge(mod+"/conformance/protocol", mod+"/impl"),
				edge(mod+"/conformance/search", mod+"/cmd/x"),
			},
		},
		{
			reason: "a layer name is a whole path element: conformance/protocolx belongs to the vector format, which may import it and which it binds",
			graph: map[string][]string{
				mod + "/conformance":           {mod + "/conformance/protocolx"},
				mod + "/conformance/protocolx": {mod + "/conformance/protocol"},
			},
			want: []archcheck.Violation{edge(mod+"/conformance/protocolx", mod+"/conformance/protocol")},
		},
		{
			reason: "a layer name is a whole path element: modelx is not model and has no rule",
			graph:  map[string][]string{mod + "/modelx": {"fmt"}, mod: nil},
			want:   []archcheck.Violation{edge(mod+"/modelx", "")},
		},
		{
			reason: "the root package (spec.md embedded) may import only the standard library",
			graph:  map[string][]string{mod: {"embed", mod + "/model"}},
			want:   []archcheck.Violation{edge(mod, mod+"/model")},
		},
	}
	for i, tc := range tests {
		if tc.reason == "" {
			t.Fatalf("row %d has no reason", i)
		}
		got := archcheck.Check(mod, tc.graph)
		if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(archcheck.Violation{}, "Reason"), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Check(%q, %v) mismatch (-want +got):\n%s\nreason: %s", mod, tc.graph, diff, tc.reason)
		}
		for _, v := range got {
			if v.Reason == "" {
				t.Errorf("Check(%q, %v) = %v with no reason", mod, tc.graph, v)
			}
		}
	}
}

func TestViolationString(t *testing.T) {
	tests := []struct {
		reason string
		v      archcheck.Violation
		want   string
	}{
		{
			reason: "an edge names both ends and the rule",
			v:      archcheck.Violation{Package: "m/impl", Import: "m/model", Reason: "impl may not"},
			want:   "m/impl imports m/model: impl may not",
		},
		{
			reason: "an unlayered package names only itself and the rule",
			v:      archcheck.Violation{Package: "m/x", Reason: "no rule"},
			want:   "m/x: no rule",
		},
	}
	for i, tc := range tests {
		if tc.reason == "" {
			t.Fatalf("row %d has no reason", i)
		}
		if got := tc.v.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q (%s)", tc.v, got, tc.want, tc.reason)
		}
	}
}
