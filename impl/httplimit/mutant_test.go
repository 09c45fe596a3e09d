package httplimit_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/impl/httplimit"
)

// TestClientKeyMutantBoundaries pins two boundaries that mutation testing
// (MUTATION.md) found unchecked: a trusted IPv4-mapped prefix of exactly /96
// is all of IPv4 (addr.go canonicalPrefix: bits >= 96), and an empty
// parameter value anywhere in a Forwarded element breaks RFC 7239's grammar
// (forwarded.go: a token is one or more tchars), so the line is ignored and
// the peer is the key; and isTchar's ranges are inclusive at both ends.
func TestClientKeyMutantBoundaries(t *testing.T) {
	mapped96 := httplimit.WithTrustedProxies(httplimit.XForwardedFor, prefixes("::ffff:0.0.0.0/96")...)
	fwd := httplimit.WithTrustedProxies(httplimit.Forwarded, prefixes("10.0.0.0/8")...)
	const peer = "10.0.0.1:5000"
	tests := []proxyRow{
		{[]httplimit.Option{mapped96}, peer, http.Header{"X-Forwarded-For": {"1.2.3.4"}}, "1.2.3.4", "::ffff:0:0/96 trusts every IPv4 peer"},
		{[]httplimit.Option{fwd}, peer, http.Header{"Forwarded": {"for=1.2.3.4;proto="}}, "10.0.0.1", "an empty proto= value: the line is invalid, the peer"},
		{[]httplimit.Option{fwd}, peer, http.Header{"Forwarded": {"for=1.2.3.4;by="}}, "10.0.0.1", "an empty by= value: the line is invalid, the peer"},
		{[]httplimit.Option{fwd}, peer, http.Header{"Forwarded": {"for=1.2.3.4;by=a"}}, "1.2.3.4", "'a' is a tchar"},
		{[]httplimit.Option{fwd}, peer, http.Header{"Forwarded": {"for=1.2.3.4;by=z"}}, "1.2.3.4", "'z' is a tchar"},
		{[]httplimit.Option{fwd}, peer, http.Header{"Forwarded": {"for=1.2.3.4;by=A"}}, "1.2.3.4", "'A' is a tchar"},
		{[]httplimit.Option{fwd}, peer, http.Header{"Forwarded": {"for=1.2.3.4;by=Z"}}, "1.2.3.4", "'Z' is a tchar"},
		{[]httplimit.Option{fwd}, peer, http.Header{"Forwarded": {"for=1.2.3.4;by=0"}}, "1.2.3.4", "'0' is a tchar"},
		{[]httplimit.Option{fwd}, peer, http.Header{"Forwarded": {"for=1.2.3.4;by=9"}}, "1.2.3.4", "'9' is a tchar"},
		{[]httplimit.Option{fwd}, peer, http.Header{"Forwarded": {"for=1.2.3.4;by=!"}}, "1.2.3.4", "'!', the first of the other tchars"},
		{[]httplimit.Option{fwd}, peer, http.Header{"Forwarded": {"for=1.2.3.4;by=@"}}, "10.0.0.1", "'@' is not a tchar: the peer"},
	}
	for _, tt := range tests {
		l := newLimiter(t, newGate(t, 1, 1, 1, 1, 1), append(tt.opts, httplimit.WithIPv6Prefix(128))...)
		if got, _ := l.ClientKey(get(tt.remote, tt.header)); got != tt.want {
			t.Errorf("ClientKey(RemoteAddr %q, %v) = %q; want %q (%s)", tt.remote, tt.header, got, tt.want, tt.reason)
		}
	}
}

// TestNormalizeAccountAtTheLengthCap pins the length boundary mutation testing
// found unchecked: a name of exactly MaxAccountLen bytes is kept whole (the
// cut must not index one past its end), one byte more is cut, and a cut never
// splits a rune.
func TestNormalizeAccountAtTheLengthCap(t *testing.T) {
	tests := []struct {
		in, want string
		reason   string
	}{
		{strings.Repeat("a", httplimit.MaxAccountLen), strings.Repeat("a", httplimit.MaxAccountLen), "exactly the cap: kept whole"},
		{strings.Repeat("a", httplimit.MaxAccountLen+1), strings.Repeat("a", httplimit.MaxAccountLen), "one over: cut to the cap"},
		{strings.Repeat("a", httplimit.MaxAccountLen-1) + "é", strings.Repeat("a", httplimit.MaxAccountLen-1), "a two-byte rune across the cap is dropped whole"},
	}
	for _, tt := range tests {
		if tt.reason == "" {
			t.Fatalf("row %q has no reason", tt.in)
		}
		if got, ok := httplimit.NormalizeAccount(tt.in); !ok || got != tt.want {
			t.Errorf("NormalizeAccount(%d bytes) = %q (%d bytes), %v; want %d bytes (%s)", len(tt.in), got, len(got), ok, len(tt.want), tt.reason)
		}
	}
}
