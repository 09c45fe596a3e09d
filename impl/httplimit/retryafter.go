package httplimit

import (
	"strconv"
	"sync/atomic"
)

// The Retry-After cache holds the header values of 0 to retryAfterCached-1
// seconds (2^17 s, a little over 36 hours: every wait of a window up to a
// day and a half) in pages of retryAfterPageLen consecutive values.
const (
	retryAfterCached  = 1 << 17
	retryAfterPageLen = 256
)

// retryAfterPage holds the decimals of one page's values: page n's element i
// is the decimal of n*retryAfterPageLen + i. Never written once published.
type retryAfterPage [retryAfterPageLen]string

// retryAfterPages is the cache, shared by every Limiter: a page is built by
// the first 503 that needs one of its values and published with a
// CompareAndSwap, so the pages in use are built once per process and later
// lookups are one atomic load. A page costs about 6 KB (its array and
// strings), so the cache's memory follows the waits that occur: one page for
// waits under 256 s, all 512 (about 3 MB) only for a config whose waits
// reach 36 hours.
var retryAfterPages [retryAfterCached / retryAfterPageLen]atomic.Pointer[retryAfterPage]

// retryAfterValue returns a Retry-After header value for secs >= 0: the
// decimal of secs as a slice of length and capacity 1. Below
// retryAfterCached the slice is a read-only view of the shared cache and
// costs no allocation once its page is built; past it (only a config whose
// waits pass 36 hours) it is a new slice, two small allocations.
func retryAfterValue(secs int64) []string {
	if secs >= retryAfterCached {
		return []string{strconv.FormatInt(secs, 10)}
	}
	n := secs / retryAfterPageLen
	p := retryAfterPages[n].Load()
	if p == nil {
		p = buildRetryAfterPage(n)
	}
	i := secs % retryAfterPageLen
	return p[i : i+1 : i+1]
}

// buildRetryAfterPage builds page n and publishes it, unless another
// goroutine published one first, and returns the published page.
func buildRetryAfterPage(n int64) *retryAfterPage {
	p := new(retryAfterPage)
	for i := range p {
		p[i] = strconv.FormatInt(n*retryAfterPageLen+int64(i), 10)
	}
	retryAfterPages[n].CompareAndSwap(nil, p)
	return retryAfterPages[n].Load()
}
