package search_test

import (
	"bytes"
	"math"
	"os"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/conformance/search"
	"github.com/limcheck/limcheck/oracle"
)

// Every generated trace becomes a valid vector: Encode then Parse gives it
// back, Load accepts it at its place, the model passes it, its level is
// strict exactly when an op that runs is out of contract, and a refused
// config has no ops and names its clause.
func TestCounterexampleCaseOfAnyTraceIsAValidVectorTheModelPasses(t *testing.T) {
	idRE := regexp.MustCompile(`^([a-z_]+)-fuzz-[0-9]{3,}$`)
	for _, c := range oracle.Components() {
		refused, strict := 0, 0
		for i := range 60 {
			tr := search.GenFuzzTrace(c, 77, i)
			cs, err := search.TraceCase(tr, uint64(i), "a generated trace")
			if err != nil {
				t.Fatalf("TraceCase(%s trace %d) = %v", c, i, err)
			}
			if m := idRE.FindStringSubmatch(cs.ID); m == nil || m[1] != string(c) {
				t.Errorf("ID %q, want %s-fuzz-<nnn>", cs.ID, c)
			}
			data, err := conformance.Encode(cs)
			if err != nil {
				t.Fatal(err)
			}
			back, err := conformance.Parse(data)
			if err != nil || !reflect.DeepEqual(back, cs) {
				t.Fatalf("Parse(Encode(TraceCase(%s trace %d))) = %v, or a different case:\n%s", c, i, err, data)
			}
			if _, err := conformance.Load(fstest.MapFS{string(c) + "/" + cs.ID + ".json": {Data: data}}); err != nil {
				t.Errorf("Load of the case at its place = %v", err)
			}
			if r := judge.Check(oracle.Model{}, cs); r.Verdict != judge.Pass {
				t.Errorf("Check(model, %s) = %s, %s", cs.ID, r.Verdict, r.Why)
			}
			out, _ := oracle.Run(oracle.Model{}, tr)
			wantStrict := false
			if out.Open == "" {
				wantStrict = slices.ContainsFunc(tr.Ops, func(op oracle.Op) bool { return !search.InContract(op) })
			}
			if (cs.Level == conformance.Strict) != wantStrict {
				t.Errorf("%s: level %s, want strict %v", cs.ID, cs.Level, wantStrict)
			}
			if cs.Level == conformance.Strict {
				strict++
			}
			if out.Open != "" {
				refused++
				if cs.ExpectOpen != oracle.ErrConfig || len(cs.Ops) != 0 || !slices.Contains(cs.Clauses, "VEC-11") {
					t.Errorf("%s: refused config: expect_open %q, %d ops, clauses %v", cs.ID, cs.ExpectOpen, len(cs.Ops), cs.Clauses)
				}
			} else if !reflect.DeepEqual(cs.Trace(), tr) {
				t.Errorf("%s: Trace() is not the trace", cs.ID)
			}
		}
		t.Logf("%s: %d refused configs, %d strict cases of 60", c, refused, strict)
	}
}

