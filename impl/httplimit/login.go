package httplimit

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/lim"
	"github.com/limcheck/limcheck/impl/throttle"
)

// DefaultMaxPending is the most pending entries (attempts in flight and
// kept failures) a [LoginGuard] holds unless [LoginConfig] says otherwise.
const DefaultMaxPending = 1 << 16

// LoginConfig configures [NewLoginGuard]. The zero value is the seed's
// convention: the wall clock, accounts keyed and banned in the throttle,
// DefaultMaxPending, no alarm hook.
type LoginConfig struct {
	// Now returns the time in seconds (the throttle's unit); nil means the
	// wall clock, Unix seconds. It must be safe for concurrent use.
	Now func() uint64
	// Accounts, when not nil, limits each account with this gate instead of
	// keying it in the throttle: every attempt on an account takes one token
	// of the account's bucket, an attempt without one is refused as
	// [LoginLimited] until the bucket refills, and no account is ever
	// banned (see "Account lockout" in the package documentation). Its tick
	// must be one second (TickNanos 1e9), the guard's unit; its maxif must
	// exceed the logins in flight at once (the guard gives each place back
	// at once). The gate's keys are "acct:"+name. A nil *gate.Gate is no
	// gate.
	Accounts AccountGate
	// MaxPending bounds the pending entries held at once, in 1..2^62; 0
	// means DefaultMaxPending. When it is reached, the entries out of the
	// window are swept out first; when every entry still counts, attempts
	// are refused as [LoginFull] (fail closed) and OnAlarm is told.
	MaxPending int64
	// OnAlarm, when not nil, is called for every [Alarm], on the request's
	// goroutine, with no lock of the guard held: it must be safe for
	// concurrent use and fast (count, log, page someone).
	OnAlarm func(Alarm)
	// Metrics, when not nil, is told every alarm's kind
	// ([Metrics].LoginAlarm), before OnAlarm.
	Metrics Metrics
}

// AccountGate is what [LoginConfig].Accounts limits accounts with: a
// [*gate.Gate] (in-process), or another gate with the same methods, such as
// the Redis-backed gate's adapter (impl/redisgate's HTTPGate), for one
// bucket per account across several nodes.
//
//   - Admit decides one attempt on key at tick now. A gate that cannot
//     decide (its store is down) answers as it is configured to, as for
//     the middleware ([Gate]): a Shed (fail closed: the attempt is refused
//     as [LoginLimited], Retry-After 1) or a Pass whose Release does
//     nothing (fail open: the attempt goes ahead, still limited by its ip
//     key).
//   - Release gives back the place of a passed decision, once per pass.
//   - Bucket returns key's bucket at now and true, or false when the gate
//     holds none for it (or cannot read it: the wait is then 1 second).
//   - Config gives the bucket parameters (Lim) and TickNanos.
//
// Implementations must be safe for concurrent use.
type AccountGate interface {
	Admit(key string, now int64) gate.Decision
	Release(d gate.Decision)
	Bucket(key string, now int64) (lim.Bucket, bool)
	Config() gate.Config
}

var _ AccountGate = (*gate.Gate)(nil)

// AlarmKind names what an [Alarm] reports.
type AlarmKind string

// The alarms. Each is counted in [LoginStats] too.
const (
	// AlarmUnavailable: a check could not read the throttle's store, or a
	// store that holds reservations could not make one (Err says why). The
	// attempt went ahead (the seed's advice: allow and alert), counted
	// against what the check could read and the key's pending entries in
	// this guard only: the bound across guards is lost for it.
	AlarmUnavailable AlarmKind = "unavailable"
	// AlarmKept: the store refused a failure ([throttle.ErrFull] on a store
	// full of live keys, or a fault); the guard keeps it as a pending
	// entry until its window ends, so the key still gets at most threshold
	// verifications per window, but no ban.
	AlarmKept AlarmKind = "kept"
	// AlarmPendingFull: MaxPending entries are held; attempts are refused
	// as [LoginFull], and a failure the store refused is lost.
	AlarmPendingFull AlarmKind = "pending_full"
)

// Alarm is one event an operator should see: Kind, the throttle key
// ("ip:..." or "acct:...") and, for AlarmKept and an AlarmUnavailable of a
// failed reservation, the store's error.
type Alarm struct {
	Kind AlarmKind
	Key  string
	Err  error
}

