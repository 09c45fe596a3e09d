package protocol

import (
	"errors"
	"strings"
	"testing"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// huge is a subject whose hello, faults and results are 1 MiB strings,
// as a port may write them (PROTO-1): lim ops fault, gate ops answer a
// 1 MiB verdict.
type huge struct{ oracle.Model }

func (h huge) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	inst, class, err := h.Model.Open(c, cfg)
	return hugeInst{inst, c}, class, err
}

type hugeInst struct {
	oracle.Instance
	c oracle.Component
}

var mib = strings.Repeat("x", 1<<20-1024) // a line may hold 1 MiB

func (h hugeInst) Do(op oracle.Op) (oracle.Result, error) {
	if h.c == oracle.Lim {
		return oracle.Result{}, errors.New(mib)
	}
	return oracle.Result{Verdict: mib}, nil
}

// A run keeps at most maxMessage bytes of a fault or of the hello's
// name, and at most conformance.MaxString of a result's string, saying
// what it cut; the cut result still differs from its expectation.
func TestRunKeepsPortStringsBounded(t *testing.T) {
	p, err := ServePipe(huge{}, Hello{Name: mib, Version: "1"}, waits(PortOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if n := len(p.Hello().Name); n > maxMessage+64 {
		t.Errorf("the hello's name keeps %d bytes, want at most %d and a note", n, maxMessage+64)
	}
	var lim, gate conformance.Case
	for _, c := range vectors(t) {
		switch {
		case lim.ID == "" && c.Component == oracle.Lim && len(c.Ops) > 0:
			lim = c
		case gate.ID == "" && c.Component == oracle.Gate && len(c.Ops) > 0 && c.ExpectOpen == "":
			gate = c
		}
	}
	results, err := judge.RunCases(p, []conformance.Case{lim, gate})
	if err != nil {
		t.Fatal(err)
	}
	if r := results[0]; r.Verdict != judge.Fail || len(r.Why) > maxMessage+128 || !strings.HasSuffix(r.Why, " bytes cut)") {
		t.Errorf("%s: %s, why of %d bytes ending %q; want a failure, its fault cut to %d bytes", lim.ID, r.Verdict, len(r.Why), r.Why[max(len(r.Why)-30, 0):], maxMessage)
	}
	r := results[1]
	if r.Verdict != judge.Fail || len(r.Got.Results) == 0 {
		t.Fatalf("%s: %s with %d results, want a failure with results", gate.ID, r.Verdict, len(r.Got.Results))
	}
	if v := r.Got.Results[0].Verdict; len(v) <= conformance.MaxString || len(v) > conformance.MaxString+64 || !strings.HasSuffix(v, " bytes cut)") {
		t.Errorf("%s: the verdict kept %d bytes, want more than %d (so that it never equals an expectation) and a note", gate.ID, len(v), conformance.MaxString)
	}
}

// TestHugeResultDecodeErrorIsBounded: a result field of 1 MiB that does
// not decode (an integer, a number where a string goes, a field name)
// fails its op with an error that quotes a bounded prefix of it.
func TestHugeResultDecodeErrorIsBounded(t *testing.T) {
	big := "1" + strings.Repeat("0", 1<<20-100)
	for _, tc := range []struct {
		name, result, reason string
	}{
		{"integer", `{"retry":"` + big + `"}`, "VEC-6: an integer out of range"},
		{"number", `{"retry":` + big + `}`, "VEC-6: an integer written as a JSON number"},
		{"verdict number", `{"verdict":` + big + `}`, "a number where a string goes"},
		{"field name", `{"` + strings.Repeat("k", 1<<20-100) + `":"1"}`, "VEC-10: a field no result has"},
	} {
		r, err := decodeReply([]byte(`{"seq":1,"result":` + tc.result + `}`))
		if err != nil || r.badJSON == nil {
			t.Errorf("%s: decodeReply = %v, %v; want a reply whose result does not decode (%s)", tc.name, r.badJSON, err, tc.reason)
			continue
		}
		const cutNoteMax = len(" ... (") + 19 + len(" bytes cut)") // judge.CutText's longest note
		if n := len(r.badJSON.Error()); n > maxDecodeError+cutNoteMax {
			t.Errorf("%s: the decode error has %d bytes, want at most %d (%s)", tc.name, n, maxDecodeError+cutNoteMax, tc.reason)
		}
	}
}

// TestResultValueThatDoesNotFitNamesItsField: a result whose ban end is
// past 2^64-1 does not decode, and the error names the field and the
// value the port sent, and its message is the decoder's (issue 29: an overflowed ban end is reported as
// what it is, not as a fault).
func TestResultValueThatDoesNotFitNamesItsField(t *testing.T) {
	r, err := decodeReply([]byte(`{"seq":1,"result":{"verdict":"banned","until":"18446744073709551616"}}`))
	var fe *FieldError
	if err != nil || !errors.As(r.badJSON, &fe) || fe.Field != "until" || fe.Value != `"18446744073709551616"` {
		t.Fatalf("decodeReply = %v, %v; want a FieldError for until", r.badJSON, err)
	}
	if want := `oracle: "18446744073709551616" is not a canonical`; !strings.HasPrefix(fe.Error(), want) {
		t.Errorf("Error() = %q, want the decoder's %q...", fe.Error(), want)
	}
	if f, v := badField(r.badJSON); f != "until" || v != fe.Value {
		t.Errorf("badField = %q, %q; want until and the value", f, v)
	}
}
