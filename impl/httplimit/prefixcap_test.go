package httplimit_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/httplimit"
)

// TestPrefixCapRange checks which PrefixCaps New takes: each length within
// its family, Max within int32, and the IPv6 prefix no finer than the
// keys' (a finer one would split one key over several caps); a bad cap is
// an ErrConfig naming the value, and a good one hides no other option's
// error.
func TestPrefixCapRange(t *testing.T) {
	g := newGate(t, 1, 1, 1, 1, 1)
	tests := []struct {
		c      httplimit.PrefixCap
		opts   []httplimit.Option
		want   string // a part of the error; "" for none
		reason string
	}{
		{httplimit.PrefixCap{IPv4Bits: 24, IPv6Bits: 48, Max: 32}, nil, "", "the README's cap"},
		{httplimit.PrefixCap{IPv4Bits: 1, IPv6Bits: 1, Max: 1}, nil, "", "the coarsest prefixes and the smallest cap"},
		{httplimit.PrefixCap{IPv4Bits: 32, IPv6Bits: 64, Max: 1<<31 - 1}, nil, "", "per address, per /64 key, the largest cap"},
		{httplimit.PrefixCap{IPv4Bits: 32, IPv6Bits: 128, Max: 1}, []httplimit.Option{httplimit.WithIPv6Prefix(128)}, "", "/128 under keys by address"},
		{httplimit.PrefixCap{}, nil, "cap 0 not in 1..2147483647", "the zero value"},
		{httplimit.PrefixCap{IPv4Bits: 24, IPv6Bits: 48, Max: -1}, nil, "cap -1 not", "a negative cap"},
		{httplimit.PrefixCap{IPv4Bits: 24, IPv6Bits: 48, Max: 1 << 31}, nil, "cap 2147483648 not", "past int32"},
		{httplimit.PrefixCap{IPv4Bits: 0, IPv6Bits: 48, Max: 1}, nil, "ipv4 prefix /0 not in 1..32", "a /0: one cap for all of IPv4"},
		{httplimit.PrefixCap{IPv4Bits: 33, IPv6Bits: 48, Max: 1}, nil, "ipv4 prefix /33 not", "past an IPv4 address"},
		{httplimit.PrefixCap{IPv4Bits: 24, IPv6Bits: 0, Max: 1}, nil, "ipv6 prefix /0 not in 1..64", "a /0 for IPv6"},
		{httplimit.PrefixCap{IPv4Bits: 24, IPv6Bits: 65, Max: 1}, nil, "ipv6 prefix /65 not in 1..64 (no finer than the ipv6 keys' /64)", "finer than the default /64 keys"},
		{httplimit.PrefixCap{IPv4Bits: 24, IPv6Bits: 56, Max: 1}, []httplimit.Option{httplimit.WithIPv6Prefix(48)}, "ipv6 prefix /56 not in 1..48", "finer than /48 keys"},
		{httplimit.PrefixCap{IPv4Bits: 24, IPv6Bits: 48, Max: 1},
			[]httplimit.Option{httplimit.WithTrustedProxies(httplimit.ProxyHeader(0), prefixes("10.0.0.0/8")...)},
			"proxy header 0", "a good cap does not hide a bad proxy header"},
		{httplimit.PrefixCap{IPv4Bits: 24, IPv6Bits: 48, Max: 1}, []httplimit.Option{httplimit.WithMaxInFlightPerKey(0)}, "per-key in-flight cap 0", "nor a bad per-key cap"},
	}
	for _, tt := range tests {
		if tt.reason == "" {
			t.Fatalf("row %+v has no reason", tt.c)
		}
		_, err := httplimit.New(g, append(tt.opts, httplimit.WithMaxInFlightPerPrefix(tt.c))...)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("New(WithMaxInFlightPerPrefix(%+v)) = %v, want no error (%s)", tt.c, err, tt.reason)
		case tt.want != "" && (!errors.Is(err, httplimit.ErrConfig) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("New(WithMaxInFlightPerPrefix(%+v)) = %v, want ErrConfig with %q (%s)", tt.c, err, tt.want, tt.reason)
		}
	}
}

// nestedCodes serves outer through l into a handler that, while outer holds
// its places, serves inner through l too; it returns both statuses.
func nestedCodes(l *httplimit.Limiter, outer, inner *http.Request) (outerCode, innerCode int) {
	var h http.Handler
	h = l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r == outer {
			innerCode = serve(h, inner).Code
		}
	}))
	return serve(h, outer).Code, innerCode
}