// LoginStats counts a guard's alarms since it was made.
type LoginStats struct {
	Unavailable uint64 // AlarmUnavailable
	Kept        uint64 // AlarmKept
	PendingFull uint64 // AlarmPendingFull
}

// LoginGuard throttles password guessing with a [throttle.Throttle] on the
// keys of each attempt: "ip:"+ip (the client, keyed as [Limiter.ClientKey]
// does) and "acct:"+[NormalizeAccount](user), unless [LoginConfig] limits
// accounts with a gate. Call [LoginGuard.Begin] before verifying a password,
// verify it only when the attempt says [LoginProceed], then settle the
// attempt with [Attempt.Failed] or [Attempt.Succeeded]; defer
// [Attempt.Close] so that an attempt is settled even when the handler
// panics. The package documentation states the bound this gives under
// concurrency and what happens when the store is full: over a store that
// holds reservations ([throttle.ReserveStore]: MemStore, redisstore) the
// bound holds across every guard that shares the store; over any other, per
// guard.
//
// An ip of "" or a user that does not normalise contributes no key: never
// the raw text, never an empty key shared by every failed construction.
// Clients whose address does not parse all share the ip key
// "ip:"+[InvalidKey]. An attempt with no key at all is not limited.
//
// Build one with [NewLoginGuard]; safe for concurrent use when the
// throttle's store is (impl/throttle's MemStore is). Every change of a key's
// failures must go through a guard (not the throttle directly), or the
// bound may be passed by the changes made around it.
type LoginGuard struct {
	t         *throttle.Throttle
	threshold uint64
	now       func() uint64
	accounts  AccountGate
	acctIvl   int64
	pend      *pendTable
	onAlarm   func(Alarm)
	metrics   Metrics
	ids       atomic.Uint64
	stats     [3]atomic.Uint64 // by alarm: unavailable, kept, pending full
}

// NewLoginGuard returns a guard over t, or an error wrapping [ErrConfig]
// when t is nil or cfg is out of range.
func NewLoginGuard(t *throttle.Throttle, cfg LoginConfig) (*LoginGuard, error) {
	if g, ok := cfg.Accounts.(*gate.Gate); ok && g == nil {
		cfg.Accounts = nil
	}
	switch {
	case t == nil:
		return nil, fmt.Errorf("%w: login guard: nil throttle", ErrConfig)
	case cfg.MaxPending < 0 || cfg.MaxPending > 1<<62:
		return nil, fmt.Errorf("%w: login guard: max pending %d not in 0..2^62", ErrConfig, cfg.MaxPending)
	case cfg.Accounts != nil && cfg.Accounts.Config().TickNanos != int64(time.Second):
		return nil, fmt.Errorf("%w: login guard: the accounts gate's tick is %d ns, not 1 s", ErrConfig, cfg.Accounts.Config().TickNanos)
	}
	if cfg.MaxPending == 0 {
		cfg.MaxPending = DefaultMaxPending
	}
	tc := t.Config()
	g := &LoginGuard{
		t: t, threshold: tc.Threshold, now: cfg.Now,
		accounts: cfg.Accounts, pend: newPendTable(cfg.MaxPending, tc.WindowSecs), onAlarm: cfg.OnAlarm,
		metrics: cfg.Metrics,
	}
	if g.now == nil {
		g.now = wallSeconds
	}
	if g.accounts != nil {
		ac := g.accounts.Config()
		g.acctIvl = ac.Lim.Ivl()
	}
	return g, nil
}

// wallSeconds is the wall clock in Unix seconds (0 before 1970).
func wallSeconds() uint64 { return uint64(max(time.Now().Unix(), 0)) }

// Throttle returns the guard's throttle, e.g. for Reset (the manual unban)
// or PurgeExpired.
func (g *LoginGuard) Throttle() *throttle.Throttle { return g.t }

// Stats returns the alarm counts, each read atomically.
func (g *LoginGuard) Stats() LoginStats {
	return LoginStats{Unavailable: g.stats[0].Load(), Kept: g.stats[1].Load(), PendingFull: g.stats[2].Load()}
}

