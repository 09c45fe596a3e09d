package redisclient

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestParseReadsEachModesSyntax: each Parse function reads its syntax into
// a valid Target that String writes back unchanged.
func TestParseReadsEachModesSyntax(t *testing.T) {
	for _, tc := range []struct {
		in     string
		parse  func(string) (Target, error)
		want   Target
		reason string
	}{
		{"127.0.0.1:6379", ParseServer, Target{Mode: Server, Addrs: []string{"127.0.0.1:6379"}}, "one server"},
		{"redis.internal:7000", ParseServer, Target{Mode: Server, Addrs: []string{"redis.internal:7000"}}, "a host name"},
		{"[::1]:6379", ParseServer, Target{Mode: Server, Addrs: []string{"[::1]:6379"}}, "IPv6 in brackets"},
		{"a:7000", ParseCluster, Target{Mode: Cluster, Addrs: []string{"a:7000"}}, "one seed is enough"},
		{"a:7000,b:7001,c:7002", ParseCluster, Target{Mode: Cluster, Addrs: []string{"a:7000", "b:7001", "c:7002"}}, "several seeds"},
		{"mymaster@s1:26379", ParseSentinel, Target{Mode: Sentinel, Master: "mymaster", Addrs: []string{"s1:26379"}}, "one Sentinel"},
		{"my@master@s1:26379,s2:26379", ParseSentinel, Target{Mode: Sentinel, Master: "my@master", Addrs: []string{"s1:26379", "s2:26379"}}, "the last @ ends the name: addresses have none"},
	} {
		got, err := tc.parse(tc.in)
		if err != nil || got.Mode != tc.want.Mode || got.Master != tc.want.Master || !slices.Equal(got.Addrs, tc.want.Addrs) {
			t.Errorf("%s: parse(%q) = %+v, %v; want %+v", tc.reason, tc.in, got, err, tc.want)
			continue
		}
		if got.String() != tc.in {
			t.Errorf("%s: String() = %q, want %q", tc.reason, got.String(), tc.in)
		}
	}
}

// TestParseRefusesBadInputNamingIt: bad input is an ErrTarget error that
// names what is wrong.
func TestParseRefusesBadInputNamingIt(t *testing.T) {
	for _, tc := range []struct {
		in     string
		parse  func(string) (Target, error)
		want   string
		reason string
	}{
		{"", ParseServer, "an empty address", "nothing given"},
		{"localhost", ParseServer, `address "localhost" is not host:port`, "no port"},
		{":6379", ParseServer, `address ":6379" has no host`, "no host"},
		{"h:0", ParseServer, `port "0" is not a number in 1..65535`, "port 0"},
		{"h:65536", ParseServer, `port "65536" is not a number in 1..65535`, "port past 65535"},
		{"h:http", ParseServer, `port "http" is not a number`, "a service name"},
		{"a:1,b:2", ParseServer, "server wants one address", "two servers: that is a cluster's seeds"},
		{"a:1,", ParseCluster, "an empty address (a stray comma?)", "a trailing comma"},
		{"a:1,a:1", ParseCluster, "address a:1 is listed twice", "a duplicate seed"},
		{"s1:26379", ParseSentinel, "want MASTER@HOST:PORT", "no master name"},
		{"@s1:26379", ParseSentinel, "Sentinel wants a master name", "an empty master name"},
		{"my master@s1:26379", ParseSentinel, `master name "my master" has white space`, "a blank in the name"},
		{"m@", ParseSentinel, "an empty address", "no Sentinel"},
	} {
		_, err := tc.parse(tc.in)
		if !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: parse(%q) error = %v; want ErrTarget saying %q", tc.reason, tc.in, err, tc.want)
		}
	}
}

// TestValidateRefusesWhatParseCannotMake: a Target built by hand is
// checked as parsed ones are, and more: its mode, and a master name
// outside Sentinel.
func TestValidateRefusesWhatParseCannotMake(t *testing.T) {
	for _, tc := range []struct {
		t      Target
		want   string
		reason string
	}{
		{Target{}, `mode ""`, "the zero Target"},
		{Target{Mode: Cluster}, "cluster wants one seed address or more", "no seeds"},
		{Target{Mode: Sentinel, Master: "m"}, "sentinel wants one Sentinel address or more", "no Sentinels"},
		{Target{Mode: Cluster, Addrs: []string{"a:1"}, Master: "m"}, "a master name is for Sentinel only", "a master name on a cluster"},
	} {
		if err := tc.t.Validate(); !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate(%+v) = %v; want ErrTarget saying %q", tc.reason, tc.t, err, tc.want)
		}
		if _, err := New(tc.t); !errors.Is(err, ErrTarget) {
			t.Errorf("%s: New(%+v) = %v; want ErrTarget without connecting", tc.reason, tc.t, err)
		}
	}
}

// TestOptionReadsPrimariesWithoutCache: every mode's option disables the
// client-side cache and sends nothing to replicas; Sentinel's names the
// master.
func TestOptionReadsPrimariesWithoutCache(t *testing.T) {
	for _, tg := range []Target{
		{Mode: Server, Addrs: []string{"a:1"}},
		{Mode: Cluster, Addrs: []string{"a:1", "b:2"}},
		{Mode: Sentinel, Addrs: []string{"s:1"}, Master: "m"},
	} {
		o := tg.Option()
		if !o.DisableCache || o.SendToReplicas != nil || o.ReplicaOnly || !slices.Equal(o.InitAddress, tg.Addrs) {
			t.Errorf("%s: Option() = cache %v, replicas %v/%v, addresses %v", tg.Mode, !o.DisableCache, o.SendToReplicas != nil, o.ReplicaOnly, o.InitAddress)
		}
		if o.Sentinel.MasterSet != tg.Master {
			t.Errorf("%s: Option().Sentinel.MasterSet = %q, want %q", tg.Mode, o.Sentinel.MasterSet, tg.Master)
		}
	}
}
