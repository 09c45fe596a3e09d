package lim

import "strconv"

// Response503 is the seed's lim_resp_503(retry): the exact bytes of the 503
// response, with Retry-After set to retry seconds. A negative retry is out of
// contract and is written as 0, so the header always stays valid.
func Response503(retry int64) string {
	// spec LIM-17: "The 503 response is exactly the bytes of spec.md's template."
	return "HTTP/1.1 503 Service Unavailable\r\n" +
		"Retry-After: " + retryDigits(retry) + "\r\n" +
		"Content-Type: text/plain; charset=utf-8\r\n" +
		"Content-Length: 12\r\n" +
		"\r\n" +
		"lim rejected"
}

// retryDigits formats max(retry, 0) in decimal.
func retryDigits(retry int64) string {
	// spec LIM-18: "Retry-After is the decimal form of max(retry, 0): digits only, no sign, no leading zeros."
	if retry < 0 {
		retry = 0
	}
	return strconv.FormatInt(retry, 10)
}