// TestPrefixCapShares checks which clients share a prefix's place under
// PrefixCap{24, 48, 1}: the second of two requests is shed exactly when
// its client address lies in the first's /24 or /48, whatever their keys,
// with addresses taken as the keys take them (through a trusted proxy's
// header, IPv6 forms of an IPv4 host as that host). Each pair runs twice:
// a place not given back would shed the second run's first request, one
// given back twice would let its second through.
func TestPrefixCapShares(t *testing.T) {
	xff := httplimit.WithTrustedProxies(httplimit.XForwardedFor, prefixes("10.0.0.1/32")...)
	via := func(client string) *http.Request {
		return get("10.0.0.1:1", http.Header{"X-Forwarded-For": {client}})
	}
	tests := []struct {
		first, second *http.Request
		shared        bool
		reason        string
	}{
		{get("192.0.2.1:1", nil), get("192.0.2.1:2", nil), true, "one address"},
		{get("192.0.2.1:1", nil), get("192.0.2.254:1", nil), true, "two addresses of one /24"},
		{get("192.0.2.1:1", nil), get("192.0.3.1:1", nil), false, "two /24s"},
		{get("[2001:db8:1:1::1]:1", nil), get("[2001:db8:1:ffff::2]:1", nil), true, "two /64 keys of one /48"},
		{get("[2001:db8:1::1]:1", nil), get("[2001:db8:2::1]:1", nil), false, "two /48s"},
		{get("[::ffff:192.0.2.1]:1", nil), get("192.0.2.9:1", nil), true, "a mapped IPv4 peer is IPv4"},
		{get("[64:ff9b::c000:201]:1", nil), get("192.0.2.9:1", nil), true, "a NAT64 address is its IPv4 host"},
		{get("[64:ff9b::c000:201]:1", nil), get("[64:ff9b::c633:6401]:1", nil), false, "NAT64 hosts of two /24s, not one /48"},
		{get("192.0.2.1:1", nil), get("[::192.0.2.2]:1", nil), true, "an IPv4-compatible address is its IPv4 host"},
		{get("@", nil), get("garbage", nil), true, "addresses that do not parse share one prefix, as they share InvalidKey"},
		{get("@", nil), get("0.0.0.0:1", nil), false, "the invalid prefix is not 0.0.0.0/24"},
		{get("@", nil), get("[::]:1", nil), false, "nor ::/48"},
		{via("2001:db8:1:1::1"), via("2001:db8:1:2::1"), true, "the header's clients, not the proxy"},
		{via("2001:db8:1:1::1"), via("2001:db8:2:1::1"), false, "two /48s behind one proxy"},
	}
	for _, tt := range tests {
		if tt.reason == "" {
			t.Fatalf("row %s, %s has no reason", tt.first.RemoteAddr, tt.second.RemoteAddr)
		}
		// Two prefixes land on one counter of a Limiter's table, whose seed
		// is drawn at random, with probability 1/512 here, and then share
		// its cap (the package doc says so). So a pair that must not share
		// gets up to 5 Limiters, and fails only when every one sheds it,
		// which a collision alone does with probability 512^-5; a pair that
		// must share is checked on one (no collision unshares it).
		var errs []string
		for range 5 {
			if errs = prefixPair(t, xff, tt.first, tt.second, tt.shared); len(errs) == 0 || tt.shared {
				break
			}
		}
		for _, e := range errs {
			t.Errorf("%s (%s)", e, tt.reason)
		}
	}
}

// prefixPair runs first and, while it is held, second, twice, through a
// fresh Limiter with PrefixCap{24, 48, 1}, and returns what differed from
// 200 then 503 (shared) or 200 then 200.
func prefixPair(t *testing.T, xff httplimit.Option, first, second *http.Request, shared bool) []string {
	g := newGate(t, 1<<40, 1<<40, 1, 100, 1)
	l := newLimiter(t, g, xff, httplimit.WithMaxInFlightPerPrefix(httplimit.PrefixCap{IPv4Bits: 24, IPv6Bits: 48, Max: 1}))
	want := map[bool]int{true: 503, false: 200}[shared]
	var errs []string
	for run := range 2 {
		outer, inner := nestedCodes(l, first, second)
		if outer != 200 || inner != want {
			errs = append(errs, fmt.Sprintf("run %d: %s then, while it is held, %s: %d, %d; want 200, %d", run, first.RemoteAddr, second.RemoteAddr, outer, inner, want))
		}
	}
	if g.InFlight() != 0 {
		errs = append(errs, fmt.Sprintf("in flight %d after the requests, want 0", g.InFlight()))
	}
	return errs
}

