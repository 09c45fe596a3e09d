package oracle_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/oracle"
)

func b(s string) *oracle.Bytes { v := oracle.Bytes(s); return &v }

// TestNumRoundTrip checks that every integer of both domains survives JSON
// as a decimal string, and that non-canonical text is refused.
func TestNumRoundTrip(t *testing.T) {
	for _, n := range []oracle.Num{oracle.I(0), oracle.I(-1), oracle.I(math.MinInt64), oracle.I(math.MaxInt64), oracle.U(math.MaxUint64), oracle.U(1 << 63)} {
		data, err := json.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		var back oracle.Num
		if err := json.Unmarshal(data, &back); err != nil || back != n {
			t.Errorf("json round trip of %s = %s (%s), %v", n, back, data, err)
		}
	}
	for _, bad := range []string{`1`, `"01"`, `"-0"`, `"+1"`, `" 1"`, `"18446744073709551616"`, `"-9223372036854775809"`, `""`, `"1e3"`} {
		var n oracle.Num
		if err := json.Unmarshal([]byte(bad), &n); err == nil {
			t.Errorf("Unmarshal(%s) = %s, want an error", bad, n)
		}
	}
	if v, ok := oracle.I(math.MinInt64).Int64(); !ok || v != math.MinInt64 {
		t.Errorf("I(MinInt64).Int64() = %d, %v", v, ok)
	}
	if _, ok := oracle.U(math.MaxUint64).Int64(); ok {
		t.Error("U(MaxUint64).Int64() ok, want out of range")
	}
	if _, ok := oracle.I(-1).Uint64(); ok {
		t.Error("I(-1).Uint64() ok, want out of range")
	}
}

// TestBytesJSON checks both JSON forms of a byte string.
func TestBytesJSON(t *testing.T) {
	for s, want := range map[string]string{"a": `"a"`, "": `""`, "h\u00e9": "\"h\u00e9\"", "\xff\x00": `{"hex":"ff00"}`} {
		data, _ := json.Marshal(oracle.Bytes(s))
		if string(data) != want {
			t.Errorf("Marshal(%q) = %s, want %s", s, data, want)
		}
		var back oracle.Bytes
		if err := json.Unmarshal(data, &back); err != nil || string(back) != s {
			t.Errorf("Unmarshal(%s) = %q, %v", data, back, err)
		}
	}
	var x oracle.Bytes
	for _, bad := range []string{`{"hex":"zz"}`, `{}`, `3`} {
		if err := json.Unmarshal([]byte(bad), &x); err == nil {
			t.Errorf("Unmarshal(%s) = %q, want an error", bad, x)
		}
	}
}

// TestModelRunsWorkedExample runs spec.md's worked example as a trace
// through the model subject.
func TestModelRunsWorkedExample(t *testing.T) {
	tr := oracle.Trace{Component: oracle.Gate, Config: oracle.Config{Gate: &oracle.GateConfig{
		Cap: oracle.I(2), Refil: oracle.I(1), Ivl: oracle.I(10), Maxif: oracle.I(2), Sets: oracle.I(64), Ways: oracle.I(4), TickNanos: oracle.I(100_000_000),
		Seed: "00000000000000000000000000000000"}},
		Ops: []oracle.Op{
			{Kind: oracle.Admit, IP: b("a"), Now: oracle.I(0)},
			{Kind: oracle.Admit, IP: b("a"), Now: oracle.I(1)},
			{Kind: oracle.Admit, IP: b("b"), Now: oracle.I(2)},
			{Kind: oracle.Release}, {Kind: oracle.Release},
			{Kind: oracle.Admit, IP: b("a"), Now: oracle.I(4)},
			{Kind: oracle.InFlight},
		}}
	out, err := oracle.Run(oracle.Model{}, tr)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{out.Results[0].Verdict, out.Results[1].Verdict, out.Results[2].Verdict, out.Results[5].Verdict, out.Results[6].N.String()}
	if want := []string{"pass", "pass", "shed", "limited", "0"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("worked example verdicts = %v, want %v", got, want)
	}
}

// TestBadOpsAreRefused checks that malformed ops are errors wrapping ErrBadOp.
func TestBadOpsAreRefused(t *testing.T) {
	tests := []struct {
		c      oracle.Component
		op     oracle.Op
		reason string
	}{
		{oracle.Lim, oracle.Op{Kind: oracle.LimTake}, "every argument missing"},
		{oracle.Lim, oracle.Op{Kind: oracle.LimAcq, N: oracle.U(math.MaxUint64), Maxif: oracle.I(1)}, "n outside int64"},
		{oracle.Lim, oracle.Op{Kind: oracle.Admit}, "a gate op on lim"},
		{oracle.Throttle, oracle.Op{Kind: oracle.Check, Key: b("k"), Now: oracle.I(-1)}, "a negative throttle time"},
		{oracle.Throttle, oracle.Op{Kind: oracle.CheckAny, Now: oracle.I(1)}, "check_any without keys"},
		{oracle.Throttle, oracle.Op{Kind: oracle.SetFaults}, "set_faults outside throttle_faults"},
		{oracle.ThrottleFaults, oracle.Op{Kind: oracle.SetFaults, Faults: []oracle.Fault{{Op: "explode"}}}, "an unknown store op"},
	}
	cfg := oracle.Config{Throttle: &oracle.ThrottleConfig{Threshold: oracle.U(1), WindowSecs: oracle.U(1), BanSecs: oracle.U(1)}}
	for _, tt := range tests {
		if tt.reason == "" {
			t.Fatal("row without reason")
		}
		inst, _, err := oracle.Model{}.Open(tt.c, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := inst.Do(tt.op); err == nil || !strings.Contains(err.Error(), "bad op") {
			t.Errorf("Do(%+v) = %v, want an ErrBadOp (%s)", tt.op, err, tt.reason)
		}
	}
}
