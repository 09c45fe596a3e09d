package prommetrics_test

import (
	"strings"
	"testing"

	"github.com/limcheck/limcheck/contrib/internal/metricstest"
	"github.com/limcheck/limcheck/contrib/prommetrics"
	"github.com/limcheck/limcheck/impl/httplimit"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// The exposition's HELP and TYPE lines.
const (
	requestsHead = `# HELP httplimit_requests_total Decisions of the httplimit middleware's limits, by policy, result (passed, limited, shed, invalid, allowed) and shadow.
# TYPE httplimit_requests_total counter
`
	alarmsHead = `# HELP httplimit_login_alarms_total Alarms of the httplimit login guard, by kind (unavailable, kept, pending_full).
# TYPE httplimit_login_alarms_total counter
`
)

// inFlight is the exposition of the in-flight gauge at n.
func inFlight(n string) string {
	return `# HELP httplimit_requests_in_flight Requests holding a place of the httplimit middleware's in-flight gate.
# TYPE httplimit_requests_in_flight gauge
httplimit_requests_in_flight ` + n + "\n"
}

// TestCountersAfterRealRequests drives the adapter through a loopback
// server (metricstest.Drive: every result of the address path, a held
// request, a login alarm) and reads the registry back: each result of the
// policy (allowed at 0: every known result's series is made at the
// policy's first decision), the gauge at 1 while a request is held and 0
// after, and the alarms by kind.
func TestCountersAfterRealRequests(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := prommetrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	metricstest.Drive(t, m, func() {
		if err := testutil.GatherAndCompare(reg, strings.NewReader(inFlight("1")), "httplimit_requests_in_flight"); err != nil {
			t.Errorf("while a request is held: %v", err)
		}
	})
	want := inFlight("0") + requestsHead + `httplimit_requests_total{policy="api",result="allowed",shadow="false"} 0
httplimit_requests_total{policy="api",result="invalid",shadow="false"} 1
httplimit_requests_total{policy="api",result="limited",shadow="false"} 1
httplimit_requests_total{policy="api",result="passed",shadow="false"} 2
httplimit_requests_total{policy="api",result="shed",shadow="false"} 1
` + alarmsHead + `httplimit_login_alarms_total{kind="kept"} 0
httplimit_login_alarms_total{kind="pending_full"} 1
httplimit_login_alarms_total{kind="unavailable"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}

// TestNewRefusesASecondRegistration checks that New reports the registry's
// refusal instead of panicking.
func TestNewRefusesASecondRegistration(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := prommetrics.New(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := prommetrics.New(reg); err == nil || !strings.HasPrefix(err.Error(), "prommetrics: ") {
		t.Errorf("a second New on one registry: %v, want a prommetrics: error", err)
	}
}

// TestShadowAndLaterResults checks that a shadow policy's decisions are
// series of their own (shadow="true"), and that a result or alarm kind the
// adapter does not know is counted under its String, not dropped or
// indexed out of range.
func TestShadowAndLaterResults(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := prommetrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.Decision("trial", httplimit.Limited, true)
	m.Decision("trial", httplimit.Result(9), true)
	m.LoginAlarm("new_kind")
	want := requestsHead + `httplimit_requests_total{policy="trial",result="Result(9)",shadow="true"} 1
httplimit_requests_total{policy="trial",result="allowed",shadow="true"} 0
httplimit_requests_total{policy="trial",result="invalid",shadow="true"} 0
httplimit_requests_total{policy="trial",result="limited",shadow="true"} 1
httplimit_requests_total{policy="trial",result="passed",shadow="true"} 0
httplimit_requests_total{policy="trial",result="shed",shadow="true"} 0
` + alarmsHead + `httplimit_login_alarms_total{kind="kept"} 0
httplimit_login_alarms_total{kind="new_kind"} 1
httplimit_login_alarms_total{kind="pending_full"} 0
httplimit_login_alarms_total{kind="unavailable"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "httplimit_requests_total", "httplimit_login_alarms_total"); err != nil {
		t.Error(err)
	}
}
