package lim_test

import (
	"bufio"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/limcheck/limcheck/model/lim"
	"pgregory.net/rapid"
)

// TestPropTokensStayInRange checks PROP-1: an in-contract take returns
// 0 <= tks <= cap, on a pass and on a reject, also from a bucket above cap.
func TestPropTokensStayInRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := inContractTakes().Draw(t, "take")
		if r := a.take(); r.Tks < 0 || r.Tks > a.c.Cap {
			t.Fatalf("%s = %s: tks outside [0, cap=%d]", a, fmtTake(r), a.c.Cap)
		}
	})
}

// TestPropStepBackMintsNothing checks PROP-2: a clock step back mints
// nothing: if now < last, the take's tks before spending (tks, plus cost on a
// pass) is <= max(tks_in, 0), and last is unchanged. Any config, tks and cost,
// in contract or not.
func TestPropStepBackMintsNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := anyTakes().Draw(t, "take")
		a.b.Last = max(a.b.Last, minI+1)
		a.now = between(minI, a.b.Last-1).Draw(t, "now before last")
		r := a.take()
		if r.Last != a.b.Last {
			t.Fatalf("%s = %s: last moved on a step back", a, fmtTake(r))
		}
		before := big.NewInt(r.Tks)
		if r.OK == 1 {
			before.Add(before, big.NewInt(a.cost))
		}
		if before.Cmp(big.NewInt(max(a.b.Tks, 0))) > 0 {
			t.Fatalf("%s = %s: %v tokens before spending, more than max(tks, 0)", a, fmtTake(r), before)
		}
	})
}

// TestPropLastNeverMovesBackNorPassesNow checks PROP-3: for any take,
// last <= last'; for an in-contract take with now >= last,
// 0 <= now - last' < ivl. (Out of contract last' = last, which may be any
// distance behind now, so the second half is checked in contract only.)
func TestPropLastNeverMovesBackNorPassesNow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := anyTakes().Draw(t, "take")
		r := a.take()
		if r.Last < a.b.Last {
			t.Fatalf("%s = %s: last moved back", a, fmtTake(r))
		}
		if !inContract(a.b, a.c, a.cost) || a.now < a.b.Last {
			return
		}
		gap := new(big.Int).Sub(big.NewInt(a.now), big.NewInt(r.Last))
		if gap.Sign() < 0 || gap.Cmp(big.NewInt(a.c.Ivl)) >= 0 {
			t.Fatalf("%s = %s: now - last' = %v, want in [0, ivl=%d)", a, fmtTake(r), gap, a.c.Ivl)
		}
	})
}

// TestPropZeroRetryIffOutOfContract checks PROP-4: ok = 0 with retry = 0
// happens exactly for out-of-contract calls; every in-contract reject has
// retry >= 1.
func TestPropZeroRetryIffOutOfContract(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := anyTakes().Draw(t, "take")
		r := a.take()
		in := inContract(a.b, a.c, a.cost)
		if zero := r.OK == 0 && r.Retry == 0; zero == in {
			t.Fatalf("%s = %s: in contract %v, ok 0 with retry 0 %v", a, fmtTake(r), in, zero)
		}
		if in && r.OK == 0 && r.Retry < 1 {
			t.Fatalf("%s = %s: an in-contract reject with retry < 1", a, fmtTake(r))
		}
	})
}

// TestPropWaitingAndAskingLessNeverHurt checks PROP-5: if an in-contract take
// passes at now with cost, the same take passes at every now' >= now and for
// every 1 <= cost' <= cost (and with both changes at once).
func TestPropWaitingAndAskingLessNeverHurt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := inContractTakes().Draw(t, "take")
		if r := a.take(); r.OK != 1 {
			t.Skip("the take rejects: PROP-5 has no premise")
		}
		later, less := a, a
		later.now = between(a.now, maxI).Draw(t, "now' >= now")
		less.cost = between(1, a.cost).Draw(t, "cost' <= cost")
		both := later
		both.cost = less.cost
		for _, b := range []takeArgs{later, less, both} {
			if r := b.take(); r.OK != 1 {
				t.Fatalf("%s passes but %s = %s", a, b, fmtTake(r))
			}
		}
	})
}

