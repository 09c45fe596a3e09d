package httplimit

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/limcheck/limcheck/impl/throttle"
)

// MaxAccountLen is the most bytes of an account key's name part: longer
// names are cut at a rune boundary by [NormalizeAccount].
const MaxAccountLen = 64

// Key prefixes of a [LoginGuard] (the seed's convention).
const (
	IPKeyPrefix      = "ip:"
	AccountKeyPrefix = "acct:"
)

// LoginGuard throttles password guessing with a [throttle.Throttle] on two
// keys per attempt: "ip:"+ip (the client, keyed as [Limiter.ClientKey] does)
// and "acct:"+[NormalizeAccount](user). Call [LoginGuard.Check] before
// verifying the password and refuse while it says Banned, then
// [LoginGuard.Failed] or [LoginGuard.Succeeded]. An ip of "" or a user that
// does not normalise contributes no key: never the raw text, never an empty
// key shared by every failed construction. Clients whose address does not
// parse all share the ip key "ip:"+[InvalidKey].
//
// A LoginGuard is a value of two fields, safe for concurrent use when T is
// (impl/throttle's MemStore is). T must not be nil.
type LoginGuard struct {
	// T is the throttle; its Config sets threshold, window and ban length.
	T *throttle.Throttle
	// Now returns the time in seconds (the throttle's unit); nil means the
	// wall clock, Unix seconds.
	Now func() uint64
}

// Check is the throttle's CheckAny over the attempt's keys at Now: Banned
// (the latest until) when either key is banned, else Unavailable when the
// store failed (the seed recommends to allow and alert), else Allow with the
// smaller remaining quota. No key at all gives Allow with remaining 0.
func (g LoginGuard) Check(ip, user string) throttle.Decision {
	var buf [2]string
	return g.T.CheckAny(loginKeys(buf[:0], ip, user), g.now())
}

// Failed records a failed login on both keys at Now and returns the stricter
// outcome: Banned (latest until) if either key reached the threshold, else
// Allow with the smaller remaining. A store error on either key is returned,
// wrapped, after both were tried; the decision then covers the key that
// worked, or is Unavailable when none did. Decide on the next attempt with
// Check, not with this outcome (spec FIND-6).
func (g LoginGuard) Failed(ip, user string) (throttle.Decision, error) {
	var buf [2]string
	keys, now := loginKeys(buf[:0], ip, user), g.now()
	out, errs, got := throttle.Decision{Verdict: throttle.Allow}, []error(nil), false
	for _, key := range keys {
		d, err := g.T.RecordFailure(key, now)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out, got = stricter(out, d, got), true
	}
	if len(keys) > 0 && !got {
		out = throttle.Decision{Verdict: throttle.Unavailable}
	}
	return out, wrapLogin(errs)
}

// Succeeded records a successful login: it clears the failure count of the
// account key only. ip is taken for symmetry with Failed and deliberately
// left alone: the ip key is shared by everyone behind one address, and if a
// success there cleared it, an attacker holding one valid account could log
// into it before each threshold and guess other accounts' passwords without
// end. The ip key's failures expire with the window. No ban is ever lifted
// (spec THR-14): use the throttle's Reset for that.
func (g LoginGuard) Succeeded(ip, user string) error {
	acct, ok := NormalizeAccount(user)
	if !ok {
		return nil
	}
	return wrapLogin([]error{g.T.RecordSuccess(AccountKeyPrefix + acct)})
}

// WriteHeaders sets the throttle headers of d on w: X-RateLimit-Remaining
// (failures left) on Allow, Retry-After (seconds until the ban ends, at least
// 1) on Banned, nothing on Unavailable. Call it before w.WriteHeader.
func (g LoginGuard) WriteHeaders(w http.ResponseWriter, d throttle.Decision) {
	switch d.Verdict {
	case throttle.Allow:
		w.Header().Set("X-RateLimit-Remaining", strconv.FormatUint(d.Remaining, 10))
	case throttle.Banned:
		w.Header().Set("Retry-After", strconv.FormatUint(banWait(d.Until, g.now()), 10))
	}
}

// banWait is until - now seconds, at least 1.
func banWait(until, now uint64) uint64 {
	if until <= now {
		return 1
	}
	return max(until-now, 1)
}

// now is g.Now(), or the wall clock in Unix seconds (0 before 1970).
func (g LoginGuard) now() uint64 {
	if g.Now != nil {
		return g.Now()
	}
	return uint64(max(time.Now().Unix(), 0))
}

// loginKeys appends the attempt's keys to dst: "ip:"+ip when ip is not
// empty, "acct:"+name when user normalises.
func loginKeys(dst []string, ip, user string) []string {
	if ip != "" {
		dst = append(dst, IPKeyPrefix+ip)
	}
	if acct, ok := NormalizeAccount(user); ok {
		dst = append(dst, AccountKeyPrefix+acct)
	}
	return dst
}

// stricter combines two record_failure outcomes (Allow or Banned); first is
// false while a holds no outcome yet.
func stricter(a, b throttle.Decision, first bool) throttle.Decision {
	switch {
	case !first:
		return b
	case a.Verdict == throttle.Banned && b.Verdict == throttle.Banned:
		return throttle.Decision{Verdict: throttle.Banned, Until: max(a.Until, b.Until)}
	case a.Verdict == throttle.Banned:
		return a
	case b.Verdict == throttle.Banned:
		return b
	}
	return throttle.Decision{Verdict: throttle.Allow, Remaining: min(a.Remaining, b.Remaining)}
}

// wrapLogin joins errs (nils skipped) under an httplimit: prefix, or nil.
func wrapLogin(errs []error) error {
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("httplimit: login guard: %w", err)
	}
	return nil
}

// NormalizeAccount returns the account key part of a submitted user name,
// and false when there is none. The rule: the name must be valid UTF-8;
// surrounding white space is trimmed; letters are lowercased
// (strings.ToLower, Unicode simple case mapping); the result is cut to at
// most MaxAccountLen bytes at a rune boundary; a result that is empty or
// holds a control character is refused. Names differing only in case or
// beyond the cap share one key, which only makes limiting stricter. The
// rule must be at least as coarse as the account lookup: if two names reach
// one account (say the user store applies NFKC), apply that first.
func NormalizeAccount(user string) (string, bool) {
	if !utf8.ValidString(user) {
		return "", false
	}
	s := strings.ToLower(strings.TrimSpace(user))
	s = truncateRunes(s, MaxAccountLen)
	if s == "" || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return "", false
	}
	return s, true
}

// truncateRunes cuts the valid UTF-8 string s to at most n bytes without
// splitting a rune.
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
