package walkthrough

import (
	"fmt"

	"github.com/limcheck/limcheck/model/lim"
)

// take records one lim_take and returns its result.
func (r *recorder) take(b lim.Bucket, c lim.Config, now, cost int64, want string) lim.TakeResult {
	got := lim.Take(b, c, now, cost)
	call := fmt.Sprintf("lim_take(%+v, lim_cfg(%d, %d, %d, %d), %d, %d)",
		b, c.Cap, c.Refil, c.Ivl, c.Maxif, now, cost)
	r.step(call, got, want)
	return got
}

// key records one lim_ip_key.
func (r *recorder) key(ip string, want string) {
	r.step(fmt.Sprintf("lim_ip_key(%q)", ip), lim.IPKey(ip), want)
}

func find1() Example {
	var r recorder
	early := lim.NewConfig(2, 2, 10, 1)
	b := r.take(lim.MakeBucket(0, 0), early, 0, 1, "{OK:0 Retry:5 Tks:0 Last:0}")
	b = r.take(b.Bucket(), early, 5, 1, "{OK:0 Retry:5 Tks:0 Last:0}")
	r.take(b.Bucket(), early, 10, 1, "{OK:1 Retry:0 Tks:1 Last:10}")
	late := lim.NewConfig(1, 1, 10, 1)
	b = r.take(lim.MakeBucket(0, 0), late, 9, 1, "{OK:0 Retry:10 Tks:0 Last:0}")
	r.take(b.Bucket(), late, 10, 1, "{OK:1 Retry:0 Tks:0 Last:10}")
	return Example{ID: "FIND-1", Title: "Retry-After is neither a lower nor an upper bound on the true wait", Steps: r.steps}
}

func find2() Example {
	var r recorder
	r.key("10.17.102.130", "2422100051")
	r.key("10.23.191.7", "2422100051")
	return Example{ID: "FIND-2", Title: "two distinct valid IPv4 strings share a key", Steps: r.steps}
}

func find3() Example {
	var r recorder
	r.key("::1", "1002985")
	r.key("0:0:0:0:0:0:0:1", "2269459780")
	return Example{ID: "FIND-3", Title: "two spellings of one IPv6 address get different keys", Steps: r.steps}
}

func find4() Example {
	var r recorder
	c := lim.NewConfig(2, 1, 10, 1)
	b := r.take(lim.MakeBucket(2, 0), c, 0, 3, "{OK:0 Retry:10 Tks:2 Last:0}")
	r.take(b.Bucket(), c, 10, 3, "{OK:0 Retry:10 Tks:2 Last:10}")
	return Example{ID: "FIND-4", Title: "cost > cap never passes yet gets a finite retry", Steps: r.steps}
}

func find11() Example {
	var r recorder
	r.take(lim.MakeBucket(10, 0), lim.NewConfig(3, 1, 10, 1), -5, 1, "{OK:1 Retry:0 Tks:2 Last:0}")
	return Example{ID: "FIND-11", Title: "a lowered cap binds at once, even on a clock step back", Steps: r.steps}
}

func find12() Example {
	var r recorder
	r.key("\x00a", "97")
	r.key("a", "97")
	return Example{ID: "FIND-12", Title: "lim_ip_key cannot see leading NUL bytes", Steps: r.steps}
}

func find13() Example {
	var r recorder
	c := lim.NewConfig(1, 1, 10, 1)
	b := r.take(lim.MakeBucket(0, 100), c, 0, 1, "{OK:0 Retry:10 Tks:0 Last:100}")
	b = r.take(b.Bucket(), c, 10, 1, "{OK:0 Retry:10 Tks:0 Last:100}")
	b = r.take(b.Bucket(), c, 109, 1, "{OK:0 Retry:10 Tks:0 Last:100}")
	r.take(b.Bucket(), c, 110, 1, "{OK:1 Retry:0 Tks:0 Last:110}")
	return Example{ID: "FIND-13", Title: "after a clock step back the retry ignores the time left until last", Steps: r.steps}
}