// alarm counts a and calls the hook.
func (g *LoginGuard) alarm(a Alarm) {
	switch a.Kind {
	case AlarmUnavailable:
		g.stats[0].Add(1)
	case AlarmKept:
		g.stats[1].Add(1)
	case AlarmPendingFull:
		g.stats[2].Add(1)
	}
	if g.metrics != nil {
		g.metrics.LoginAlarm(a.Kind)
	}
	if g.onAlarm != nil {
		g.onAlarm(a)
	}
}

// Check is the throttle's CheckAny over the attempt's throttle keys at Now,
// read only: Banned (the latest until) when a key is banned, else
// Unavailable when the store failed, else Allow with the smaller remaining
// quota; no key gives Allow with remaining 0. It reserves nothing: decide
// whether to verify a password with Begin, not with Check (Check is for
// status pages and the headers of a success).
func (g *LoginGuard) Check(ip, user string) throttle.Decision {
	var buf [2]string
	return g.t.CheckAny(g.throttleKeys(buf[:0], ip, user), g.now())
}

// WriteHeaders sets the throttle headers of d on w: X-RateLimit-Remaining
// (failures left) on Allow, Retry-After (seconds until the ban ends, at least
// 1) on Banned, nothing on Unavailable. Call it before w.WriteHeader.
//
// The strictest limit shows, as with a Limiter's [XRateLimitFields]: an
// X-RateLimit-Remaining already set (by a Limiter or a policy of the same
// request) is kept when it is no larger than the failures left, and when the
// guard replaces it, X-RateLimit-Limit and X-RateLimit-Reset are dropped,
// since they described the other limit and the guard has no such values.
func (g *LoginGuard) WriteHeaders(w http.ResponseWriter, d throttle.Decision) {
	switch d.Verdict {
	case throttle.Allow:
		if h := w.Header(); fewer(h, int64(min(d.Remaining, math.MaxInt64))) {
			delete(h, hXLimit)
			delete(h, hXReset)
			h[hXRemain] = []string{strconv.FormatUint(d.Remaining, 10)}
		}
	case throttle.Banned:
		w.Header().Set("Retry-After", strconv.FormatUint(banWait(d.Until, g.now()), 10))
	}
}

// banWait is until - now seconds, at least 1.
func banWait(until, now uint64) uint64 {
	if until <= now {
		return 1
	}
	return until - now
}

// throttleKeys appends the attempt's throttle keys to dst: "ip:"+ip when ip
// is not empty, and "acct:"+name when user normalises and accounts are not
// limited by a gate.
func (g *LoginGuard) throttleKeys(dst []string, ip, user string) []string {
	if ip != "" {
		dst = append(dst, IPKeyPrefix+ip)
	}
	if g.accounts != nil {
		return dst
	}
	if acct, ok := NormalizeAccount(user); ok {
		dst = append(dst, AccountKeyPrefix+acct)
	}
	return dst
}

// Begin starts a login attempt at Now and says whether to verify its
// password. For each throttle key in turn: a ban in force refuses
// ([LoginBanned]); else, with c the key's failures in the window (capped
// at the threshold) and p its reservations and kept failures, the attempt
// is refused as [LoginBusy] when p > 0 and c + p >= threshold, and
// otherwise reserved: it counts as a failure until it is settled. Over a
// store that holds reservations ([throttle.ReserveStore]) that is one
// store operation and p counts every guard's attempts on the key; over
// another store (or when the store cannot reserve) it is made under the
// key's lock in this guard and p counts this guard's (see the package
// documentation). With nothing in flight (p = 0) this is the seed's check:
// sequential use gives the decisions of check_any, then record_failure or
// record_success. Then, with [LoginConfig].Accounts, the account's bucket
// gives a token or refuses ([LoginLimited]). A refusal gives back the
// reservations made, and reports the latest ban of any key when one is in
// force. A table of MaxPending entries that all count refuses as
// [LoginFull].
//
// The attempt must be settled once (Failed or Succeeded); defer its Close.
func (g *LoginGuard) Begin(ip, user string) *Attempt {
	a := &Attempt{g: g, now: g.now()}
	var buf [2]string
	keys := g.throttleKeys(buf[:0], ip, user)
	for _, key := range keys {
		r, v := g.reserve(key, a.now)
		if v != LoginProceed {
			return a.refuse(v, keys)
		}
		a.res[a.n], a.n = r, a.n+1
	}
	if acct, ok := NormalizeAccount(user); ok && g.accounts != nil {
		if wait, ok := g.takeAccount(AccountKeyPrefix+acct, a.now); !ok {
			a.RetryAfter = wait
			return a.refuse(LoginLimited, keys)
		}
	}
	a.Verdict = LoginProceed
	return a
}

