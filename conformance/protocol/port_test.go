package protocol

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/limcheck/limcheck/conformance"
	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/internal/slowdown"
	"github.com/limcheck/limcheck/oracle"
)

// TestServedModelPassesEveryVector runs every committed vector through the
// protocol (Serve over the model, in-memory pipes): the client, Serve and
// the vectors agree end to end.
func TestServedModelPassesEveryVector(t *testing.T) {
	cases := vectors(t)
	p, err := ServePipe(oracle.Model{}, Hello{Name: "model", Version: "test"}, waits(PortOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	passAll(t, p, cases)
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// vectors returns the committed cases; none is an error, as a check over
// no case would pass vacuously.
func vectors(t *testing.T) []conformance.Case {
	t.Helper()
	cases, err := conformance.Load(conformance.Vectors)
	if err != nil || len(cases) == 0 {
		t.Fatalf("Load(Vectors) = %d cases, %v", len(cases), err)
	}
	return cases
}

// passAll runs cases on p and fails t for each that does not pass.
func passAll(t *testing.T, p *Port, cases []conformance.Case) {
	t.Helper()
	results, err := judge.RunCases(p, cases)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Verdict != judge.Pass {
			t.Errorf("%s: %s: %s", r.Case.ID, r.Verdict, r.Why)
		}
	}
}

// fakePort runs script as a port over in-memory pipes: script reads
// requests from in and writes what it likes to out and errw; returning
// ends the port (its stdout closes).
func fakePort(t *testing.T, opt PortOptions, script func(in *bufio.Scanner, out, errw io.Writer)) (*Port, error) {
	t.Helper()
	reqR, reqW := io.Pipe()
	repR, repW := io.Pipe()
	errR, errW := io.Pipe()
	exited := make(chan exitInfo, 1)
	go func() {
		sc := bufio.NewScanner(reqR)
		sc.Buffer(nil, maxLine+1)
		script(sc, repW, errW)
		repW.Close()
		errW.Close()
		exited <- exitInfo{ok: true, how: "exit status 0"}
	}()
	kill := func() {
		reqR.CloseWithError(io.ErrClosedPipe)
		repR.CloseWithError(io.ErrClosedPipe)
		errR.CloseWithError(io.ErrClosedPipe)
	}
	return newPort(transport{stdin: reqW, stdout: repR, stderr: errR, kill: kill, exited: exited}, waits(opt))
}

// hangBound is the most a test waits for something that must not hang (a
// broken port diagnosed, a handshake refused): far beyond what a healthy
// run takes on a busy machine, far below the hour a hung wait would take.
var hangBound = slowdown.Scale(time.Minute)

// waits returns opt with every time limit it leaves zero set to a minute
// times LIMCHECK_TEST_SLOWDOWN: a healthy port on a busy machine must
// never count as hung. A test of hang detection sets its own short limit.
func waits(opt PortOptions) PortOptions {
	for _, d := range []*time.Duration{&opt.HandshakeTimeout, &opt.RequestTimeout, &opt.ExitTimeout} {
		if *d == 0 {
			*d = slowdown.Scale(time.Minute)
		}
	}
	return opt
}

const goodHello = `{"protocol":"limcheck-port/3","name":"fake","version":"0","components":["lim"]}`

// seqOf returns a request line's seq.
func seqOf(line string) int64 {
	var r struct{ Seq int64 }
	json.Unmarshal([]byte(line), &r) //nolint:errcheck // tests send good lines
	return r.Seq
}

// echoModel answers every request as the model would (through Serve's
// server), with hook deciding per request what to write instead.
func echoModel(hook func(n int, line string, rep []byte) (string, bool)) func(*bufio.Scanner, io.Writer, io.Writer) {
	return func(in *bufio.Scanner, out, errw io.Writer) {
		fmt.Fprintln(out, goodHello)
		sv := server{s: oracle.Model{}, insts: map[int64]oracle.Instance{}}
		for n := 1; in.Scan(); n++ {
			rep, _ := sv.answer(in.Bytes())
			w, stop := hook(n, in.Text(), rep)
			if w != "" {
				fmt.Fprint(out, w)
			}
			if stop {
				return
			}
		}
	}
}

// limCases returns n lim cases of the committed vectors.
func limCases(t *testing.T, n int) []conformance.Case {
	t.Helper()
	var out []conformance.Case
	for _, c := range vectors(t) {
		if c.Component == oracle.Lim && len(out) < n {
			out = append(out, c)
		}
	}
	return out
}

// TestPortBreaksAreDiagnosedNamingTheCase drives fake ports that break
// the protocol each in one way (PROTO-9) and checks the diagnosis, the
// case it names as broken, and that every later case is not run.
func TestPortBreaksAreDiagnosedNamingTheCase(t *testing.T) {
	const breakAt = 7 // the request the fake port misbehaves on
	type tc struct {
		name   string
		hook   func(n int, line string, rep []byte) (string, bool)
		want   string
		stderr string
	}
	tests := []tc{
		{"crash", func(n int, _ string, rep []byte) (string, bool) {
			return string(rep) + "\n", n == breakAt
		}, "closed its stdout", ""},
		{"non-JSON", func(n int, _ string, rep []byte) (string, bool) {
			if n == breakAt {
				return "Traceback (most recent call last):\n", false
			}
			return string(rep) + "\n", false
		}, "is not a reply: not a JSON object", ""},
		{"unknown seq", func(n int, line string, rep []byte) (string, bool) {
			if n == breakAt {
				return `{"seq":9999,"result":{}}` + "\n", false
			}
			return string(rep) + "\n", false
		}, "reply with seq 9999, which no request has", ""},
		{"repeated seq", func(n int, line string, rep []byte) (string, bool) {
			if n == breakAt {
				return `{"seq":1,"result":{}}` + "\n", false
			}
			return string(rep) + "\n", false
		}, "reply with seq 1, already answered", ""},
		{"seq 0", func(n int, line string, rep []byte) (string, bool) {
			if n == breakAt {
				return `{"seq":0,"result":{}}` + "\n", false
			}
			return string(rep) + "\n", false
		}, "reply with seq 0, which no request has", ""}, // never sent, so never answered
		{"negative seq", func(n int, line string, rep []byte) (string, bool) {
			if n == breakAt {
				return `{"seq":-3,"result":{}}` + "\n", false
			}
			return string(rep) + "\n", false
		}, "reply with seq -3, which no request has", ""},
		{"two kinds", func(n int, line string, rep []byte) (string, bool) {
			if n == breakAt {
				return fmt.Sprintf(`{"seq":%d,"result":{},"fault":"x"}`+"\n", seqOf(line)), false
			}
			return string(rep) + "\n", false
		}, `it has 2 of "result", "skipped", "fault"`, ""},
		{"hang", func(n int, _ string, rep []byte) (string, bool) {
			if n >= breakAt {
				return "", false
			}
			return string(rep) + "\n", false
		}, "no reply to", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Only the hang waits out the request timeout; the others keep
			// the long default of waits, so a loaded machine cannot turn
			// them into hangs.
			var timeout time.Duration
			if tt.name == "hang" {
				timeout = 300 * time.Millisecond
			}
			p, err := fakePort(t, PortOptions{RequestTimeout: timeout}, echoModel(tt.hook))
			if err != nil {
				t.Fatal(err)
			}
			cases := limCases(t, 6)
			start := time.Now()
			results, err := judge.RunCases(p, cases)
			if d := time.Since(start); d > hangBound {
				t.Errorf("judge.RunCases took %v on a broken port, longer than %v: it waited for more than the break", d, hangBound)
			}
			var b *judge.BrokenError
			if !errors.As(err, &b) || !strings.Contains(b.What, tt.want) {
				t.Fatalf("err = %v, want a *judge.BrokenError saying %q", err, tt.want)
			}
			broken, notRun := -1, 0
			for i, r := range results {
				switch r.Verdict {
				case judge.Broken:
					broken = i
				case judge.NotRun:
					notRun++
				}
			}
			// Request 7 is the first op of the third lim case (open, op, close each; the cases have one op) or thereabouts:
			// what matters is that exactly one case is broken and all after it are not run.
			if broken < 0 || notRun != len(cases)-broken-1 {
				t.Errorf("broken case %d, %d not run, of %d: %+v", broken, notRun, len(cases), verdicts(results))
			}
			if !errors.Is(p.Close(), judge.ErrBroken) {
				t.Errorf("Close after a break is not the break")
			}
		})
	}
}

func verdicts(rs []judge.CaseResult) []judge.Verdict {
	var v []judge.Verdict
	for _, r := range rs {
		v = append(v, r.Verdict)
	}
	return v
}

// TestHandshakeIsChecked refuses hellos that break PROTO-2.
func TestHandshakeIsChecked(t *testing.T) {
	tests := map[string]string{
		`{"protocol":"limcheck-port/4","name":"x","version":"1","components":["lim"]}`:       `hello: protocol "limcheck-port/4", this limcheck speaks "limcheck-port/3"`,
		`{"protocol":"limcheck-port/2","name":"x","version":"1","components":["lim"]}`:       `hello: protocol "limcheck-port/2", this limcheck speaks "limcheck-port/3": the port is written for spec 2.0`,
		`{"protocol":"limcheck-port/1","name":"x","version":"1","components":["lim"]}`:       `hello: protocol "limcheck-port/1", this limcheck speaks "limcheck-port/3": the port is written for spec 1.x`,
		`{"protocol":"limcheck-port/3","version":"1","components":["lim"]}`:                  `"name" is missing`,
		`{"protocol":"limcheck-port/3","name":"x","version":"1","components":[]}`:            `"components" is missing`,
		`{"protocol":"limcheck-port/3","name":"x","version":"1","components":["lim","lim"]}`: "listed twice",
		`{"protocol":"limcheck-port/3","name":"x","version":"1","components":["bucket"]}`:    `unknown component "bucket"`,
		`hello`: "not a hello object",
		``:      "no hello within", // the fake writes nothing
	}
	for hello, want := range tests {
		var timeout time.Duration // only the silent fake waits it out; the others get waits' minute
		if hello == "" {
			timeout = 200 * time.Millisecond
		}
		_, err := fakePort(t, PortOptions{HandshakeTimeout: timeout}, func(in *bufio.Scanner, out, _ io.Writer) {
			if hello != "" {
				fmt.Fprintln(out, hello)
			}
			in.Scan() // wait for the end
		})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("hello %s: err = %v, want %q", hello, err, want)
		}
	}
}

