package otelmetrics_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/limcheck/limcheck/contrib/internal/metricstest"
	"github.com/limcheck/limcheck/contrib/otelmetrics"
	"github.com/limcheck/limcheck/impl/httplimit"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// points reads reader's sums: each instrument's data points as
// "name attr=value,..." -> value, with their attributes in key order.
func points(t *testing.T, reader sdkmetric.Reader) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != otelmetrics.ScopeName {
			t.Errorf("scope %q, want %q", sm.Scope.Name, otelmetrics.ScopeName)
		}
		for _, md := range sm.Metrics {
			sum, ok := md.Data.(metricdata.Sum[int64])
			if !ok {
				t.Fatalf("%s: data %T, want a Sum[int64]", md.Name, md.Data)
			}
			for _, p := range sum.DataPoints {
				key := md.Name
				for _, kv := range p.Attributes.ToSlice() {
					key += " " + string(kv.Key) + "=" + kv.Value.String()
				}
				out[key] = p.Value
			}
		}
	}
	return out
}

// TestCountersAfterRealRequests drives the adapter through a loopback
// server (metricstest.Drive: every result of the address path, a held
// request, a login alarm) and reads the SDK's ManualReader back: each
// result of the policy (allowed at 0), the in-flight up-down counter at 1
// while a request is held and 0 after, and the alarms by kind, every known
// kind reported (0 included).
func TestCountersAfterRealRequests(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	m, err := otelmetrics.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	if err != nil {
		t.Fatal(err)
	}
	metricstest.Drive(t, m, func() {
		if got := points(t, reader)["httplimit.requests.in_flight"]; got != 1 {
			t.Errorf("in flight while a request is held: %d, want 1", got)
		}
	})
	want := map[string]int64{"httplimit.requests.in_flight": int64(metricstest.Want.InFlight)}
	for _, r := range httplimit.Results {
		want[requests(metricstest.Policy, r.String(), false)] = int64(metricstest.Want.Results[r])
	}
	for _, k := range httplimit.AlarmKinds {
		want["httplimit.login.alarms httplimit.alarm="+string(k)] = int64(metricstest.Want.Alarms[k])
	}
	if diff := cmp.Diff(want, points(t, reader)); diff != "" {
		t.Errorf("metrics after the requests (-want +got):\n%s", diff)
	}
}

// requests is the key points gives a data point of httplimit.requests.
func requests(policy, result string, shadow bool) string {
	return fmt.Sprintf("httplimit.requests httplimit.policy=%s httplimit.result=%s httplimit.shadow=%t", policy, result, shadow)
}

// TestShadowAndLaterResults checks that a shadow policy's decisions are
// data points of their own (httplimit.shadow true), and that a result or
// alarm kind the adapter does not know is counted under its String, not
// dropped or indexed out of range, beside the known ones at 0.
func TestShadowAndLaterResults(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	m, err := otelmetrics.New(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	if err != nil {
		t.Fatal(err)
	}
	m.Decision("trial", httplimit.Limited, true)
	m.Decision("trial", httplimit.Result(9), true)
	m.LoginAlarm("new_kind")
	want := map[string]int64{
		requests("trial", "Result(9)", true):              1,
		"httplimit.login.alarms httplimit.alarm=new_kind": 1,
		"httplimit.requests.in_flight":                    0,
	}
	for _, r := range httplimit.Results {
		want[requests("trial", r.String(), true)] = 0
	}
	want[requests("trial", "limited", true)] = 1
	for _, k := range httplimit.AlarmKinds {
		want["httplimit.login.alarms httplimit.alarm="+string(k)] = 0
	}
	if diff := cmp.Diff(want, points(t, reader)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
