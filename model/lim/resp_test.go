package lim_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/limcheck/limcheck/model/lim"
)

// resp503 spells out LIM-17's template with the Retry-After digits d.
func resp503(d string) string {
	return "HTTP/1.1 503 Service Unavailable\r\n" +
		"Retry-After: " + d + "\r\n" +
		"Content-Type: text/plain; charset=utf-8\r\n" +
		"Content-Length: 12\r\n" +
		"\r\n" +
		"lim rejected"
}

func TestResponse503(t *testing.T) {
	tests := []struct {
		clause, reason string
		retry          int64
		want           string
	}{
		{clause: "LIM-17", reason: "the exact bytes, byte for byte, with retry 1",
			retry: 1,
			want:  "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nlim rejected"},
		{clause: "LIM-17", reason: "retry 0: the exact bytes, no trailing newline after the body",
			retry: 0,
			want:  "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 12\r\n\r\nlim rejected"},
		{clause: "LIM-18", reason: "0 is written 0", retry: 0, want: resp503("0")},
		{clause: "LIM-18", reason: "trailing zeros kept, no leading zeros", retry: 100, want: resp503("100")},
		{clause: "LIM-18", reason: "MaxInt64: all 19 digits", retry: maxI, want: resp503("9223372036854775807")},
		{clause: "LIM-18", reason: "-1 is out of contract: written 0, no sign", retry: -1, want: resp503("0")},
		{clause: "LIM-1", reason: "MinInt64 is written 0 (negating it would wrap)", retry: minI, want: resp503("0")},
	}
	for i, tt := range tests {
		checkRow(t, i, tt.clause, tt.reason)
		got := lim.Response503(tt.retry)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (%s): Response503(%d) = %q, want %q (-want +got):\n%s", tt.clause, tt.reason, tt.retry, got, tt.want, diff)
		}
	}
}
