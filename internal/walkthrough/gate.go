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

// decide records one admission with its set, way and retry in ticks: what
// GATE-17 and GATE-19 observe ("way=none" when no way holds the key after
// it).
func (r *gateRun) decide(ip string, now int64, want string) {
	d := r.g.Admit(ip, now)
	way := "none"
	if d.Way != gate.NoWay {
		way = fmt.Sprint(d.Way)
	}
	got := fmt.Sprintf("%s set=%d way=%s retry=%d in_flight=%d", d.Verdict, d.Set, way, d.Retry, r.g.InFlight())
	r.steps = append(r.steps, Step{Call: fmt.Sprintf("admit(%q, %d)", ip, now), Got: got, Want: want})
}

// exampleConfig is the worked example's gate: lim_cfg(2, 1, 10, 2), sets
// 64, ways 4, a tick of 0.1 s and the zero seed.
func exampleConfig() gate.Config {
	return gate.Config{Lim: lim.NewConfig(2, 1, 10, 2), Sets: 64, Ways: 4, TickNanos: 100_000_000}
}

func workedExample() Example {
	r := newGate(exampleConfig())
	r.step(`siphash(seed, lim_ip_key("a") = 97)`, gate.SipHash(exampleConfig().Seed, 97), "9317687229460025665")
	r.decide("a", 0, "pass set=1 way=0 retry=0 in_flight=1")
	r.step(`bucket("a", 0)`, bucketOf(r.g, "a", 0), "{Tks:1 Last:0}")
	r.admit("a", 1, "pass retry_after=0 in_flight=2 bucket={Tks:0 Last:0}")
	r.admit("b", 2, "shed retry_after=1 in_flight=2 bucket=untouched")
	r.release("in_flight=1")
	r.release("in_flight=0")
	r.admit("a", 4, "limited retry_after=1 in_flight=0 bucket={Tks:0 Last:0}")
	r.admit("a", 10, "pass retry_after=0 in_flight=1 bucket={Tks:0 Last:10}")
	return Example{ID: "worked-example", Title: "spec.md's worked example: a gate, tick by tick", Steps: r.steps}
}

// bucketOf is the bucket of ip at now as GATE-14 reads it, or "untouched".
func bucketOf(g *gate.Gate, ip string, now int64) string {
	if b, ok := g.Bucket(ip, now); ok {
		return fmt.Sprintf("%+v", b)
	}
	return "untouched"
}

func find9() Example {
	r := newGate(gate.Config{Lim: lim.NewConfig(10, 1, 1, 1), Sets: 64, Ways: 4, TickNanos: 1})
	r.admit("a", 0, "pass retry_after=0 in_flight=1 bucket={Tks:9 Last:0}")
	r.admit("b", 0, "shed retry_after=1 in_flight=1 bucket=untouched")
	return Example{ID: "FIND-9", Title: "the in-flight gate is global: one client sheds all others", Steps: r.steps}
}

func find14() Example {
	var steps []Step
	for _, c := range []struct {
		ways              int64
		victim, attackers string
	}{{2, "victim passed 5 of 15, ticks 0..4", "attackers passed 35 of 45"}, {3, "victim passed 15 of 15, ticks 0..14", ""}} {
		r := newGate(gate.Config{Lim: lim.NewConfig(15, 1, 1000, 1000), Sets: 1, Ways: c.ways, TickNanos: 1_000_000})
		victim, attackers, first, last := 0, 0, int64(-1), int64(-1)
		for now := int64(0); now < 15; now++ {
			for _, a := range []string{"x1", "x2", "x3"} {
				if r.g.Admit(a, now).Verdict == gate.Pass {
					attackers++
				}
			}
			if r.g.Admit("v", now).Verdict == gate.Pass {
				victim++
				if first < 0 {
					first = now
				}
				last = now
			}
		}
		call := fmt.Sprintf(`ways %d: admit x1, x2, x3, then admit("v", t), t = 0..14`, c.ways)
		steps = append(steps, Step{Call: call, Got: fmt.Sprintf("victim passed %d of 15, ticks %d..%d", victim, first, last), Want: c.victim})
		if c.attackers != "" {
			steps = append(steps, Step{Call: call, Got: fmt.Sprintf("attackers passed %d of 45", attackers), Want: c.attackers})
		}
	}
	return Example{ID: "FIND-14", Title: "an aimed collision spends none of its victim's tokens, but one that knows the seed can make it wait", Steps: steps}
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
	r.decide("a", 0, "pass set=0 way=0 retry=0 in_flight=1")
	r.decide("b", 0, "pass set=0 way=0 retry=0 in_flight=2")
	r.decide("a", 0, "limited set=0 way=none retry=1000 in_flight=2")
	r.decide("b", 0, "limited set=0 way=0 retry=1000 in_flight=2")
	return Example{ID: "FIND-16", Title: "addresses of one set beyond ways take turns, paid by the set's budget", Steps: r.steps}
}

func find27() Example {
	r := newGate(gate.Config{Lim: lim.NewConfig(1, 1, 1000, 10), Sets: 1, Ways: 1, TickNanos: 1})
	r.decide("a", 0, "pass set=0 way=0 retry=0 in_flight=1")
	r.decide("b", 0, "pass set=0 way=0 retry=0 in_flight=2")
	r.decide("c", 0, "limited set=0 way=none retry=1000 in_flight=2")
	return Example{ID: "FIND-27", Title: "a newcomer to an overflowing set waits for the budget", Steps: r.steps}
}
