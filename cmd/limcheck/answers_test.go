// TestSettledAnswers runs the reference ports as processes, as the mutant
// matrix does: in the plain build (make test's cli check).

//go:build !race

package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// settledAnswers is a conversation of the requests whose replies spec
// 3.2.0 settles (the review of 2.0.1, DEC-60), each with the reply kind
// it must get: "result", "fault", or "" for any reply (limcheck disregards
// it); want, when set, is the result's exact JSON.
var settledAnswers = []struct {
	req, kind, want, why string
}{
	{`{"seq":1,"inst":1,"op":"open","component":"throttle","config":{"throttle":{"threshold":"3","window_secs":"60","ban_secs":"60"}}}`, "result", `{}`, "a throttle opens"},
	{`{"seq":2,"inst":1,"op":"set_faults","faults":[]}`, "fault", "", "set_faults on a throttle is malformed (operations table)"},
	{`{"seq":3,"inst":2,"op":"open","component":"throttle_faults","config":{"throttle":{"threshold":"3","window_secs":"60","ban_secs":"60"}}}`, "result", `{}`, "a throttle_faults opens"},
	{`{"seq":4,"inst":2,"op":"set_faults","faults":[{"op":"nope"}]}`, "fault", "", "a rule naming no store operation is malformed (VEC-18)"},
	{`{"seq":5,"inst":3,"op":"open","component":"gate","config":{"gate":{"cap":"2","refil":"1","ivl":"10","maxif":"4","sets":"9223372036854775808","ways":"1","tick_nanos":"1","seed":"00000000000000000000000000000000"}}}`, "fault", "", "an out-of-domain config value makes the open malformed, not a config error (VEC-6)"},
	{`{"seq":6,"inst":4,"op":"open","component":"lim","config":{"gate":{"cap":"2"}}}`, "", "", "a config in a lim open is never sent; a port ignores it or faults (VEC-9)"},
	{`{"seq":7,"inst":3,"op":"close"}`, "", "", "the close of an instance whose open faulted gets a reply (PROTO-6)"},
	{`{"seq":8,"inst":5,"op":"open","component":"gate","config":{"gate":{"cap":"2","refil":"1","ivl":"10","maxif":"4","sets":"4","ways":"2","tick_nanos":"1","seed":"00000000000000000000000000000000"}}}`, "result", `{}`, "a gate opens"},
	{`{"seq":9,"inst":5,"op":"admit","ip":"a","now":"0"}`, "result", "", "a first admit"},
	{`{"seq":10,"inst":5,"op":"close"}`, "result", `{}`, "a close"},
	{`{"seq":11,"inst":5,"op":"open","component":"gate","config":{"gate":{"cap":"2","refil":"1","ivl":"10","maxif":"4","sets":"4","ways":"2","tick_nanos":"1","seed":"00000000000000000000000000000000"}}}`, "result", `{}`, "an id opened again after its close (PROTO-3)"},
	{`{"seq":12,"inst":5,"op":"bucket","ip":"a","now":"0"}`, "result", `{"touched":false}`, "names a fresh instance: a's bucket is untouched (PROTO-3)"},
	{`{"seq":13,"inst":9,"op":"in_flight"}`, "", "", "a request on an instance never opened gets a reply (PROTO-6)"},
}

// TestSettledAnswers checks that the model's server (limcheck serve
// -model) and both reference ports give the replies that spec 3.2.0
// settles, for the review of 2.0.1's points 3, 5, 8, 9, 10 and 14
// (spec PROTO-3, PROTO-6, VEC-6, VEC-9, VEC-18): one conversation, each
// request's reply kind, and the exact result where one is stated.
func TestSettledAnswers(t *testing.T) {
	var in bytes.Buffer
	for _, a := range settledAnswers {
		in.WriteString(a.req + "\n")
	}
	ports := map[string]func() ([]byte, error){
		"serve -model": func() ([]byte, error) {
			var out, errb bytes.Buffer
			if code := (cli{stdin: bytes.NewReader(in.Bytes()), stdout: &out, stderr: &errb}).serveCmd([]string{"-model"}); code != 0 {
				t.Fatalf("serve -model: exit %d: %s", code, errb.String())
			}
			return out.Bytes(), nil
		},
	}
	for _, p := range referencePorts {
		ports[p.name] = func() ([]byte, error) {
			cmd := exec.Command("sh", "-c", portCommand(t, p.bin, p.driver, ""))
			cmd.Stdin = bytes.NewReader(in.Bytes())
			return cmd.Output()
		}
	}
	for name, run := range ports {
		t.Run(name, func(t *testing.T) {
			out, err := run()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(lines) != len(settledAnswers)+1 { // the hello first
				t.Fatalf("%s: %d lines, want a hello and %d replies:\n%s", name, len(lines), len(settledAnswers), out)
			}
			for i, a := range settledAnswers {
				checkSettledReply(t, i+1, lines[i+1], a.kind, a.want, a.why)
			}
		})
	}
}

// checkSettledReply checks reply line, the reply to request seq, against
// kind ("" any) and want (the exact result's JSON, "" any).
func checkSettledReply(t *testing.T, seq int, line, kind, want, why string) {
	t.Helper()
	var r map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("reply %q: %v", line, err)
	}
	if got := string(r["seq"]); got != strings.TrimSpace(jsonInt(seq)) {
		t.Fatalf("reply %q has seq %s, want %d", line, got, seq)
	}
	if kind != "" && r[kind] == nil {
		t.Errorf("request %d (%s): reply %s, want a %s", seq, why, line, kind)
	}
	if want != "" && string(r["result"]) != want {
		t.Errorf("request %d (%s): reply %s, want result %s", seq, why, line, want)
	}
}

func jsonInt(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
