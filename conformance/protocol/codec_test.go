package protocol

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/limcheck/limcheck/oracle"
)

// genNum draws an absent Num or any value of the domain, edges favoured.
func genNum() *rapid.Generator[oracle.Num] {
	return rapid.Custom(func(t *rapid.T) oracle.Num {
		switch rapid.IntRange(0, 3).Draw(t, "num kind") {
		case 0:
			return oracle.Num{}
		case 1:
			return oracle.I(rapid.Int64().Draw(t, "int64"))
		case 2:
			return oracle.U(rapid.Uint64().Draw(t, "uint64"))
		}
		return oracle.I(rapid.Int64Range(-3, 3).Draw(t, "small"))
	})
}

// genBytes draws nil or a byte string: ASCII, any text, or any bytes.
func genBytes() *rapid.Generator[*oracle.Bytes] {
	return rapid.Custom(func(t *rapid.T) *oracle.Bytes {
		var b oracle.Bytes
		switch rapid.IntRange(0, 3).Draw(t, "bytes kind") {
		case 0:
			return nil
		case 1:
			b = oracle.Bytes(rapid.StringMatching(`[ -~]{0,12}`).Draw(t, "ascii"))
		case 2:
			b = oracle.Bytes(rapid.String().Draw(t, "text"))
		default:
			b = oracle.Bytes(rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, "raw"))
		}
		return &b
	})
}

func genResult() *rapid.Generator[oracle.Result] {
	return rapid.Custom(func(t *rapid.T) oracle.Result {
		n := genNum()
		r := oracle.Result{
			OK: n.Draw(t, "ok"), Err: n.Draw(t, "err"), Cap: n.Draw(t, "cap"), Refil: n.Draw(t, "refil"), Ivl: n.Draw(t, "ivl"),
			Maxif: n.Draw(t, "maxif"), Retry: n.Draw(t, "retry"), Tks: n.Draw(t, "tks"), Last: n.Draw(t, "last"), N: n.Draw(t, "n"),
			Key: n.Draw(t, "key"), Response: genBytes().Draw(t, "response"), Set: n.Draw(t, "set"), Way: n.Draw(t, "way"), RetryAfter: n.Draw(t, "retry_after"),
			Remaining: n.Draw(t, "remaining"), Until: n.Draw(t, "until"), Count: n.Draw(t, "count"),
			Verdict: rapid.SampledFrom([]string{"", "pass", "shed", "allow", "banned", "x<y", "é"}).Draw(t, "verdict"),
			Error:   oracle.ErrorClass(rapid.SampledFrom([]string{"", "store", "config", "a\"b"}).Draw(t, "error")),
		}
		if rapid.Bool().Draw(t, "has touched") {
			v := rapid.Bool().Draw(t, "touched")
			r.Touched = &v
		}
		return r
	})
}

// TestPropFastResultCodecEqualsEncodingJSON: the hot path's result writer
// writes exactly what json.Marshal writes, and the fast reply reader, when
// it reads a reply at all, reads what encoding/json reads.
func TestPropFastResultCodecEqualsEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genResult().Draw(t, "result")
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendResultObject(nil, &r); string(got) != string(want) {
			t.Fatalf("appendResultObject = %s\njson.Marshal       = %s", got, want)
		}
		line := resultLine(rapid.Int64Min(0).Draw(t, "seq"), r)
		slow, err := decodeReplySlow(line)
		if err != nil {
			t.Fatalf("decodeReplySlow(%s): %v", line, err)
		}
		if fast, ok := decodeReplyFast(line); ok {
			if d := cmp.Diff(slow, fast, cmp.AllowUnexported(reply{})); d != "" {
				t.Fatalf("fast and slow readers differ on %s (-slow +fast):\n%s", line, d)
			}
		} else if plain(string(derefBytes(r.Response))) && plain(r.Verdict) && plain(string(r.Error)) {
			t.Fatalf("the fast reader refused a plain reply: %s", line)
		}
	})
}

