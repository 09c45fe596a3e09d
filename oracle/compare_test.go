package oracle_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/limcheck/limcheck/oracle"
)

// TestDiffFieldsNamesEachFieldThatDiffers: a value that differs, a field
// on one side only (nil on the other), in the order of the JSON names;
// nothing for equal results.
func TestDiffFieldsNamesEachFieldThatDiffers(t *testing.T) {
	limited, yes, no := "limited", true, false
	resp := oracle.Bytes("HTTP/1.1 503")
	tests := []struct {
		want, got oracle.Result
		fields    []oracle.Field
		reason    string
	}{
		{oracle.Result{OK: oracle.I(0), Retry: oracle.I(5)}, oracle.Result{OK: oracle.I(0), Retry: oracle.I(6)},
			[]oracle.Field{{Name: "retry", Want: oracle.I(5), Got: oracle.I(6)}}, "one value differs"},
		{oracle.Result{Tks: oracle.I(1), OK: oracle.I(1)}, oracle.Result{OK: oracle.I(0)},
			[]oracle.Field{{Name: "ok", Want: oracle.I(1), Got: oracle.I(0)}, {Name: "tks", Want: oracle.I(1)}}, "a missing field differs too, nil on its side; in name order"},
		{oracle.Result{}, oracle.Result{Error: oracle.ErrConfig},
			[]oracle.Field{{Name: "error", Got: oracle.ErrConfig}}, "a field on the got side only"},
		{oracle.Result{Retry: oracle.I(1000), Verdict: limited, Set: oracle.I(0), RetryAfter: oracle.I(1)},
			oracle.Result{Retry: oracle.I(1000), Verdict: limited, Set: oracle.I(0), Way: oracle.I(0), RetryAfter: oracle.I(1)},
			[]oracle.Field{{Name: "way", Got: oracle.I(0)}}, "GATE-19: a port that names a way where the budget refused the eviction"},
		{oracle.Result{Touched: &yes}, oracle.Result{Touched: &no},
			[]oracle.Field{{Name: "touched", Want: &yes, Got: &no}}, "pointers compare by what they point to"},
		{oracle.Result{Response: &resp, Touched: &yes}, oracle.Result{Response: new(oracle.Bytes("HTTP/1.1 503")), Touched: new(true)},
			nil, "equal pointees: equal results"},
		{oracle.Result{OK: oracle.I(1)}, oracle.Result{OK: oracle.I(1)}, nil, "equal results"},
	}
	for _, tt := range tests {
		got := oracle.DiffFields(tt.want, tt.got)
		if diff := cmp.Diff(tt.fields, got); diff != "" {
			t.Errorf("DiffFields(%#v, %#v) (-want +got): %s\n(%s)", tt.want, tt.got, diff, tt.reason)
		}
		if eq := tt.want.Equal(tt.got); eq != (len(tt.fields) == 0) {
			t.Errorf("%#v.Equal(%#v) = %v, want %v (%s)", tt.want, tt.got, eq, len(tt.fields) == 0, tt.reason)
		}
	}
}

// TestCompareFindsTheFirstDivergence: the first op whose results differ,
// with both results and their fields; a missing result; open refused on
// one side only; nothing when the outcomes agree.
func TestCompareFindsTheFirstDivergence(t *testing.T) {
	rel := func(n int64) oracle.Op { return oracle.Op{Kind: oracle.LimRel, N: oracle.I(n)} }
	tr := oracle.Trace{Component: oracle.Lim, Ops: []oracle.Op{rel(1), rel(2), rel(3)}}
	n := func(v int64) oracle.Result { return oracle.Result{N: oracle.I(v)} }
	full := oracle.Outcome{Results: []oracle.Result{n(0), n(1), n(2)}}
	tests := []struct {
		want, got oracle.Outcome
		div       *oracle.Divergence
		reason    string
	}{
		{full, full, nil, "equal outcomes"},
		{full, oracle.Outcome{Results: []oracle.Result{n(0), n(2), n(2)}},
			&oracle.Divergence{Index: 1, Op: rel(2), Want: new(n(1)), Got: new(n(2)), Fields: []oracle.Field{{Name: "n", Want: oracle.I(1), Got: oracle.I(2)}}},
			"the first op that differs, not a later one"},
		{full, oracle.Outcome{Results: []oracle.Result{n(0), n(1)}},
			&oracle.Divergence{Index: 2, Op: rel(3), Want: new(n(2))}, "a missing result: no got, no fields"},
		{oracle.Outcome{Open: oracle.ErrConfig}, oracle.Outcome{Results: []oracle.Result{}},
			&oracle.Divergence{Index: -1, Want: &oracle.Result{Error: oracle.ErrConfig}, Got: &oracle.Result{}, Fields: []oracle.Field{{Name: "error", Want: oracle.ErrConfig}}},
			"open refused on one side: its result is {\"error\":\"config\"}, the other's {}"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.div, oracle.Compare(tr, tt.want, tt.got)); diff != "" {
			t.Errorf("Compare(trace, %#v, %#v) (-want +got): %s\n(%s)", tt.want, tt.got, diff, tt.reason)
		}
	}
}