// TestPrefixShedTakesNothing checks that a request shed by its prefix's cap
// is answered before the gate is asked: the 503 of a shed (Retry-After 1),
// the hook's Shed with Slot -1, no place taken (in flight stays 1) and no
// token spent (its key's only token still lets it through afterwards)
// and its key's place, taken first, given back.
func TestPrefixShedTakesNothing(t *testing.T) {
	var seen []gate.Decision
	hook := httplimit.WithOnReject(func(_ *http.Request, d gate.Decision) { seen = append(seen, d) })
	g := newGate(t, 1, 1, 1000, 10, tick100ms)
	l := newLimiter(t, g, fixedClock(0), hook, perPrefix1, perKey1)
	var h http.Handler
	h = l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.RemoteAddr != "192.0.2.1:1" {
			return
		}
		for range 3 {
			check503(t, serve(h, get("192.0.2.2:1", nil)), "1")
		}
		if g.InFlight() != 1 {
			t.Errorf("in flight %d with one request held and its prefix's others shed, want 1", g.InFlight())
		}
	}))
	if code := serve(h, get("192.0.2.1:1", nil)).Code; code != 200 {
		t.Fatalf("the holder: status %d, want 200", code)
	}
	want := gate.Decision{Verdict: gate.Shed, Slot: gate.NoWay, Set: gate.NoWay, Way: gate.NoWay, RetryAfter: 1}
	if len(seen) != 3 || seen[0] != want {
		t.Errorf("the hook saw %+v, want 3 times %+v", seen, want)
	}
	if code := serve(h, get("192.0.2.2:1", nil)).Code; code != 200 {
		t.Errorf("192.0.2.2 once the place is back: status %d, want 200 (its token unspent)", code)
	}
	check503(t, serve(h, get("192.0.2.2:1", nil)), "100") // now its token is spent: Limited
}

// TestPrefixCapPanicReleases checks that a panicking handler gives back its
// prefix's and its key's places: with both caps at 1, every request passes.
func TestPrefixCapPanicReleases(t *testing.T) {
	g := newGate(t, 100, 1, 1000, 10, tick100ms)
	boom := errors.New("boom")
	h := newLimiter(t, g, fixedClock(0), perPrefix1, perKey1).Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(boom) }))
	for i := range 5 {
		got := func() (v any) {
			defer func() { v = recover() }()
			serve(h, get(fmt.Sprintf("192.0.2.%d:1", i), nil))
			return nil
		}()
		if got != boom {
			t.Fatalf("request %d: recovered %v, want %v (a leaked place would shed it)", i, got, boom)
		}
	}
	if g.InFlight() != 0 {
		t.Errorf("in flight %d after the panics, want 0", g.InFlight())
	}
}

// TestPrefixCapConcurrent runs 8 goroutines of 200 requests from 2 /48s
// (a /64 each, so the per-key cap of 2 binds too) under PrefixCap{Max: 3}:
// no prefix ever has more than 3 requests in the handler, and afterwards
// each prefix holds exactly 3 places again (none leaked, none given twice).
func TestPrefixCapConcurrent(t *testing.T) {
	const maxPrefix = 3
	g := newGate(t, 1<<40, 1<<40, 1, 100, 1)
	l := newLimiter(t, g, httplimit.WithMaxInFlightPerKey(2),
		httplimit.WithMaxInFlightPerPrefix(httplimit.PrefixCap{IPv4Bits: 24, IPv6Bits: 48, Max: maxPrefix}))
	var in, most [2]atomic.Int64
	h := l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := 0
		if strings.HasPrefix(r.RemoteAddr, "[2001:db8:2:") {
			p = 1
		}
		n := in[p].Add(1)
		for m := most[p].Load(); n > m && !most[p].CompareAndSwap(m, n); m = most[p].Load() {
		}
		for range 10 {
			if g.InFlight() > 2*maxPrefix {
				t.Errorf("in flight %d, want at most %d", g.InFlight(), 2*maxPrefix)
			}
		}
		in[p].Add(-1)
	}))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				serve(h, get(fmt.Sprintf("[2001:db8:%d:%d::1]:1", 1+i%2, j%4), nil))
			}
		})
	}
	wg.Wait()
	for p := range 2 {
		if most[p].Load() > maxPrefix {
			t.Errorf("prefix %d: %d requests in the handler at once, want at most %d", p, most[p].Load(), maxPrefix)
		}
	}
	for p := range 2 {
		checkHolds(t, l, fmt.Sprintf("2001:db8:%d", p+1), maxPrefix)
	}
	if g.InFlight() != 0 {
		t.Errorf("in flight %d at the end, want 0", g.InFlight())
	}
}

// checkHolds checks that the /48 p (its first three groups) holds exactly
// n places of l: n requests from n of its /64s get into a blocking
// handler, the next is shed.
func checkHolds(t *testing.T, l *httplimit.Limiter, p string, n int) {
	t.Helper()
	b := newBlocker(int64(n))
	h := l.Wrap(b)
	codes := make(chan int, n)
	for i := range n {
		go func() { codes <- serve(h, get(fmt.Sprintf("[%s:%d::1]:1", p, 100+i), nil)).Code }()
	}
	defer func() {
		close(b.release)
		for range n {
			<-codes
		}
	}()
	for i := range n {
		select {
		case <-b.entered:
		case code := <-codes: // one of them did not get in: a place leaked
			codes <- code
			t.Errorf("%s::/48 after the load: %d of %d requests got in, then one got %d", p, i, n, code)
			return
		}
	}
	if code := serve(h, get(fmt.Sprintf("[%s:99::1]:1", p), nil)).Code; code != http.StatusServiceUnavailable {
		t.Errorf("%s::/48 with %d requests held: another gets %d, want 503", p, n, code)
	}
}
