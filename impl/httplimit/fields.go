package httplimit

import (
	"net/http"
	"strconv"
	"unsafe"

	"github.com/limcheck/limcheck/impl/gate"
	"github.com/limcheck/limcheck/impl/lim"
)

// Fields says which rate-limit header fields a [Limiter] writes
// ([WithFields]); combine them with |.
type Fields uint8

// The header fields.
const (
	// RateLimitFields are RateLimit-Policy and RateLimit of the IETF
	// httpapi draft "RateLimit header fields for HTTP" (latest revision
	// draft-ietf-httpapi-ratelimit-headers-12; see the package
	// documentation's Rate-limit header fields for the revision followed).
	RateLimitFields Fields = 1 << iota
	// XRateLimitFields are X-RateLimit-Limit, X-RateLimit-Remaining and
	// X-RateLimit-Reset, the common unstandardised trio.
	XRateLimitFields
)

// WithFields makes the Limiter and its policies describe each bucket a
// request was decided on in the header fields f, on passes and on Limited
// rejections alike (a shed reads no bucket and gets none). It also makes a
// Limited 503 or 429 of the Limiter's gate carry the true wait as
// Retry-After ([WithTrueRetryAfter]), so that Retry-After is never earlier
// than the RateLimit field's t, as the draft asks. Needs a *gate.Gate.
func WithFields(f Fields) Option { return func(s *settings) { s.fields = f } }

// WithPolicyName names the Limiter's own limit (its gate's buckets) in the
// RateLimit fields and in [Outcome]s; the default is "default". A name is
// 1 to 32 bytes of letters, digits, '-', '_' and '.'.
func WithPolicyName(name string) Option { return func(s *settings) { s.name = name } }

// Canonical names of the fields: the header map's keys.
const (
	hPolicy    = "Ratelimit-Policy"
	hRateLimit = "Ratelimit"
	hXLimit    = "X-Ratelimit-Limit"
	hXRemain   = "X-Ratelimit-Remaining"
	hXReset    = "X-Ratelimit-Reset"
)

// validName reports whether name can be a policy's name: it is written
// inside an sf-string with no escaping.
func validName(name string) bool {
	if name == "" || len(name) > 32 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// fixedFields are the values of one limit's fields that depend only on its
// limits: built once per change of limits and shared by every response
// (see Shared header values in the package documentation).
type fixedFields struct {
	limits gate.Limits
	policy []string // `"name";q=cap;w=window`
	limit  []string // X-RateLimit-Limit: cap
}

// newFixedFields returns the fixed fields of limit name under l, ticks of
// tickNanos.
func newFixedFields(name string, l gate.Limits, tickNanos int64) *fixedFields {
	// w: the seconds an empty bucket takes to be full, rounded up, so that
	// q units every w seconds always pass.
	fill := l.FullIn(lim.Bucket{Last: 0}, 0)
	p := `"` + name + `";q=` + strconv.FormatInt(l.Cap, 10) + ";w=" + strconv.FormatInt(gate.RetryAfterSeconds(fill, tickNanos), 10)
	return &fixedFields{limits: l, policy: []string{p}, limit: []string{strconv.FormatInt(l.Cap, 10)}}
}

// quota is what one decision says of its bucket, in seconds.
type quota struct {
	remaining int64 // r
	more      int64 // t: seconds until more quota; 0: none will come (full)
	full      int64 // X-RateLimit-Reset: seconds until full again; 0: full
}

// quotaOf describes b, the bucket a decision read at tick now under l.
func quotaOf(l gate.Limits, b lim.Bucket, now, tickNanos int64) quota {
	return quota{
		remaining: min(b.Tks, l.Cap),
		more:      seconds(l.MoreIn(b, now), tickNanos),
		full:      seconds(l.FullIn(b, now), tickNanos),
	}
}

// refusedQuota describes a key refused a way after retry ticks: no tokens,
// more and full at once when the budget pays (the key is born full).
func refusedQuota(retryAfter int64) quota {
	return quota{remaining: 0, more: retryAfter, full: retryAfter}
}

// seconds is ticks in seconds rounded up, 0 for 0 ticks.
func seconds(ticks, tickNanos int64) int64 {
	if ticks <= 0 {
		return 0
	}
	return gate.RetryAfterSeconds(ticks, tickNanos)
}

// rateLimitValue holds a RateLimit field value in one allocation: the bytes
// and the slice that points at them, after an earlier limit's value when
// there is one.
type rateLimitValue struct {
	b [96]byte
	s [2]string
}

// writeFields writes the fields f of a limit's decision: fx its fixed
// values, q its quota. RateLimit-Policy and RateLimit are appended to what
// earlier limits of the request wrote (the draft's Lists may be split over
// several field lines); the X-RateLimit trio is replaced only when this
// limit has fewer tokens remaining than the one it describes.
func writeFields(h http.Header, f Fields, name string, fx *fixedFields, q quota) {
	if f&RateLimitFields != 0 {
		h[hPolicy] = appendShared(h[hPolicy], fx.policy)
		v := new(rateLimitValue)
		b := append(v.b[:0], '"')
		b = append(b, name...)
		b = append(b, `";r=`...)
		b = strconv.AppendInt(b, q.remaining, 10)
		if q.more > 0 {
			b = append(b, ";t="...)
			b = strconv.AppendInt(b, q.more, 10)
		}
		item := unsafe.String(&v.b[0], len(b)) // v.b is never written again
		switch old := h[hRateLimit]; len(old) {
		case 0:
			v.s[0] = item
			h[hRateLimit] = v.s[:1:1]
		case 1:
			v.s[0], v.s[1] = old[0], item
			h[hRateLimit] = v.s[:2:2]
		default:
			h[hRateLimit] = append(old[:len(old):len(old)], item)
		}
	}
	if f&XRateLimitFields != 0 && fewer(h, q.remaining) {
		h[hXLimit] = fx.limit
		h[hXRemain] = retryAfterValue(q.remaining)
		h[hXReset] = retryAfterValue(q.full)
	}
}

// appendShared is vs followed by add's one element: add itself when vs is
// empty (no copy), else a new slice (vs may be shared: never written to).
func appendShared(vs, add []string) []string {
	if len(vs) == 0 {
		return add
	}
	return append(vs[:len(vs):len(vs)], add[0])
}

// fewer reports whether remaining is below the X-RateLimit-Remaining that
// h holds, or h holds none.
func fewer(h http.Header, remaining int64) bool {
	vs := h[hXRemain]
	if len(vs) == 0 {
		return true
	}
	old, err := strconv.ParseInt(vs[0], 10, 64)
	return err != nil || remaining < old
}
