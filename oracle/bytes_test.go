package oracle

import (
	"encoding/json"
	"testing"
)

// TestBytesReaderRefusesMalformed checks VEC-7 (DEC-52): a byte string is a
// JSON string or {"hex": ...} by that exact key; hex digits of either case
// are read; a lone surrogate escape, odd-length or non-hex digits are
// refused.
func TestBytesReaderRefusesMalformed(t *testing.T) {
	for _, c := range []struct {
		json, reason string
		want         string // the bytes; "" with bad
		bad          bool
	}{
		{`"ab"`, "a plain string", "ab", false},
		{`"\ud83d\ude00"`, "a surrogate pair is one code point, U+1F600", "\U0001F600", false},
		{`"\\ud800"`, "an escaped backslash then the text ud800 is no escape", `\ud800`, false},
		{`"\u00e9"`, "a BMP escape", "é", false},
		{`"\ud800"`, "a lone high surrogate", "", true},
		{`"\udc00"`, "a lone low surrogate", "", true},
		{`"\ud800a"`, "a high surrogate followed by a letter", "", true},
		{`"\ud800\u0041"`, "a high surrogate followed by another escape", "", true},
		{`"\ud800\ud800\udc00"`, "two highs, then one low", "", true},
		{`{"hex":"fffe"}`, "lower-case hex", "\xff\xfe", false},
		{`{"hex":"FFFE"}`, "upper-case hex is read too", "\xff\xfe", false},
		{`{"hex":"ff","note":"x"}`, "an unknown key beside hex is ignored (VEC-8)", "\xff", false},
		{`{"hex":"fff"}`, "odd-length hex", "", true},
		{`{"hex":"zz"}`, "non-hex digits", "", true},
		{`{"HEX":"ff"}`, "the key is exactly hex", "", true},
		{`{"hex":null}`, "a null hex", "", true},
	} {
		var b Bytes
		err := json.Unmarshal([]byte(c.json), &b)
		switch {
		case c.bad && err == nil:
			t.Errorf("VEC-7: Unmarshal(%s) = %q, want an error (%s)", c.json, b, c.reason)
		case !c.bad && err != nil:
			t.Errorf("VEC-7: Unmarshal(%s): %v (%s)", c.json, err, c.reason)
		case !c.bad && string(b) != c.want:
			t.Errorf("VEC-7: Unmarshal(%s) = %q, want %q (%s)", c.json, b, c.want, c.reason)
		}
	}
}