func derefBytes(b *oracle.Bytes) oracle.Bytes {
	if b == nil {
		return ""
	}
	return *b
}

// FuzzFastReadersAgreeWithEncodingJSON: on any line, a fast reader either
// declines or reads exactly what encoding/json reads.
func FuzzFastReadersAgreeWithEncodingJSON(f *testing.F) {
	for _, s := range []string{
		`{"seq":1,"result":{}}`, `{"seq":2,"result":{"n":"1","touched":false}}`, `{"seq":3,"skipped":"x\u0041\n"}`,
		`{"seq":4,"fault":"a\\b"}`, `{"seq":5,"result":{"n":5}}`, `{"seq":-0,"result":{}}`, `{"seq":01,"result":{}}`,
		`{"seq":1,"result":{},"result":{"ok":"1"}}`, `{"SEQ":1,"result":{}}`, `{"seq":1.0,"result":{}}`,
		`{"seq":1,"inst":2,"op":"admit","ip":"a","now":"-5"}`, `{"seq":1,"op":"lim_rel","n":"00"}`, ` {"seq":1,"result":{"verdict":"pass"}} ` + "\r",
		`{"seq":1,"result":{"response":"HTTP/1.1 503\r\n"}}`, `{"seq":1,"result":{"touched":null}}`, `{"seq":9223372036854775808,"result":{}}`,
		`{"seq":1,"inst":1,"op":"open","component":"gate","config":{"gate":{"cap":"1","refil":"1","ivl":"1","maxif":"1","sets":"2","ways":"3","tick_nanos":"1"}}}`, `{"seq":1,"result":{"verdict":"shed","set":"2"}}`, `{"seq":1,"op":"bucket","ip":"a","now":"1"}`,
		`{"seq":1,"op":"open","config":{"throttle":{"threshold":"3"}},"config":{"gate":{"cap":"1"},"gate":{"ivl":"2"}}}`,
		`{"seq":1,"op":"open","config":{}}`, `{"seq":1,"op":"open","config":null}`, `{"seq":1,"op":"open","config":{"throttle":null}}`,
		`{"seq":1,"op":"check_any","keys":[]}`, `{"seq":1,"op":"check_any","keys":["a","",  "b"],"keys":["c"]}`, `{"seq":1,"op":"check_any","keys":null}`,
		`{"seq":1,"op":"check_any","keys":[{"hex":"ff"}]}`, `{"seq":1,"op":"check_any","keys":["a",]}`, `{"seq":1,"op":"check_any","keys":["a"}`,
		`{"seq":1,"op":"check","key":"acct:hé"}`, "{\"seq\":1,\"op\":\"check\",\"key\":\"\xff\"}", `{"seq":1,"op":"check","key":"\u00e9é"}`,
		`{"seq":1,"op":"admit","ip":{"hex":"ff00"}}`, `{"seq":1,"op":"admit","ip":{"hex":"f"}}`, `{"seq":1,"op":"admit","ip":{"HEX":"ff"}}`,
		`{"seq":1,"op":"admit","ip":{"hex":"ff","hex":"00"}}`, `{"seq":1,"op":"admit","ip":{}}`, `{"seq":1,"op":"admit","ip":{"hex":"ff","x":1}}`,
		`{"seq":1,"op":"set_faults","faults":[]}`, `{"seq":1,"op":"set_faults","faults":[{"op":"count"},{"op":"ban","keys":["a",{"hex":"ff"}]}]}`,
		`{"seq":1,"op":"set_faults","faults":[{"op":"count","keys":[]}]}`, `{"seq":1,"op":"set_faults","faults":[{"op":"count","keys":null}]}`,
		`{"seq":1,"op":"set_faults","faults":[{"op":"a","keys":["x"]}],"faults":[{"op":"b"}]}`, `{"seq":1,"op":"set_faults","faults":[{"op":"a","op":"b"}]}`,
		`{"seq":1,"op":"set_faults","faults":[{"OP":"a"}]}`, `{"seq":1,"op":"set_faults","faults":null}`, `{"seq":1,"op":"set_faults","faults":[{}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(readersAgree)
}

// readersAgree fails t unless each fast reader declines line or reads
// what encoding/json reads.
func readersAgree(t *testing.T, line []byte) {
	t.Helper()
	if fast, ok := decodeReplyFast(line); ok {
		slow, err := decodeReplySlow(line)
		if err != nil {
			t.Fatalf("fast reader read %q, encoding/json refuses it: %v", line, err)
		}
		if d := cmp.Diff(slow, fast, cmp.AllowUnexported(reply{})); d != "" {
			t.Fatalf("readers differ on %q (-slow +fast):\n%s", line, d)
		}
	}
	if fast, ok := decodeRequestFast(line); ok {
		var slow wireRequest
		if err := strictObject(line, &slow); err != nil {
			t.Fatalf("fast request reader read %q, encoding/json refuses it: %v", line, err)
		}
		if d := cmp.Diff(slow, fast); d != "" {
			t.Fatalf("request readers differ on %q (-slow +fast):\n%s", line, d)
		}
	}
}

// TestWordScansAgreeWithByteScans checks the 8-bytes-at-a-time scans
// (plain, and the string reader's skip) against byte-by-byte ones: every
// byte value at every place of a 17-byte string, where the words and
// the tail meet.
func TestWordScansAgreeWithByteScans(t *testing.T) {
	bytewise := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return false
			}
		}
		return true
	}
	for at := range 17 {
		for c := range 256 {
			b := []byte("abcdefghijklmnopq")
			b[at] = byte(c)
			if got, want := plain(string(b)), bytewise(string(b)); got != want {
				t.Fatalf("plain(%q) = %v, want %v", b, got, want)
			}
			readersAgree(t, []byte(`{"seq":1,"op":"check","key":"`+string(b)+`"}`))
		}
	}
}

// TestAppendConfigIsJSONMarshal: appendConfig writes what json.Marshal
// writes, for the configs gen.Trace never draws too (none, both, fields
// unset).
func TestAppendConfigIsJSONMarshal(t *testing.T) {
	n := oracle.I(-5)
	for _, c := range []oracle.Config{
		{},
		{Gate: &oracle.GateConfig{}},
		{Throttle: &oracle.ThrottleConfig{}},
		{Gate: &oracle.GateConfig{Cap: n, TickNanos: oracle.I(1)}, Throttle: &oracle.ThrottleConfig{BanSecs: oracle.U(1<<64 - 1)}},
		{Gate: &oracle.GateConfig{Cap: n, Seed: "000102030405060708090a0b0c0d0e0f"}},
		{Gate: &oracle.GateConfig{Seed: "a \"seed\" <&> \u2028 \x01 \xff"}},
	} {
		want, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendConfig(nil, &c); string(got) != string(want) {
			t.Errorf("appendConfig = %s\njson.Marshal = %s", got, want)
		}
	}
}

// TestPropCanonicalIsParseNum checks the property that the reader's
// allocation-free number parser accepts exactly what oracle.ParseNum
// accepts, with the same value: on the edges of both domains and on
// strings drawn from digits and signs.
func TestPropCanonicalIsParseNum(t *testing.T) {
	agree := func(t interface{ Fatalf(string, ...any) }, s string) {
		got, ok := canonical([]byte(s))
		want, err := oracle.ParseNum(s)
		if ok != (err == nil) || ok && got != want {
			t.Fatalf("canonical(%q) = %v, %v; ParseNum = %v, %v", s, got, ok, want, err)
		}
	}
	for _, s := range []string{"", "-", "0", "-0", "00", "01", "-01", "1", "-1", "+1", " 1", "1 ", "1a", "a",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "99999999999999999999", "100000000000000000000", "-18446744073709551615"} {
		agree(t, s)
	}
	rapid.Check(t, func(t *rapid.T) {
		agree(t, rapid.StringOfN(rapid.SampledFrom([]rune("0123456789-+")), 0, 22, -1).Draw(t, "number"))
	})
}
