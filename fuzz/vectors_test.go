package fuzz_test

import (
	"os"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/internal/implsubject"
	"github.com/limcheck/limcheck/internal/speccheck"
)

// TestVectorsPassImpl runs every conformance vector against impl/: each
// must pass (a skip, an implementation limit, is reported as a failure too:
// no committed vector should exceed impl's limits). A failure is an impl
// bug or a stale vector; its report shows the ops up to the divergence.
func TestVectorsPassImpl(t *testing.T) {
	cases, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatalf("conformance.Load(Vectors) error: %v", err)
	}
	passed := 0
	for _, c := range cases {
		v, d, err := conformance.Check(implsubject.Impl{}, c)
		switch {
		case err != nil:
			t.Errorf("%s (%s): Check(impl) error: %v", c.ID, c.Description, err)
		case d != nil:
			t.Errorf("%s (%s): Check(impl) = %s:\n%s", c.ID, c.Description, v, d.Report(c.Trace(), "expected", "impl"))
		case v != conformance.Pass:
			t.Errorf("%s (%s): Check(impl) = %s, want pass", c.ID, c.Description, v)
		default:
			passed++
		}
	}
	t.Logf("impl passes %d of %d conformance vectors", passed, len(cases))
}

// TestVectorCoverage fails on any gap in the vectors' coverage of spec.md
// (spec VEC-14): a live LIM, GATE, THR, STORE or VEC clause or a finding
// with no case, a decision without a case on each side, an integer extreme
// no case passes, a case listing an ID spec.md lacks. It logs the table
// (make vectorcov prints it).
func TestVectorCoverage(t *testing.T) {
	src, err := os.ReadFile("../" + speccheck.SpecFile)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := speccheck.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatalf("conformance.Load(Vectors) error: %v", err)
	}
	ids := make([]conformance.SpecID, len(spec.Defs))
	for n, d := range spec.Defs {
		ids[n] = conformance.SpecID{ID: d.ID, Retired: d.Retired}
	}
	report := conformance.Coverage(ids, cases)
	t.Logf("coverage of %s by %d vectors:\n%s", speccheck.SpecFile, len(cases), report)
	for _, gap := range report.Gaps() {
		t.Errorf("vector coverage: %s", gap)
	}
}