// TestStderrFloodNeverBlocksAndIsKeptBounded: a port writing megabytes to
// stderr still gets answered, and a failing case shows only the tail.
func TestStderrFloodNeverBlocksAndIsKeptBounded(t *testing.T) {
	flood := strings.Repeat("noise noise noise noise noise noise noise\n", 1<<13) // 344 KiB per request
	p, err := fakePort(t, PortOptions{}, func(in *bufio.Scanner, out, errw io.Writer) {
		fmt.Fprintln(out, goodHello)
		sv := server{s: oracle.Model{}, insts: map[int64]oracle.Instance{}}
		for in.Scan() {
			io.WriteString(errw, flood) //nolint:errcheck
			rep, _ := sv.answer(in.Bytes())
			fmt.Fprintf(out, "%s\n", rep)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	results, err := judge.RunCases(p, limCases(t, 5))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Verdict != judge.Pass {
			t.Errorf("%s: %s %s", r.Case.ID, r.Verdict, r.Why)
		}
		if len(r.Stderr) > 4<<10+64 || !strings.Contains(r.Stderr, "earlier bytes dropped") {
			t.Errorf("%s: stderr kept %d bytes (%.40q...), want the last 4 KiB and a dropped note", r.Case.ID, len(r.Stderr), r.Stderr)
		}
	}
	if err := p.Close(); err != nil {
		t.Error(err)
	}
}

// TestResultThatDoesNotDecodeFailsTheCaseOnly: a result with a JSON number
// where a decimal string belongs fails its case; the port has not broken
// the protocol, so later cases still run.
func TestResultThatDoesNotDecodeFailsTheCaseOnly(t *testing.T) {
	p, err := fakePort(t, PortOptions{}, echoModel(func(n int, line string, rep []byte) (string, bool) {
		if n == 2 {
			return fmt.Sprintf(`{"seq":%d,"result":{"ok":1}}`+"\n", seqOf(line)), false
		}
		return string(rep) + "\n", false
	}))
	if err != nil {
		t.Fatal(err)
	}
	results, err := judge.RunCases(p, limCases(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	got := verdicts(results)
	if got[0] != judge.Fail || got[1] != judge.Pass || got[2] != judge.Pass || !strings.Contains(results[0].Why, "does not decode") {
		t.Errorf("verdicts %v, first why %q", got, results[0].Why)
	}
	// The port sent no fault: the why says what it sent (issue 27, item 13).
	if why := results[0].Why; !strings.HasPrefix(why, "result of op 0 (") || !strings.Contains(why, ") does not decode: ") || strings.Contains(why, "fault") {
		t.Errorf("first why %q, want \"result of op 0 (...) does not decode: ...\" and no word of a fault", why)
	}
}