// TraceCase pads the number to three digits, keeps the description on one
// line, and refuses a trace the model cannot run.
func TestCounterexampleCaseIDDescriptionAndErrors(t *testing.T) {
	lim := oracle.Trace{Component: oracle.Lim, Ops: []oracle.Op{{Kind: oracle.LimRel, N: oracle.I(3)}}}
	tests := []struct {
		t              oracle.Trace
		num            uint64
		desc           string
		wantID, wantDe string
	}{
		{lim, 7, "one\nline", "lim-fuzz-007", "one line"},
		{lim, 12345, "  spaced   out ", "lim-fuzz-12345", "spaced out"},
		{oracle.Trace{Component: oracle.ThrottleFaults, Config: oracle.Config{Throttle: &oracle.ThrottleConfig{Threshold: oracle.U(1), WindowSecs: oracle.U(1), BanSecs: oracle.U(1)}}, Ops: []oracle.Op{}},
			0, "", "throttle_faults-fuzz-000", "a trace found by limcheck fuzz"},
	}
	for _, tt := range tests {
		cs, err := search.TraceCase(tt.t, tt.num, tt.desc)
		if err != nil || cs.ID != tt.wantID || cs.Description != tt.wantDe {
			t.Errorf("TraceCase(%d, %q) = %q, %q, %v; want %q, %q", tt.num, tt.desc, cs.ID, cs.Description, err, tt.wantID, tt.wantDe)
		}
	}
	bad := []oracle.Trace{
		{Component: oracle.Lim, Ops: []oracle.Op{{Kind: oracle.LimRel}}},                                                  // n absent
		{Component: oracle.Throttle, Ops: []oracle.Op{}},                                                                  // no config
		{Component: oracle.Throttle, Config: lim.Config, Ops: []oracle.Op{{Kind: oracle.SetFaults}}},                      // no config either
		{Component: "nope", Ops: []oracle.Op{}},                                                                           // no component
		{Component: oracle.Lim, Ops: []oracle.Op{{Kind: oracle.LimAcq, N: oracle.U(math.MaxUint64), Maxif: oracle.I(1)}}}, // n out of int64
	}
	for _, tr := range bad {
		if cs, err := search.TraceCase(tr, 1, "bad"); err == nil {
			t.Errorf("TraceCase(%#v) = %+v, want an error", tr, cs)
		}
	}
}

// InContract follows VEC-5: lim_take with an invalid config, cost < 1 or
// tks < 0, lim_acq with n < 0 and lim_resp_503 with retry < 0 are out of
// contract; everything else is in.
func TestCounterexampleInContractFollowsVEC5(t *testing.T) {
	tests := []struct {
		op   oracle.Op
		want bool
		why  string
	}{
		{take(0, 0, 1, 1, 1, 1, 0, 1), true, "the smallest in-contract take"},
		{take(math.MaxInt64, math.MinInt64, math.MaxInt64, 1, 1, 1, math.MaxInt64, math.MaxInt64), true, "a take at the ends"},
		{take(-1, 0, 1, 1, 1, 1, 0, 1), false, "LIM-7: tks < 0"},
		{take(0, 0, 1, 1, 1, 1, 0, 0), false, "LIM-7: cost < 1"},
		{take(0, 0, 0, 1, 1, 1, 0, 1), false, "LIM-4: cap < 1"},
		{take(0, 0, 1, 1, 1, -1, 0, 1), false, "LIM-4: maxif < 1"},
		{oracle.Op{Kind: oracle.LimTake}, false, "a take without arguments"},
		{oracle.Op{Kind: oracle.LimAcq, N: oracle.I(0), Maxif: oracle.I(0)}, true, "LIM-14: maxif <= 0 sheds, in contract"},
		{oracle.Op{Kind: oracle.LimAcq, N: oracle.I(-1), Maxif: oracle.I(5)}, false, "LIM-14: n < 0"},
		{oracle.Op{Kind: oracle.LimResp503, Retry: oracle.I(0)}, true, "LIM-18: retry 0"},
		{oracle.Op{Kind: oracle.LimResp503, Retry: oracle.I(-1)}, false, "LIM-18: retry < 0"},
		{oracle.Op{Kind: oracle.LimRel, N: oracle.I(-5)}, true, "LIM-15: lim_rel is total"},
		{oracle.Op{Kind: oracle.LimCfg, Cap: oracle.I(0), Refil: oracle.I(0), Ivl: oracle.I(0), Maxif: oracle.I(0)}, true, "LIM-3: lim_cfg of a bad config"},
		{oracle.Op{Kind: oracle.Admit, IP: bytesPtr("\xff"), Now: oracle.I(math.MinInt64)}, true, "a gate op"},
		{oracle.Op{Kind: oracle.Check, Key: bytesPtr(""), Now: oracle.U(0)}, true, "a throttle op"},
	}
	for _, tt := range tests {
		if got := search.InContract(tt.op); got != tt.want {
			t.Errorf("InContract(%s) = %v, want %v", tt.why, got, tt.want)
		}
	}
}

