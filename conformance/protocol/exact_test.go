package protocol

import (
	"strings"
	"testing"

	"github.com/limcheck/limcheck/oracle"
)

// TestReplyKeysExact checks PROTO-6 and VEC-10 (DEC-50): reply keys are
// case-sensitive, a key written twice in the reply object is a break, and
// inside result an unknown or repeated field fails the op, on the fast and
// the slow reader alike.
func TestReplyKeysExact(t *testing.T) {
	for _, c := range []struct {
		clause, reason, line string
		breaks               bool   // decodeReply refuses the line
		badResult            string // else: the result fails to decode with this in the error
	}{
		{"PROTO-6", "exact keys decode", `{"seq":1,"result":{"verdict":"allow","remaining":"1"}}`, false, ""},
		{"PROTO-6", "an upper-case SEQ is an unknown key, so seq is missing", `{"SEQ":1,"result":{}}`, true, ""},
		{"PROTO-6", "seq written twice", `{"seq":1,"seq":2,"result":{}}`, true, ""},
		{"PROTO-6", "result written twice", `{"seq":1,"result":{},"result":{}}`, true, ""},
		{"PROTO-6", "an upper-case Result is no result, skipped or fault", `{"seq":1,"Result":{}}`, true, ""},
		{"PROTO-6", "an unknown top-level key is ignored", `{"seq":1,"note":"x","result":{}}`, false, ""},
		{"VEC-10", "an upper-case result field fails the op", `{"seq":1,"result":{"VERDICT":"allow","remaining":"1"}}`, false, `"VERDICT"`},
		{"VEC-10", "an unknown result field fails the op", `{"seq":1,"result":{"verdict":"allow","remaining":"1","extra":"1"}}`, false, `"extra"`},
		{"VEC-10", "a result field written twice fails the op", `{"seq":1,"result":{"remaining":"1","remaining":"2","verdict":"allow"}}`, false, "twice"},
		{"VEC-18", "touched as a string fails the op", `{"seq":1,"result":{"touched":"true"}}`, false, "touched"},
	} {
		t.Run(c.reason, func(t *testing.T) {
			if c.clause == "" || c.reason == "" {
				t.Fatal("a row needs a clause and a reason")
			}
			r, err := decodeReply([]byte(c.line))
			if c.breaks {
				if err == nil {
					t.Fatalf("%s: decodeReply(%s) = %+v, want an error", c.clause, c.line, r)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: decodeReply(%s): %v", c.clause, c.line, err)
			}
			switch {
			case c.badResult == "" && r.badJSON != nil:
				t.Fatalf("%s: decodeReply(%s): result fails: %v", c.clause, c.line, r.badJSON)
			case c.badResult != "" && (r.badJSON == nil || !strings.Contains(r.badJSON.Error(), c.badResult)):
				t.Fatalf("%s: decodeReply(%s): result error %v, want one naming %s", c.clause, c.line, r.badJSON, c.badResult)
			}
		})
	}
}

// TestHelloFieldsExact checks PROTO-2 (DEC-50): every hello field is
// required by its exact name, version included (empty is allowed), and no
// key may come twice.
func TestHelloFieldsExact(t *testing.T) {
	for _, c := range []struct {
		reason, line, err string // err "" means the hello decodes
	}{
		{"a full hello", `{"protocol":"limcheck-port/3","name":"p","version":"1","components":["lim"]}`, ""},
		{"an empty version says the port has none", `{"protocol":"limcheck-port/3","name":"p","version":"","components":["lim"]}`, ""},
		{"no version", `{"protocol":"limcheck-port/3","name":"p","components":["lim"]}`, `"version" is missing`},
		{"a null version", `{"protocol":"limcheck-port/3","name":"p","version":null,"components":["lim"]}`, `"version" is missing`},
		{"a numeric version", `{"protocol":"limcheck-port/3","name":"p","version":1,"components":["lim"]}`, `"version"`},
		{"an upper-case Version is unknown, so version is missing", `{"protocol":"limcheck-port/3","name":"p","Version":"1","components":["lim"]}`, `"version" is missing`},
		{"name twice", `{"protocol":"limcheck-port/3","name":"p","name":"q","version":"1","components":["lim"]}`, "twice"},
		{"data after the object", `{"protocol":"limcheck-port/3","name":"p","version":"1","components":["lim"]} {}`, "after"},
	} {
		t.Run(c.reason, func(t *testing.T) {
			h, err := decodeHello([]byte(c.line))
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("PROTO-2: decodeHello(%s): %v", c.line, err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("PROTO-2: decodeHello(%s) = %+v, %v; want an error naming %s", c.line, h, err, c.err)
			}
		})
	}
}

// TestResultNamesAreResultFields checks that the fast reader's list of
// result names is exactly the set the slow reader accepts (VEC-10).
func TestResultNamesAreResultFields(t *testing.T) {
	if len(resultNames) != len(resultFields) {
		t.Fatalf("resultNames has %d names, oracle.Result %d fields", len(resultNames), len(resultFields))
	}
	for _, n := range resultNames {
		if !resultFields[n] {
			t.Errorf("resultNames has %q, which oracle.Result lacks", n)
		}
	}
	var r oracle.Result
	if err := decodeResult([]byte(`{"ok":"1","touched":true}`), &r); err != nil || r.Touched == nil || !*r.Touched {
		t.Fatalf("decodeResult = %+v, %v", r, err)
	}
}