// reserve is Begin's step on one throttle key: the verdict, and on
// LoginProceed the key's new reservation, with its entry in the table.
// When the store holds reservations ([throttle.Throttle.Reserves]) the
// check and the reservation are one store operation, which counts every
// node's attempts in flight, the guard's own other entries added;
// otherwise, or when the store cannot reserve (down, full), they are made
// here: a check, then an entry that only this guard counts.
func (g *LoginGuard) reserve(key string, now uint64) (reservation, LoginVerdict) {
	var later *Alarm
	defer func() { g.alarmLater(later) }() // after the unlock: no hook runs under a lock
	sh := g.pend.lock(key)
	defer sh.mu.Unlock()
	es := g.pend.live(sh, key, now)
	if g.t.Reserves() {
		r, err := g.t.Reserve(key, now, local(es))
		if err == nil {
			res, v := g.reserveStored(sh, key, now, es, r)
			if v == LoginFull {
				later = &Alarm{Kind: AlarmPendingFull, Key: key}
			}
			return res, v
		}
		later = &Alarm{Kind: AlarmUnavailable, Key: key, Err: err}
	}
	var c uint64
	switch d := g.t.Check(key, now); d.Verdict {
	case throttle.Banned:
		return reservation{}, LoginBanned
	case throttle.Unavailable:
		if later == nil { // else the failed reservation's alarm says it
			later = &Alarm{Kind: AlarmUnavailable, Key: key}
		}
	default:
		c = g.threshold - d.Remaining
	}
	if p := uint64(len(es)); p > 0 && (c >= g.threshold || p >= g.threshold-c) {
		return reservation{}, LoginBusy
	}
	if !g.pend.take(sh, now) {
		later = &Alarm{Kind: AlarmPendingFull, Key: key}
		return reservation{}, LoginFull
	}
	id := g.ids.Add(1)
	g.pend.put(sh, key, append(es, pending{id: id, t: now}))
	return reservation{key: key, id: id}, LoginProceed
}

// reserveStored is reserve's verdict on the store's reservation r: banned,
// busy, or proceed with an entry in the table, whose room it takes (a full
// table gives the reservation back). sh is locked; es are key's entries.
func (g *LoginGuard) reserveStored(sh *pendShard, key string, now uint64, es []pending, r throttle.Reservation) (reservation, LoginVerdict) {
	switch {
	case r.Decision.Verdict == throttle.Banned:
		return reservation{}, LoginBanned
	case r.ID == "":
		return reservation{}, LoginBusy
	case !g.pend.take(sh, now):
		_ = g.t.CancelReserved(key, r.ID) // on an error it expires with the window
		return reservation{}, LoginFull
	}
	id := g.ids.Add(1)
	g.pend.put(sh, key, append(es, pending{id: id, t: now, stored: true}))
	return reservation{key: key, id: id, sid: r.ID}, LoginProceed
}

// alarmLater raises a, if any.
func (g *LoginGuard) alarmLater(a *Alarm) {
	if a != nil {
		g.alarm(*a)
	}
}

// takeAccount takes one token of key's bucket in the accounts gate at now
// (seconds are its ticks), giving the in-flight place back at once. It
// returns false and the seconds until the bucket's next token when there is
// none: the true wait (see WithTrueRetryAfter), or 1 for a shed.
func (g *LoginGuard) takeAccount(key string, now uint64) (uint64, bool) {
	tick := int64(min(now, math.MaxInt64))
	d := g.accounts.Admit(key, tick)
	switch d.Verdict {
	case gate.Pass:
		g.accounts.Release(d)
		return 0, true
	case gate.Limited:
		if b, ok := g.accounts.Bucket(key, tick); ok && b.Tks == 0 {
			return uint64(max(stepWait(b.Last, g.acctIvl, tick), 1)), false
		}
	}
	return 1, false
}

// ErrSettled is the panic value of settling an attempt twice, or one that
// was refused: a caller's programming error.
var ErrSettled = errors.New("httplimit: login attempt not proceeding or already settled")
