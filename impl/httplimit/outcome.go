package httplimit

import (
	"fmt"
	"net/http"
)

// Result is what one limit decided for one request, in an [Outcome].
type Result uint8

// The results.
const (
	// Passed: the bucket paid (or the request needed no bucket).
	Passed Result = iota + 1
	// Limited: the bucket could not pay. Answered with the limited status
	// ([WithLimitedStatus]) unless the limit is a shadow.
	Limited
	// Shed: the in-flight gate (or a per-key or per-prefix cap) was full:
	// 503, whatever [WithLimitedStatus] says.
	Shed
	// Invalid: the request has no valid key and its [Key] refuses it (400
	// or 401); no bucket was read.
	Invalid
	// Allowed: the request is on the allowlist ([WithAllowlist]) and skipped
	// the bucket.
	Allowed
)

// String returns "passed", "limited", "shed", "invalid" or "allowed".
func (r Result) String() string {
	switch r {
	case Passed:
		return "passed"
	case Limited:
		return "limited"
	case Shed:
		return "shed"
	case Invalid:
		return "invalid"
	case Allowed:
		return "allowed"
	}
	return fmt.Sprintf("Result(%d)", uint8(r))
}

// Outcome is one limit's decision on one request, as the [WithOnDecision]
// hook sees it: the Limiter's own (its gate: Policy is its name,
// [WithPolicyName]) or a [Policy]'s.
type Outcome struct {
	Policy string // the limit's name
	Result Result
	// Shadow is true for a shadow policy's decision: a Limited was
	// reported, not enforced.
	Shadow bool
	// Cost is the tokens the request asked for (1 for the Limiter's gate).
	Cost int64
	// Remaining is the bucket's tokens after the decision, the value of
	// the RateLimit field's r; -1 when no bucket was read (Shed, Invalid,
	// Allowed).
	Remaining int64
	// RetryAfter is the Retry-After of a Limited or Shed, in seconds.
	RetryAfter int64
}

// WithOnDecision calls hook with every decision of the Limiter's gate and
// of its policies, on the request's goroutine, before the response is
// written (for a pass, before the next handler runs): one call per limit
// a request meets. hook must be safe for concurrent use and fast (metrics,
// logging); the Outcome is a value and costs no allocation. Without it, no
// outcome is computed.
func WithOnDecision(hook func(r *http.Request, o Outcome)) Option {
	return func(s *settings) { s.onDecision = hook }
}
