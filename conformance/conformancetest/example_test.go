package conformancetest_test

import (
	"fmt"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/conformancetest"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// gateOnly is a Go implementation under check: here the model, claiming
// only the gate. Yours wraps your limiter as an oracle.Subject.
type gateOnly struct{ oracle.Model }

func (gateOnly) Name() string                       { return "gate-only" }
func (gateOnly) Implements(c oracle.Component) bool { return c == oracle.Gate }

// In a _test.go file of your module:
//
//	func TestConformance(t *testing.T) { conformancetest.Run(t, gateOnly{}) }
//	func FuzzConformance(f *testing.F) { conformancetest.Fuzz(f, gateOnly{}) }
//
// go test runs every core vector as a subtest (the lim and throttle ones
// skipped); go test -fuzz FuzzConformance fuzzes the gate against the
// model. Check is the same verdict without a *testing.T:
func Example() {
	cases, err := conformance.Load(conformance.Vectors)
	if err != nil {
		fmt.Println(err)
		return
	}
	count := map[judge.Verdict]map[oracle.Component]bool{}
	for _, c := range cases {
		r := conformancetest.Check(gateOnly{}, c)
		if count[r.Verdict] == nil {
			count[r.Verdict] = map[oracle.Component]bool{}
		}
		count[r.Verdict][c.Component] = true
	}
	fmt.Println("passed gate:", count[judge.Pass][oracle.Gate])
	fmt.Println("skipped lim:", count[judge.Skip][oracle.Lim])
	fmt.Println("any failure:", len(count[judge.Fail]) > 0)
	// Output:
	// passed gate: true
	// skipped lim: true
	// any failure: false
}

// TestConformance is the helper as an implementer uses it, on the model
// restricted to the gate: every gate vector passes, the others skip.
func TestConformance(t *testing.T) { conformancetest.Run(t, gateOnly{}) }

// FuzzConformance is the fuzz target as an implementer writes it; go test
// runs its seeds.
func FuzzConformance(f *testing.F) { conformancetest.Fuzz(f, gateOnly{}) }
