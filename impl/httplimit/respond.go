package httplimit

import (
	"net/http"
	"strconv"

	"github.com/limcheck/limcheck/impl/lim"
)

// Body400 is the body of the 400 that [WithRejectInvalid] answers with.
const Body400 = "invalid client address"

// textPlain is the Content-Type of both responses (spec LIM-17).
const textPlain = "text/plain; charset=utf-8"

// body503 and body400 are the response bodies as bytes; never written to.
var (
	body503 = []byte(lim.Body503)
	body400 = []byte(Body400)
)

// The header values of the fixed headers. Like retryAfterValue's, they go
// into the ResponseWriter's header map as they are, shared by every
// response, so that answering allocates nothing; see "Shared header values"
// in the package documentation for why that is safe and what it asks of
// code that sees the map afterwards. Each has length and capacity 1, and
// nothing in this package writes to one after init.
var (
	textPlainValue = []string{textPlain}
	length503Value = []string{strconv.Itoa(len(lim.Body503))} // "12", spec LIM-17
	length400Value = []string{strconv.Itoa(len(Body400))}
	noStoreValue   = []string{"no-store"}
)

// write503 writes spec LIM-17's response through w: status 503 and the
// headers Retry-After (the decimal of max(retryAfter, 0), LIM-18),
// Content-Type and Content-Length 12, then the 12-byte body; and, as HTTP
// framing around those bytes, Cache-Control: no-store, so that no cache
// serves one client's rejection to another or replays it after the wait.
// It allocates nothing for a Retry-After under 2^17 s (retryAfterValue).
// status is 503, or 429 for a Limited request under WithLimitedStatus: the
// same headers and body.
func write503(w http.ResponseWriter, status int, retryAfter int64) {
	h := w.Header()
	h["Retry-After"] = retryAfterValue(max(retryAfter, 0))
	h["Cache-Control"] = noStoreValue
	h["Content-Type"] = textPlainValue
	h["Content-Length"] = length503Value
	w.WriteHeader(status)
	_, _ = w.Write(body503) // a client gone away is not the server's error
}

// writeBadAddress writes the 400 of WithRejectInvalid: fixed bytes only, no
// allocation.
func writeBadAddress(w http.ResponseWriter) {
	h := w.Header()
	h["Content-Type"] = textPlainValue
	h["Content-Length"] = length400Value
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(body400)
}
