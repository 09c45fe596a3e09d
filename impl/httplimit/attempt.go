package httplimit

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/limcheck/limcheck/impl/throttle"
)

// LoginVerdict is what [LoginGuard.Begin] decided for an [Attempt].
type LoginVerdict string

// The verdicts of Begin. Only LoginProceed lets a password be verified.
const (
	// LoginProceed: verify the password, then settle the attempt.
	LoginProceed LoginVerdict = "proceed"
	// LoginBanned: a key is banned until Until (429, Retry-After).
	LoginBanned LoginVerdict = "banned"
	// LoginBusy: a key's quota is taken by attempts being verified (or by
	// failures the store refused): come back in a second (429).
	LoginBusy LoginVerdict = "busy"
	// LoginLimited: the account's bucket of [LoginConfig].Accounts is
	// empty until RetryAfter (429). Never a ban.
	LoginLimited LoginVerdict = "limited"
	// LoginFull: the guard holds MaxPending entries: fail closed (503).
	LoginFull LoginVerdict = "full"
)

// reservation is an attempt's pending entry on one throttle key, and its
// reservation in the store (sid, "" when the guard alone holds it).
type reservation struct {
	key string
	id  uint64
	sid string
}

// Attempt is one login attempt begun by [LoginGuard.Begin]. When its
// Verdict is LoginProceed it holds a reservation on each of its throttle
// keys until it is settled: once, by Failed or Succeeded, or by Close as a
// failure. An Attempt is used by the goroutine of its request: it is not
// safe for concurrent use.
type Attempt struct {
	// Verdict says whether to verify the password.
	Verdict LoginVerdict
	// Until is the end (seconds, exclusive) of the latest ban in force on
	// the attempt's keys, when Verdict is LoginBanned; else 0.
	Until uint64
	// RetryAfter is the Retry-After of a refusal, in seconds (>= 1); 0 for
	// LoginProceed.
	RetryAfter uint64

	g       *LoginGuard
	now     uint64
	res     [2]reservation
	n       int
	settled bool
}

// refuse gives back a's reservations and makes it a refusal v, reported as
// LoginBanned instead when a key of keys is banned.
func (a *Attempt) refuse(v LoginVerdict, keys []string) *Attempt {
	for _, r := range a.res[:a.n] {
		_ = a.g.cancel(r) // on a store error its reservation expires with the window
	}
	a.n = 0
	for _, key := range keys {
		if d := a.g.t.Check(key, a.now); d.Verdict == throttle.Banned {
			v, a.Until = LoginBanned, max(a.Until, d.Until)
		}
	}
	a.Verdict = v
	switch v {
	case LoginBanned:
		a.RetryAfter = banWait(a.Until, a.now)
	case LoginBusy, LoginFull:
		a.RetryAfter = 1
	}
	return a
}

// Failed settles the attempt as a failed login: the failure is recorded on
// every throttle key at Now (the reservation becomes the recorded failure,
// in one store operation when the store holds it, else under the key's
// lock in the guard), and the stricter outcome is returned: Banned (latest until) if a key reached the threshold, else
// Allow with the smaller remaining. When the store refuses a key's failure
// (a fault, or [throttle.ErrFull] on a store full of live keys) the guard
// keeps it as a pending entry for a window (AlarmKept), so the key stays
// limited; that error is returned, wrapped, after every key was tried, and
// the outcome covers the keys that worked (Unavailable when none did).
// Decide on the next attempt with Begin, not with this outcome (spec
// FIND-6). Failed panics with [ErrSettled] on an attempt that was refused or
// already settled.
func (a *Attempt) Failed() (throttle.Decision, error) {
	a.settle()
	now := a.g.now()
	out, errs, got := throttle.Decision{Verdict: throttle.Allow}, []error(nil), false
	for _, r := range a.res[:a.n] {
		d, err := a.g.fail(r, now)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out, got = stricter(out, d, got), true
	}
	if a.n > 0 && !got {
		out = throttle.Decision{Verdict: throttle.Unavailable}
	}
	return out, wrapLogin(errs)
}

// Succeeded settles the attempt as a successful login: its reservations
// are given back and the failure count of the account key only is cleared
// (the seed's record_success). The ip key is deliberately left alone: it is
// shared by everyone behind one address, and if a success there cleared it,
// an attacker holding one valid account could log into it before each
// threshold and guess other accounts' passwords without end. The ip key's
// failures expire with the window. No ban is ever lifted (spec THR-14): use
// the throttle's Reset for that. A store error is returned, wrapped.
// Succeeded panics with [ErrSettled] on an attempt that was refused or
// already settled.
func (a *Attempt) Succeeded() error {
	a.settle()
	var errs []error
	for _, r := range a.res[:a.n] {
		errs = append(errs, a.g.succeed(r))
	}
	return wrapLogin(errs)
}

