package walkthrough

import (
	"fmt"

	"github.com/limcheck/limcheck/model/gate"
	"github.com/limcheck/limcheck/model/lim"
)

// gateRun records calls on one model gate.
type gateRun struct {
	recorder
	g *gate.Gate
}

// newGate builds a gate from a valid config; the examples' configs are fixed.
func newGate(cfg gate.Config) *gateRun {
	g, err := gate.New(cfg)
	if err != nil {
		panic(fmt.Sprintf("walkthrough: example config: %v", err)) // a bug in this package
	}
	return &gateRun{g: g}
}

// admit records one admission: its verdict, Retry-After, in-flight count and
// the bucket of ip's key.
func (r *gateRun) admit(ip string, now int64, want string) {
	d := r.g.Admit(ip, now)
	bucket := "untouched"
	if b, ok := r.g.Bucket(ip, now); ok {
		bucket = fmt.Sprintf("%+v", b)
	}
	got := fmt.Sprintf("%s retry_after=%d in_flight=%d bucket=%s", d.Verdict, d.RetryAfter, r.g.InFlight(), bucket)
	r.steps = append(r.steps, Step{Call: fmt.Sprintf("admit(%q, %d)", ip, now), Got: got, Want: want})
}

// release records one release.
func (r *gateRun) release(want string) {
	r.g.Release()
	r.step("release()", fmt.Sprintf("in_flight=%d", r.g.InFlight()), want)
}

func workedExample() Example {
	r := newGate(gate.Config{Lim: lim.NewConfig(2, 1, 10, 2), Sets: 64, Ways: 4, TickNanos: 100_000_000})
	r.admit("a", 0, "pass retry_after=0 in_flight=1 bucket={Tks:1 Last:0}")
	r.admit("a", 1, "pass retry_after=0 in_flight=2 bucket={Tks:0 Last:0}")
	r.admit("b", 2, "shed retry_after=1 in_flight=2 bucket=untouched")
	r.release("in_flight=1")
	r.release("in_flight=0")
	r.admit("a", 4, "limited retry_after=1 in_flight=0 bucket={Tks:0 Last:0}")
	r.admit("a", 10, "pass retry_after=0 in_flight=1 bucket={Tks:0 Last:10}")
	return Example{ID: "worked-example", Title: "spec.md's worked example: a gate, tick by tick", Steps: r.steps}
}

func find9() Example {
	r := newGate(gate.Config{Lim: lim.NewConfig(10, 1, 1, 1), Sets: 64, Ways: 4, TickNanos: 1})
	r.admit("a", 0, "pass retry_after=0 in_flight=1 bucket={Tks:9 Last:0}")
	r.admit("b", 0, "shed retry_after=1 in_flight=1 bucket=untouched")
	return Example{ID: "FIND-9", Title: "the in-flight gate is global: one client sheds all others", Steps: r.steps}
}

func find14() Example {
	r := newGate(gate.Config{Lim: lim.NewConfig(15, 1, 1000, 1000), Sets: 4096, Ways: 2, TickNanos: 1_000_000})
	passed := 0
	for now := int64(0); now < 15; now++ {
		for _, a := range []string{"198.51.31.69", "198.51.41.115", "198.51.65.104"} {
			r.g.Admit(a, now)
		}
		if r.g.Admit("192.0.2.10", now).Verdict == gate.Pass {
			passed++
		}
	}
	r.step(`3 attackers in set 3509, then admit("192.0.2.10", t), t = 0..14`, fmt.Sprintf("victim passed %d of 15", passed), "victim passed 15 of 15")
	return Example{ID: "FIND-14", Title: "an aimed collision leaves its victim unaffected", Steps: r.steps}
}

func find15() Example {
	r := newGate(gate.Config{Lim: lim.NewConfig(1, 1, 10, 10), Sets: 1, Ways: 1, TickNanos: 1})
	r.admit("a", 0, "pass retry_after=0 in_flight=1 bucket={Tks:0 Last:0}")
	r.admit("b", 10, "pass retry_after=0 in_flight=2 bucket={Tks:0 Last:10}")
	r.admit("a", 5, "pass retry_after=0 in_flight=3 bucket={Tks:0 Last:5}")
	return Example{ID: "FIND-15", Title: "forgetting a full bucket is not lossless after a clock step back", Steps: r.steps}
}

func find16() Example {
	r := newGate(gate.Config{Lim: lim.NewConfig(1, 1, 1000, 10), Sets: 1, Ways: 1, TickNanos: 1})
	r.admit("a", 0, "pass retry_after=0 in_flight=1 bucket={Tks:0 Last:0}")
	r.admit("b", 0, "pass retry_after=0 in_flight=2 bucket={Tks:0 Last:0}")
	r.admit("a", 0, "pass retry_after=0 in_flight=3 bucket={Tks:0 Last:0}")
	r.admit("b", 0, "pass retry_after=0 in_flight=4 bucket={Tks:0 Last:0}")
	return Example{ID: "FIND-16", Title: "addresses of one set beyond ways recycle each other", Steps: r.steps}
}
