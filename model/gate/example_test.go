package gate_test

import (
	"fmt"

	"github.com/limcheck/limcheck/model/gate"
	"github.com/limcheck/limcheck/model/lim"
)

// ExampleGate runs the first rows of spec.md's worked example: two passes
// of "a" in set 1 (the zero seed), a shed while two requests are in flight,
// then a limited request.
func ExampleGate() {
	g, err := gate.New(gate.Config{Lim: lim.NewConfig(2, 1, 10, 2), Sets: 64, Ways: 4, TickNanos: 100_000_000, Seed: gate.Seed{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, now := range []int64{0, 1} {
		d := g.Admit("a", now)
		b, _ := g.Bucket("a", now)
		fmt.Println(d.Verdict, d.Set, d.Way, g.InFlight(), b)
	}
	fmt.Println(g.Admit("b", 2).Verdict)
	g.Release()
	g.Release()
	d := g.Admit("a", 4)
	fmt.Println(d.Verdict, d.Retry, d.RetryAfter, g.InFlight())
	fmt.Printf("%q\n", d.Response)
	// Output:
	// pass 1 0 1 {1 0}
	// pass 1 0 2 {0 0}
	// shed
	// limited 10 1 0
	// "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nlim rejected"
}