// TestPropRetryWithinOneStepOfTrueWait checks PROP-6: for an in-contract
// reject with cost <= cap and now >= last, if w is the least wait after which
// the same take passes, then |retry - w| < ivl. w is found by binary search
// over Take (monotone by PROP-5) up to the horizon ivl*ceil(cost/refil),
// skipped when the horizon, or now plus it, exceeds MaxInt64. Two gaps in
// spec.md's wording are left out on purpose: now < last (w then includes
// last - now, which retry ignores) and a true wait beyond MaxInt64 (retry is
// saturated by LIM-13).
func TestPropRetryWithinOneStepOfTrueWait(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := validConfigs().Draw(t, "cfg")
		cost := between(1, c.Cap).Draw(t, "cost <= cap")
		tks := between(0, cost-1).Draw(t, "tks < cost")
		steps := between(0, (cost-1-tks)/c.Refil).Draw(t, "whole steps leaving tks' < cost")
		rem := between(0, c.Ivl-1).Draw(t, "remainder")
		// Any wait of ceil(cost / refil) whole steps surely passes.
		horizon := new(big.Int).Mul(big.NewInt((cost-1)/c.Refil+1), big.NewInt(c.Ivl))
		since := new(big.Int).Mul(big.NewInt(steps), big.NewInt(c.Ivl))
		since.Add(since, big.NewInt(rem))
		// now - since >= MinInt64 and now + horizon <= MaxInt64, horizon <= MaxInt64.
		lo := new(big.Int).Add(big.NewInt(minI), since)
		hi := new(big.Int).Sub(big.NewInt(maxI), horizon)
		if !horizon.IsInt64() || !lo.IsInt64() || lo.Cmp(hi) > 0 {
			t.Skip("now + ivl*ceil(cost/refil) would overflow")
		}
		now := between(lo.Int64(), hi.Int64()).Draw(t, "now")
		a := takeArgs{b: bkt(tks, now-since.Int64()), c: c, now: now, cost: cost}
		r := a.take()
		if r.OK != 0 {
			t.Fatalf("%s = %s, want a reject: tks + steps*refil < cost", a, fmtTake(r))
		}
		passesAfter := func(w int64) bool {
			at := a
			at.now += w
			return at.take().OK == 1
		}
		lw, hw := int64(0), horizon.Int64() // rejects at lw, passes at hw
		if !passesAfter(hw) {
			t.Fatalf("%s rejects after a wait of %d, ceil(cost/refil) whole steps", a, hw)
		}
		for hw-lw > 1 {
			if mid := lw + (hw-lw)/2; passesAfter(mid) {
				hw = mid
			} else {
				lw = mid
			}
		}
		if d := r.Retry - hw; d >= c.Ivl || -d >= c.Ivl {
			t.Fatalf("%s = %s: true wait %d, |retry - wait| = |%d| >= ivl %d", a, fmtTake(r), hw, d, c.Ivl)
		}
	})
}

// TestPropWholeStepsKeepRemainder checks PROP-7: with a valid config, a
// bucket {tks >= 0, last} and t1 <= t2 (either may lie before last), if no
// clamp can happen (tks + steps(last, t2)*refil <= cap), a passing take of c1
// at t1 followed by a passing take of c2 at t2 gives the same result as one
// take of c1 + c2 at t2 from the original bucket: it passes and leaves the
// same bucket.
func TestPropWholeStepsKeepRemainder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		refil, ivl := positives().Draw(t, "refil"), positives().Draw(t, "ivl")
		tks := rapid.OneOf(between(0, 16), between(0, maxI)).Draw(t, "tks")
		b := bkt(tks, int64s().Draw(t, "last"))
		t1 := around(b.Last, ivl).Draw(t, "t1")
		t2 := around(t1, ivl).Draw(t, "t2")
		t1, t2 = min(t1, t2), max(t1, t2)
		avail := func(now int64) *big.Int { // tks + steps*refil, unclamped
			s := stepsBetween(b.Last, now, ivl)
			return s.Mul(s, big.NewInt(refil)).Add(s, big.NewInt(b.Tks))
		}
		need, a1 := avail(t2), avail(t1)
		if !need.IsInt64() || need.Int64() < 2 || a1.Sign() < 1 {
			t.Skip("no cap >= tks + steps*refil fits, or too few tokens for two takes")
		}
		cap := between(need.Int64(), maxI).Draw(t, "cap >= tks + steps*refil")
		c := lim.NewConfig(cap, refil, ivl, positives().Draw(t, "maxif"))
		c1 := between(1, min(a1.Int64(), need.Int64()-1)).Draw(t, "c1")
		c2 := between(1, need.Int64()-c1).Draw(t, "c2")
		first := takeArgs{b: b, c: c, now: t1, cost: c1}
		r1 := first.take()
		second := takeArgs{b: r1.Bucket(), c: c, now: t2, cost: c2}
		r2 := second.take()
		one := takeArgs{b: b, c: c, now: t2, cost: c1 + c2}
		r := one.take()
		if r1.OK != 1 || r2.OK != 1 {
			t.Fatalf("%s = %s then %s = %s: want both to pass", first, fmtTake(r1), second, fmtTake(r2))
		}
		if diff := cmp.Diff(r2, r); diff != "" {
			t.Fatalf("%s then %s = %s, but %s = %s (-two +one):\n%s", first, second, fmtTake(r2), one, fmtTake(r), diff)
		}
	})
}

