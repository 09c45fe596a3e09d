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

// write503 writes spec LIM-17's response through w: status 503 and the
// headers Retry-After (the decimal of max(retryAfter, 0), LIM-18),
// Content-Type and Content-Length 12, then the 12-byte body. The header
// values share one allocation; Retry-After below 100 allocates nothing.
func write503(w http.ResponseWriter, retryAfter int64) {
	v := [3]string{strconv.FormatInt(max(retryAfter, 0), 10), textPlain, "12"}
	h := w.Header()
	h["Retry-After"] = v[0:1:1]
	h["Content-Type"] = v[1:2:2]
	h["Content-Length"] = v[2:3:3]
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(body503) // a client gone away is not the server's error
}

// writeBadAddress writes the 400 of WithRejectInvalid: fixed bytes only.
func writeBadAddress(w http.ResponseWriter) {
	v := [2]string{textPlain, strconv.Itoa(len(Body400))}
	h := w.Header()
	h["Content-Type"] = v[0:1:1]
	h["Content-Length"] = v[1:2:2]
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(body400)
}
