package fuzz_test

import (
	"os"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/impl/throttle"
	"github.com/limcheck/limcheck/internal/speccheck"
	"github.com/limcheck/limcheck/internal/subject"
	"github.com/limcheck/limcheck/oracle"
)

// TestVectorsPassImpl runs every conformance vector against impl/: each
// must pass, but for the few whose config is past impl's documented limits
// (more gate slots than subject.MaxGateSlots, a threshold over
// throttle.MaxStampsPerKey: the vectors that catch a port keeping those
// in 16 or 32 bits), which it must skip; a skip of any other case is a
// failure. A failure is an impl bug or a stale vector; its report shows
// the ops up to the divergence.
func TestVectorsPassImpl(t *testing.T) {
	cases, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatalf("conformance.Load(Vectors) error: %v", err)
	}
	passed, skipped := 0, 0
	for _, c := range cases {
		r := judge.Check(subject.Impl{}, c)
		switch {
		case r.Verdict == judge.Skip && pastImplLimits(c.Trace().Config):
			skipped++
		case r.Divergence != nil:
			t.Errorf("%s (%s): Check(impl) = %s, %s:\n%s", c.ID, c.Description, r.Verdict, r.Why, conformance.Differ(c.Trace(), r.Divergence).Text("expected", "impl"))
		case r.Verdict != judge.Pass:
			t.Errorf("%s (%s): Check(impl) = %s, %s; want %s", c.ID, c.Description, r.Verdict, r.Why, judge.Pass)
		default:
			passed++
		}
	}
	t.Logf("impl passes %d of %d conformance vectors and skips %d past its limits", passed, len(cases), skipped)
}

// pastImplLimits reports whether cfg is past impl's documented limits.
func pastImplLimits(cfg oracle.Config) bool {
	if g := cfg.Gate; g != nil {
		return g.TableSize() > subject.MaxGateSlots
	}
	if th := cfg.Throttle; th != nil {
		n, ok := th.Threshold.Uint64()
		return ok && n > throttle.MaxStampsPerKey
	}
	return false
}

// TestVectorCoverage fails on any gap in the vectors' coverage of spec.md
// (spec VEC-14): a live LIM, GATE, THR, STORE or VEC clause or a finding
// with no case, a decision without a case on each side, an integer extreme
// no case passes, a case listing an ID spec.md lacks. It logs the table
// (make vectorcov prints it).
func TestVectorCoverage(t *testing.T) {
	spec, err := speccheck.ReadSpec(os.DirFS(".."))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := conformance.Load(conformance.Vectors)
	if err != nil {
		t.Fatalf("conformance.Load(Vectors) error: %v", err)
	}
	ids := make([]conformance.SpecID, len(spec.Defs))
	for n, d := range spec.Defs {
		ids[n] = conformance.SpecID{ID: d.ID, Retired: d.Retired, NoVector: d.NoVector}
	}
	report := conformance.Coverage(ids, cases)
	t.Logf("coverage of %s by %d vectors:\n%s", speccheck.SpecFile, len(cases), report)
	for _, gap := range report.Gaps() {
		t.Errorf("vector coverage: %s", gap)
	}
}