// keyPrime is LIM-16's modulus, written out rather than taken from the model.
const keyPrime = 4294967291

// TestPropIPKeyPolynomial checks PROP-8: lim_ip_key is in [0, 4294967291),
// extends byte by byte (key(s + c) = (key(s)*131 + c) mod p) and equals
// sum(c_i * 131^(n-1-i)) mod p, computed here with math/big.
func TestPropIPKeyPolynomial(t *testing.T) {
	p := big.NewInt(keyPrime)
	rapid.Check(t, func(t *rapid.T) {
		ip := ips().Draw(t, "ip")
		c := rapid.Byte().Draw(t, "next byte")
		k := lim.IPKey(ip)
		if k < 0 || k >= keyPrime {
			t.Fatalf("IPKey(%q) = %d, outside [0, %d)", ip, k, keyPrime)
		}
		ext := new(big.Int).Mul(big.NewInt(k), big.NewInt(131))
		ext.Add(ext, big.NewInt(int64(c))).Mod(ext, p)
		if got := lim.IPKey(ip + string([]byte{c})); got != ext.Int64() {
			t.Fatalf("IPKey(%q + %q) = %d, want (IPKey(%q)*131 + %d) mod p = %v", ip, []byte{c}, got, ip, c, ext)
		}
		sum, pow := new(big.Int), big.NewInt(1) // pow = 131^(n-1-i) mod p
		for i := len(ip) - 1; i >= 0; i-- {
			sum.Add(sum, new(big.Int).Mul(big.NewInt(int64(ip[i])), pow))
			pow.Mul(pow, big.NewInt(131)).Mod(pow, p)
		}
		if sum.Mod(sum, p); k != sum.Int64() {
			t.Fatalf("IPKey(%q) = %d, want sum(c_i * 131^(n-1-i)) mod p = %v", ip, k, sum)
		}
	})
}

// TestPropInFlightBounded checks PROP-9: from 0, any sequence of lim_acq and
// lim_rel with maxif >= 1 keeps 0 <= n <= maxif, and lim_acq passes iff
// n < maxif (passing adds one, shedding keeps n; release floors at 0).
func TestPropInFlightBounded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		maxif := rapid.OneOf(rapid.Int64Range(1, 4), positives()).Draw(t, "maxif")
		var n int64
		t.Repeat(map[string]func(*rapid.T){
			"acquire": func(t *rapid.T) {
				got := lim.Acquire(n, maxif)
				want := lim.AcquireResult{OK: 0, N: n}
				if n < maxif {
					want = lim.AcquireResult{OK: 1, N: n + 1}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("Acquire(%d, %d) = %+v, want %+v (-want +got):\n%s", n, maxif, got, want, diff)
				}
				n = got.N
			},
			"release": func(t *rapid.T) {
				got, want := lim.Release(n), max(n-1, 0)
				if got != want {
					t.Fatalf("Release(%d) = %d, want %d", n, got, want)
				}
				n = got
			},
			"": func(t *rapid.T) {
				if n < 0 || n > maxif {
					t.Fatalf("in flight %d, outside [0, maxif=%d]", n, maxif)
				}
			},
		})
	})
}

