package protocol

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/conformance/judge"
)

// TestHandshakeTimeoutIsSaidAsGiven: the diagnosis states the timeout the
// caller set, not a rounding of it.
func TestHandshakeTimeoutIsSaidAsGiven(t *testing.T) {
	for _, d := range []time.Duration{time.Nanosecond, 1500 * time.Microsecond} {
		release := make(chan struct{})
		_, err := fakePort(t, PortOptions{HandshakeTimeout: d}, func(*bufio.Scanner, io.Writer, io.Writer) { <-release })
		close(release)
		if want := fmt.Sprintf("no hello within %v", d); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("HandshakeTimeout %v: %v, want %q", d, err, want)
		}
	}
	if got := (PortOptions{}).withDefaults().HandshakeTimeout; got != time.Minute {
		t.Errorf("the default handshake timeout is %v, want 1m0s (PROTO-9)", got)
	}
}

// TestOutputAfterTheLastReplyBreaks: PROTO-9: once every reply came,
// anything more on stdout, read until its end, is a break that Close
// reports.
func TestOutputAfterTheLastReplyBreaks(t *testing.T) {
	for after, want := range map[string]string{
		"garbage\n":                       `wrote after its last reply: stdout line 5 is not a reply: not a JSON object: "garbage"`,
		`{"seq":1000,"result":{}}` + "\n": "wrote after its last reply: stdout line 5 is a reply with seq 1000, which no request has",
		`{"seq":0,"result":{}}` + "\n":    "wrote after its last reply: stdout line 5 is a reply with seq 0, which no request has",
		`{"seq":2,"result":{}}` + "\n":    "wrote after its last reply: stdout line 5 is a reply with seq 2, already answered",
		"no newline":                      `wrote after its last reply: stdout line 5 has no newline at the end of stdout: "no newline"`,
	} {
		p, err := fakePort(t, PortOptions{}, func(in *bufio.Scanner, out, errw io.Writer) {
			echoModel(func(_ int, _ string, rep []byte) (string, bool) { return string(rep) + "\n", false })(in, out, errw)
			io.WriteString(out, after) //nolint:errcheck // the test reads it
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := judge.RunCases(p, limCases(t, 1)); err != nil {
			t.Fatal(err)
		}
		var b *judge.BrokenError
		if err := p.Close(); !errors.As(err, &b) || b.What != want {
			t.Errorf("after the last reply %q: Close = %v, want a break saying %q", after, err, want)
		}
	}
}

// TestCloseOfAnOpenInstanceMustBeEmpty: PROTO-5: a close's result is {};
// a fault, a skip or another result on the close of an open instance
// breaks the protocol, while the close of an instance whose open was
// refused is disregarded (PROTO-6).
func TestCloseOfAnOpenInstanceMustBeEmpty(t *testing.T) {
	tests := []struct {
		open, close string
		want        string // "" no break
		reason      string
	}{
		{`"result":{}`, `"fault":"cannot close"`, `faulted on the close of an open instance ("cannot close")`, "a fault"},
		{`"result":{}`, `"skipped":"no"`, `skipped the close of an open instance ("no")`, "a skip"},
		{`"result":{}`, `"result":{"n":"1"}`, "answered the close of an open instance with a result other than {}", "another result"},
		{`"result":{}`, `"result":{"n":1}`, "answered the close of an open instance with a result other than {}", "a result that does not decode"},
		{`"result":{"error":"config"}`, `"fault":"no such instance"`, "", "the open was refused: the close is disregarded"},
		{`"skipped":"no lim here"`, `"fault":"no such instance"`, "", "the open was skipped: the close is disregarded"},
	}
	for _, tt := range tests {
		p, err := fakePort(t, PortOptions{}, echoModel(func(_ int, line string, rep []byte) (string, bool) {
			switch {
			case strings.Contains(line, `"op":"open"`):
				return fmt.Sprintf(`{"seq":%d,%s}`+"\n", seqOf(line), tt.open), false
			case strings.Contains(line, `"op":"close"`):
				return fmt.Sprintf(`{"seq":%d,%s}`+"\n", seqOf(line), tt.close), false
			}
			return string(rep) + "\n", false
		}))
		if err != nil {
			t.Fatal(err)
		}
		results, err := judge.RunCases(p, limCases(t, 2))
		var b *judge.BrokenError
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: judge.RunCases = %v, want no break", tt.reason, err)
		case tt.want != "" && (!errors.As(err, &b) || !strings.HasPrefix(b.What, tt.want)):
			t.Errorf("%s: judge.RunCases = %v, want a break saying %q", tt.reason, err, tt.want)
		case tt.want != "" && (results[0].Verdict != judge.Broken || !strings.Contains(results[0].Why, "close")):
			t.Errorf("%s: the first case is %s (%s), want broken at its close", tt.reason, results[0].Verdict, results[0].Why)
		}
		p.Close() //nolint:errcheck // checked above
	}
}
