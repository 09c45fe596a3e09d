package lim

import "strconv"

// The fixed parts of the 503 response (spec LIM-17).
const (
	respHead = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: "
	respTail = "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nlim rejected"
)

// Body503 is the 12-byte body of the 503 response.
const Body503 = "lim rejected"

// Response503 is the seed's lim_resp_503(retry): the exact response bytes,
// Retry-After the decimal of max(retry, 0) (spec LIM-17, LIM-18).
func Response503(retry int64) string { return string(AppendResponse503(nil, retry)) }

// AppendResponse503 appends the bytes of Response503(retry) to dst; with
// enough capacity in dst it does not allocate.
func AppendResponse503(dst []byte, retry int64) []byte {
	dst = append(dst, respHead...)
	dst = AppendRetryAfter(dst, retry)
	return append(dst, respTail...)
}

// AppendRetryAfter appends the Retry-After value of retry: the decimal of
// max(retry, 0), digits only.
func AppendRetryAfter(dst []byte, retry int64) []byte {
	return strconv.AppendInt(dst, max(retry, 0), 10)
}