// TestPropResponse503WellFormed checks PROP-10: lim_resp_503(retry) is one
// well-formed HTTP/1.1 response: status 503, Retry-After the decimal of
// max(retry, 0) (digits only, no leading zeros), Content-Length 12, body
// "lim rejected", the three headers of LIM-17 and nothing after the body.
func TestPropResponse503WellFormed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		retry := int64s().Draw(t, "retry")
		raw := lim.Response503(retry)
		br := bufio.NewReader(strings.NewReader(raw))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("Response503(%d) = %q: %v", retry, raw, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 503 || resp.Status != "503 Service Unavailable" || resp.Proto != "HTTP/1.1" {
			t.Fatalf("Response503(%d): status line %s %q, want HTTP/1.1 503 Service Unavailable", retry, resp.Proto, resp.Status)
		}
		ra := resp.Header.Values("Retry-After")
		want := big.NewInt(max(retry, 0))
		if len(ra) != 1 || !isDecimal(ra[0]) || ra[0] != want.String() {
			t.Fatalf("Response503(%d): Retry-After %q, want [%q]", retry, ra, want.String())
		}
		if n := resp.ContentLength; n != 12 || resp.Header.Get("Content-Length") != "12" {
			t.Fatalf("Response503(%d): Content-Length %d (%q), want 12", retry, n, resp.Header.Get("Content-Length"))
		}
		if ct := resp.Header.Values("Content-Type"); len(ct) != 1 || ct[0] != "text/plain; charset=utf-8" || len(resp.Header) != 3 {
			t.Fatalf("Response503(%d): headers %v, want Retry-After, Content-Type text/plain; charset=utf-8, Content-Length", retry, resp.Header)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil || string(body) != "lim rejected" {
			t.Fatalf("Response503(%d): body %q (%v), want \"lim rejected\"", retry, body, err)
		}
		if rest, _ := io.ReadAll(br); len(rest) != 0 {
			t.Fatalf("Response503(%d): %q follows the body", retry, rest)
		}
	})
}

// isDecimal reports whether s is ASCII digits with no leading zero ("0" is fine).
func isDecimal(s string) bool {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// TestPropLimTotal checks PROP-22, the lim part: no input in the int64 and
// byte-string domains makes any lim function panic (rapid fails the test on
// a panic and its trace names the function), and each result is one its
// clause allows (LIM-1: exact, no wrap at the int64 edges).
func TestPropLimTotal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := func(label string) int64 { return int64s().Draw(t, label) }
		a := anyTakes().Draw(t, "take")
		if r := a.take(); r.Bucket() != (lim.Bucket{Tks: r.Tks, Last: r.Last}) {
			t.Fatalf("%s.Bucket() = %s, want the result's {tks:%d last:%d}", a, fmtBkt(r.Bucket()), r.Tks, r.Last)
		}
		cp, refil, ivl, maxif := v("cap"), v("refil"), v("ivl"), v("maxif")
		if got, want := lim.NewConfig(cp, refil, ivl, maxif).Valid(), min(cp, refil, ivl, maxif) >= 1; got != want {
			t.Fatalf("NewConfig(%d, %d, %d, %d).Valid() = %t, want %t (LIM-3, LIM-4)", cp, refil, ivl, maxif, got, want)
		}
		tks, last := v("tks"), v("last")
		if got := lim.MakeBucket(tks, last); got != (lim.Bucket{Tks: tks, Last: last}) {
			t.Fatalf("MakeBucket(%d, %d) = %s, want {tks:%d last:%d} (LIM-5)", tks, last, fmtBkt(got), tks, last)
		}
		cp, now := v("cap"), v("now")
		if got := lim.NewBucket(cp, now); got != (lim.Bucket{Tks: cp, Last: now}) {
			t.Fatalf("NewBucket(%d, %d) = %s, want {tks:%d last:%d} (LIM-6)", cp, now, fmtBkt(got), cp, now)
		}
		n, maxif := v("n"), v("maxif")
		if got := lim.Acquire(n, maxif); !shedOrTookOne(n, maxif, got) {
			t.Fatalf("Acquire(%d, %d) = {ok:%d n:%d}, want {ok:0 n:%d} or one place taken within maxif (LIM-14)",
				n, maxif, got.OK, got.N, n)
		}
		if got, want := lim.Release(n), max(n, 1)-1; got != want {
			t.Fatalf("Release(%d) = %d, want %d (LIM-15)", n, got, want)
		}
		ip := ips().Draw(t, "ip")
		if got := lim.IPKey(ip); got < 0 || got >= lim.KeyPrime {
			t.Fatalf("IPKey(%q) = %d, want it in [0, KeyPrime) (LIM-16)", ip, got)
		}
		lim.Response503(v("retry")) // its bytes: TestPropResponse503WellFormed (PROP-10)
	})
}

// shedOrTookOne reports whether r is an outcome LIM-14 allows for
// Acquire(n, maxif) without saying which: a shed with n unchanged, or one
// place taken from n >= 0 to n + 1 <= maxif, compared so that a wrap of
// n + 1 fails.
func shedOrTookOne(n, maxif int64, r lim.AcquireResult) bool {
	took := r.OK == 1 && n >= 0 && r.N > n && r.N-1 == n && r.N <= maxif
	return took || r == lim.AcquireResult{OK: 0, N: n}
}
