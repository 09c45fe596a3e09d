package lim_test

import (
	"fmt"
	"net/netip"

	"github.com/limcheck/limcheck/model/lim"
)

// A bucket of 2 tokens that gains 1 token every 10 ticks, taken from at
// ticks 0, 1, 4 and 10 (the lim part of spec.md's worked example).
func ExampleTake() {
	cfg := lim.NewConfig(2, 1, 10, 2)
	b := lim.NewBucket(cfg.Cap, 0)
	for _, now := range []int64{0, 1, 4, 10} {
		r := lim.Take(b, cfg, now, 1)
		fmt.Printf("tick %2d: ok=%d retry=%d bucket=%+v\n", now, r.OK, r.Retry, r.Bucket())
		b = r.Bucket()
	}
	// Output:
	// tick  0: ok=1 retry=0 bucket={Tks:1 Last:0}
	// tick  1: ok=1 retry=0 bucket={Tks:0 Last:0}
	// tick  4: ok=0 retry=10 bucket={Tks:0 Last:0}
	// tick 10: ok=1 retry=0 bucket={Tks:0 Last:10}
}

// Keys hash the bytes of the text as given, so canonicalise addresses first.
func ExampleIPKey() {
	for _, ip := range []string{"", "::1", "0:0:0:0:0:0:0:1"} {
		canon := ip
		if a, err := netip.ParseAddr(ip); err == nil {
			canon = a.Unmap().String()
		}
		fmt.Printf("%q: key %d, canonical %q: key %d\n", ip, lim.IPKey(ip), canon, lim.IPKey(canon))
	}
	// Output:
	// "": key 0, canonical "": key 0
	// "::1": key 1002985, canonical "::1": key 1002985
	// "0:0:0:0:0:0:0:1": key 2269459780, canonical "::1": key 1002985
}

func ExampleResponse503() {
	fmt.Printf("%q\n", lim.Response503(3))
	// Output:
	// "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 3\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nlim rejected"
}