// ClausesOf names the operations table's clauses of the ops, once each,
// in spec order, with VEC-10.
func TestCounterexampleClausesOfNamesTheOperationsTableInSpecOrder(t *testing.T) {
	op := func(k oracle.Kind) oracle.Op { return oracle.Op{Kind: k} }
	tests := []struct {
		t    oracle.Trace
		want []string
	}{
		{oracle.Trace{Component: oracle.Lim, Ops: []oracle.Op{op(oracle.LimResp503), op(oracle.LimTake), op(oracle.LimCfg), op(oracle.LimTake)}},
			[]string{"LIM-3", "LIM-7", "LIM-8", "LIM-9", "LIM-10", "LIM-11", "LIM-12", "LIM-13", "LIM-17", "LIM-18", "VEC-10"}},
		{oracle.Trace{Component: oracle.Lim, Ops: []oracle.Op{op(oracle.LimIPKey), op(oracle.LimRel), op(oracle.LimAcq), op(oracle.LimBktNew)}},
			[]string{"LIM-6", "LIM-14", "LIM-15", "LIM-16", "VEC-10"}},
		{oracle.Trace{Component: oracle.Gate, Ops: []oracle.Op{op(oracle.InFlight), op(oracle.Bucket)}}, []string{"VEC-10"}},
		{oracle.Trace{Component: oracle.Gate, Ops: []oracle.Op{op(oracle.Release), op(oracle.Admit)}}, []string{"GATE-4", "GATE-5", "GATE-6", "GATE-7", "GATE-8", "GATE-9", "GATE-10", "GATE-11", "GATE-12", "GATE-13", "GATE-14", "GATE-15", "GATE-16", "GATE-17", "VEC-10"}},
		{oracle.Trace{Component: oracle.ThrottleFaults, Ops: []oracle.Op{op(oracle.SetFaults), op(oracle.PurgeExpired), op(oracle.Check), op(oracle.CheckAny),
			op(oracle.RecordFailure), op(oracle.Reset), op(oracle.RecordSuccess)}},
			[]string{"THR-7", "THR-8", "THR-9", "THR-10", "THR-11", "THR-12", "THR-13", "THR-14", "THR-15", "THR-16", "STORE-10", "VEC-10"}},
		{oracle.Trace{Component: oracle.Throttle}, []string{"VEC-10"}},
	}
	for _, tt := range tests {
		if got := search.ClausesOf(tt.t); !slices.Equal(got, tt.want) {
			t.Errorf("ClausesOf(%v) = %v, want %v", tt.t.Ops, got, tt.want)
		}
	}
}

// Every clause TraceCase can name is a live clause of spec.md (VEC-4).
func TestCounterexampleCaseNamesOnlyLiveClauses(t *testing.T) {
	spec, err := os.ReadFile(path.Join("..", "..", "spec.md"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []oracle.Op
	for _, k := range []oracle.Kind{oracle.LimCfg, oracle.LimBktNew, oracle.LimTake, oracle.LimAcq, oracle.LimRel, oracle.LimIPKey, oracle.LimResp503,
		oracle.Admit, oracle.Release, oracle.InFlight, oracle.Bucket,
		oracle.Check, oracle.CheckAny, oracle.RecordFailure, oracle.RecordSuccess, oracle.Reset, oracle.PurgeExpired, oracle.SetFaults} {
		kinds = append(kinds, oracle.Op{Kind: k})
	}
	ids := append(search.ClausesOf(oracle.Trace{Ops: kinds}), "GATE-1", "THR-6", "VEC-11")
	for _, id := range ids {
		i := bytes.Index(spec, []byte("**"+id+"**"))
		if i < 0 {
			t.Errorf("%s is not defined in spec.md", id)
			continue
		}
		if line, _, _ := strings.Cut(string(spec[i:]), "\n"); strings.Contains(line, "retired") {
			t.Errorf("%s is retired: %s", id, line)
		}
	}
}