// Close settles an attempt that is still unsettled as a failure (Failed,
// its results dropped): deferred right after Begin, it makes a handler that
// panics or returns early between Begin and the outcome count as a failed
// guess, never as a free one. On a settled or refused attempt it does
// nothing.
func (a *Attempt) Close() {
	if a.Verdict == LoginProceed && !a.settled {
		_, _ = a.Failed()
	}
}

// settle marks the attempt settled, panicking when it cannot be.
func (a *Attempt) settle() {
	if a.Verdict != LoginProceed || a.settled {
		panic(ErrSettled)
	}
	a.settled = true
}

// WriteRefusal answers a refused attempt through w: 429 Too Many Requests
// for LoginBanned, LoginBusy and LoginLimited, 503 Service Unavailable for
// LoginFull; Retry-After (a.RetryAfter), Cache-Control: no-store and a
// one-line text body. It panics with [ErrSettled] for LoginProceed: there is
// nothing to refuse.
func (a *Attempt) WriteRefusal(w http.ResponseWriter) {
	code, msg := http.StatusTooManyRequests, "too many login attempts"
	switch a.Verdict {
	case LoginProceed:
		panic(ErrSettled)
	case LoginFull:
		code, msg = http.StatusServiceUnavailable, "login temporarily unavailable"
	}
	h := w.Header()
	h.Set("Retry-After", strconv.FormatUint(a.RetryAfter, 10))
	h.Set("Cache-Control", "no-store")
	http.Error(w, msg, code)
}

// fail records a failure on r's key at now and settles r's reservation
// (in the store too, in the same store operation, when it holds it); a
// failure the store refuses is kept, and the store's reservation given
// back, so that it counts once.
func (g *LoginGuard) fail(r reservation, now uint64) (throttle.Decision, error) {
	var later *Alarm
	defer func() { g.alarmLater(later) }()
	sh := g.pend.lock(r.key)
	defer sh.mu.Unlock()
	es := g.pend.live(sh, r.key, now)
	d, err := g.record(r, now)
	if err == nil {
		es, _ = g.pend.remove(es, r.id)
		g.pend.put(sh, r.key, es)
		return d, nil
	}
	if r.sid != "" {
		_ = g.t.CancelReserved(r.key, r.sid) // on an error it expires with the window
	}
	if i := indexOf(es, r.id); i >= 0 {
		es[i] = pending{t: now, kept: true} // the reservation becomes the kept failure
	} else if g.pend.take(sh, now) {
		es = append(es, pending{t: now, kept: true}) // it had expired
	} else {
		later = &Alarm{Kind: AlarmPendingFull, Key: r.key, Err: err}
		return d, err
	}
	g.pend.put(sh, r.key, es)
	later = &Alarm{Kind: AlarmKept, Key: r.key, Err: err}
	return d, err
}

// record records the failure of r at now: FailReserved when the store
// holds r's reservation, else RecordFailure.
func (g *LoginGuard) record(r reservation, now uint64) (throttle.Decision, error) {
	if r.sid != "" {
		return g.t.FailReserved(r.key, r.sid, now)
	}
	return g.t.RecordFailure(r.key, now)
}

// succeed gives back r's reservation and, for an account key, clears its
// failures (record_success).
func (g *LoginGuard) succeed(r reservation) error {
	err := g.cancel(r)
	if len(r.key) < len(AccountKeyPrefix) || r.key[:len(AccountKeyPrefix)] != AccountKeyPrefix {
		return err
	}
	return errors.Join(err, g.t.RecordSuccess(r.key))
}

// cancel gives back r's reservation, here and in the store: nothing
// happened on its key. A store error is returned; the store's reservation
// then expires with the window.
func (g *LoginGuard) cancel(r reservation) error {
	sh := g.pend.lock(r.key)
	defer sh.mu.Unlock()
	es, _ := g.pend.remove(sh.keys[r.key], r.id)
	g.pend.put(sh, r.key, es)
	if r.sid == "" {
		return nil
	}
	return g.t.CancelReserved(r.key, r.sid)
}

// indexOf returns the index of reservation id's entry in es, or -1.
func indexOf(es []pending, id uint64) int {
	for i, e := range es {
		if e.id == id && !e.kept {
			return i
		}
	}
	return -1
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
