package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// TestMain lets this test binary be a port: with LIMCHECK_TEST_PORT set it
// serves the model on stdin and stdout (after writing a line to stderr)
// and exits, so StartPort runs a real process.
func TestMain(m *testing.M) {
	switch os.Getenv("LIMCHECK_TEST_PORT") {
	case "":
		os.Exit(m.Run())
	case "serve":
		fmt.Fprintln(os.Stderr, "test port: serving the model")
		if err := Serve(os.Stdin, os.Stdout, oracle.Model{}, Hello{Name: "test-port", Version: "1"}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "killall":
		killAllChild()
		os.Exit(0)
	case "exit3":
		fmt.Fprintln(os.Stderr, "test port: will exit 3 at the end")
		Serve(os.Stdin, os.Stdout, oracle.Model{}, Hello{Name: "test-port"}) //nolint:errcheck // exits 3 anyway
		os.Exit(3)
	}
	fmt.Fprintln(os.Stderr, "unknown LIMCHECK_TEST_PORT")
	os.Exit(2)
}

// selfPort is the command that runs this test binary as a port.
func selfPort(t *testing.T, mode string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("LIMCHECK_TEST_PORT=%s '%s'", mode, exe)
}

// TestProcessPortPassesEveryVectorAndExitsCleanly: PROTO-1 and PROTO-8
// over a real process: sh -c runs the port, every vector passes through
// its pipes, its stderr is kept, and closing its stdin ends it with
// status 0.
func TestProcessPortPassesEveryVectorAndExitsCleanly(t *testing.T) {
	cases := vectors(t)
	p, err := StartPort(selfPort(t, "serve"), waits(PortOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if h := p.Hello(); h.Name != "test-port" || h.Protocol != Protocol || len(h.Components) != 4 {
		t.Errorf("hello %+v", h)
	}
	passAll(t, p, cases)
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v, want a clean exit", err)
	}
	if !strings.Contains(p.lastStderr(), "test port: serving the model") {
		t.Errorf("stderr kept %q, want the port's line", p.lastStderr())
	}
}

// TestPortExitingNonzeroAtTheEndBreaksTheProtocol: PROTO-8 asks for
// status 0 once stdin closes; another status is a break Close reports.
func TestPortExitingNonzeroAtTheEndBreaksTheProtocol(t *testing.T) {
	p, err := StartPort(selfPort(t, "exit3"), waits(PortOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := judge.RunCases(p, limCases(t, 2)); err != nil {
		t.Fatal(err)
	}
	err = p.Close()
	if !errors.Is(err, judge.ErrBroken) || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("Close = %v, want a break naming exit status 3", err)
	}
}

// TestStartPortThatCannotHandshake: a command that exits at once, or
// prints no hello, is a broken handshake within the timeout, never a hang.
func TestStartPortThatCannotHandshake(t *testing.T) {
	for cmd, want := range map[string]string{
		"exit 0":                     "before its hello",
		"echo oops >&2; exit 1":      "before its hello",
		"sleep 3600":                 "no hello within",
		"echo '{\"protocol\": 1}'":   "not a hello object",
		"printf 'no newline at all'": "no newline",
	} {
		start := time.Now()
		// Only the sleep waits out the handshake timeout; the others get
		// waits' long one, so a loaded machine's slow sh cannot turn them
		// into it.
		var timeout time.Duration
		if strings.HasPrefix(cmd, "sleep") {
			timeout = 300 * time.Millisecond
		}
		_, err := StartPort(cmd, waits(PortOptions{HandshakeTimeout: timeout}))
		var b *judge.BrokenError
		if !errors.As(err, &b) || !strings.Contains(b.What, want) {
			t.Errorf("StartPort(%q) = %v, want a break saying %q", cmd, err, want)
		}
		if d := time.Since(start); d > hangBound {
			t.Errorf("StartPort(%q) took %v, longer than %v: it waited for the port rather than the timeout", cmd, d, hangBound)
		}
	}
}

// converse writes request lines to Serve over the model and returns the
// reply lines, the hello first.
func converse(t *testing.T, requests ...string) []string {
	t.Helper()
	var out bytes.Buffer
	in := strings.NewReader(strings.Join(requests, "\n") + "\n")
	if err := Serve(in, &out, oracle.Model{}, Hello{Name: "model", Version: "1"}); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	return strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
}

// TestServeAnswersEachRequestKind: PROTO-3, PROTO-4, PROTO-5 and PROTO-6
// over raw lines: open
// (refused or not), ops, close, a request on no instance, a skipped
// component, unknown keys ignored (PROTO-11).
func TestServeAnswersEachRequestKind(t *testing.T) {
	got := converse(t,
		`{"seq":1,"op":"open","inst":7,"component":"gate","config":{"gate":{"cap":"1","refil":"1","ivl":"1","maxif":"1","sets":"1","ways":"1","tick_nanos":"1","seed":"00000000000000000000000000000000"}},"x-future":true}`,
		`{"seq":2,"op":"admit","inst":7,"ip":"a","now":"0"}`,
		`{"seq":3,"op":"in_flight","inst":7}`,
		`{"seq":4,"op":"close","inst":7}`,
		`{"seq":5,"op":"in_flight","inst":7}`,
		`{"seq":6,"op":"open","inst":8,"component":"throttle","config":{"throttle":{"threshold":"0","window_secs":"1","ban_secs":"1"}}}`,
		`{"seq":7,"op":"lim_rel","inst":9}`,
		`{"seq":8,"op":"open","inst":9,"component":"lim"}`,
		`{"seq":9,"op":"lim_rel","inst":9,"n":"-5"}`,
		`{"seq":10,"op":"lim_rel","inst":9,"n":5}`,
	)
	want := []string{
		`{"protocol":"limcheck-port/3","name":"model","version":"1","components":["lim","gate","throttle","throttle_faults"]}`,
		`{"seq":1,"result":{}}`,
		`{"seq":2,"result":{"retry":"0","verdict":"pass","set":"0","way":"0","retry_after":"0"}}`,
		`{"seq":3,"result":{"n":"1"}}`,
		`{"seq":4,"result":{}}`,
		`{"seq":5,"fault":"no open instance 7"}`,
		`{"seq":6,"result":{"error":"config"}}`,
		`{"seq":7,"fault":"no open instance 9"}`,
		`{"seq":8,"result":{}}`,
		`{"seq":9,"result":{"n":"0"}}`,
	}
	if len(got) != len(want)+1 {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want)+1, strings.Join(got, "\n"))
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("line %d = %s\n          want %s", i, got[i], w)
		}
	}
	if !strings.HasPrefix(got[len(want)], `{"seq":10,"fault":`) {
		t.Errorf("a JSON number where a decimal string belongs: %s, want a fault (VEC-6)", got[len(want)])
	}
}

// protocolSchema compiles protocol.schema.json.
func protocolSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ProtocolSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("protocol.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("protocol.schema.json")
	if err != nil {
		t.Fatalf("compile protocol.schema.json: %v", err)
	}
	return s
}

// recorder copies every line written through it to lines.
type recorder struct {
	w     io.Writer
	lines *[]string
	part  []byte
}

func (r *recorder) Write(b []byte) (int, error) {
	r.part = append(r.part, b...)
	for {
		i := bytes.IndexByte(r.part, '\n')
		if i < 0 {
			break
		}
		*r.lines = append(*r.lines, string(r.part[:i]))
		r.part = r.part[i+1:]
	}
	return r.w.Write(b)
}

// Close closes the underlying writer when it is a closer.
func (r *recorder) Close() error {
	if c, ok := r.w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// TestProtocolSchemaAcceptsEveryMessageOfAVectorRun: every line the client
// and Serve exchange over the whole vector set validates against
// protocol.schema.json, and the schema refuses broken messages.
func TestProtocolSchemaAcceptsEveryMessageOfAVectorRun(t *testing.T) {
	s := protocolSchema(t)
	cases := vectors(t)
	var requests, replies []string
	reqR, reqW := io.Pipe()
	repR, repW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := Serve(reqR, &recorder{w: repW, lines: &replies}, oracle.Model{}, Hello{Name: "model", Version: "1"})
		repW.Close()
		done <- err
	}()
	p, err := newPort(transport{stdin: &recorder{w: reqW, lines: &requests}, stdout: repR, kill: func() { reqR.Close() }}, waits(PortOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := judge.RunCases(p, cases); err != nil {
		t.Fatal(err)
	}
	reqW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(requests) < len(cases)*2 || len(replies) != len(requests)+1 {
		t.Fatalf("%d requests, %d replies", len(requests), len(replies))
	}
	for _, line := range append(requests, replies...) {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(line))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("protocol.schema.json refuses %s: %v", line, err)
		}
	}
	for _, bad := range []string{
		`{"protocol":"limcheck-port/3","name":"","version":"1","components":["lim"]}`,
		`{"protocol":"limcheck-port/3","name":"x","version":"1","components":["lim","lim"]}`,
		`{"seq":0,"op":"close","inst":1}`,
		`{"seq":1,"op":"teleport","inst":1}`,
		`{"seq":1,"op":"lim_rel","inst":1,"n":5}`,
		`{"seq":1,"result":{},"fault":"x"}`,
		`{"seq":1}`,
		`{"seq":"1","result":{}}`,
		`{"seq":1,"result":{"verdict":"allow","extra":"1"}}`,             // DEC-50: no unknown result field
		`{"seq":1,"result":{"VERDICT":"allow"}}`,                         // DEC-50: names are case-sensitive
		`{"protocol":"limcheck-port/3","name":"x","components":["lim"]}`, // DEC-50: version required
	} {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if s.Validate(v) == nil {
			t.Errorf("protocol.schema.json accepts %s", bad)
		}
	}
}

// TestPipelinedRepliesComeInOrderBeyondTheWindow: PROTO-7: more requests
// than the window are in flight across many traces; replies are matched in
// order and every trace gets its own results.
func TestPipelinedRepliesComeInOrderBeyondTheWindow(t *testing.T) {
	var ts []oracle.Trace
	for n := range 300 {
		ts = append(ts, oracle.Trace{Component: oracle.Lim, Ops: []oracle.Op{{Kind: oracle.LimRel, N: oracle.I(int64(n))}}})
	}
	for _, window := range []int{1, 7, maxWindow} {
		p, err := ServePipe(oracle.Model{}, Hello{}, waits(PortOptions{Window: window}))
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		err = p.RunTraces(ts, func(i int, run judge.TraceRun) {
			want := oracle.I(max(int64(i)-1, 0))
			if i != seen || len(run.Outcome.Results) != 1 || run.Outcome.Results[0].N != want {
				t.Errorf("window %d: trace %d (call %d): %+v, want n %v", window, i, seen, run, want)
			}
			seen++
		})
		if err != nil || seen != len(ts) {
			t.Errorf("window %d: %d traces reported, err %v", window, seen, err)
		}
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestSkippedAndFaultRepliesMarkTheTrace: PROTO-6's skipped and fault end
// a trace's run with the reason; later replies on it are disregarded.
func TestSkippedAndFaultRepliesMarkTheTrace(t *testing.T) {
	p, err := fakePort(t, PortOptions{}, func(in *bufio.Scanner, out, _ io.Writer) {
		fmt.Fprintln(out, `{"protocol":"limcheck-port/3","name":"fake","version":"0","components":["lim","gate"]}`)
		for in.Scan() {
			var req struct {
				Seq int64
				Op  string
			}
			json.Unmarshal(in.Bytes(), &req) //nolint:errcheck
			switch {
			case req.Op == "open" || req.Op == "close":
				fmt.Fprintf(out, `{"seq":%d,"result":{}}`+"\n", req.Seq)
			case req.Seq <= 4: // the first trace: open 1, ops 2 and 3, close 4
				fmt.Fprintf(out, `{"seq":%d,"skipped":"too big for me"}`+"\n", req.Seq)
			default:
				fmt.Fprintf(out, `{"seq":%d,"fault":"KeyError: n"}`+"\n", req.Seq)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	op := oracle.Op{Kind: oracle.LimRel, N: oracle.I(1)}
	ts := []oracle.Trace{{Component: oracle.Lim, Ops: []oracle.Op{op, op}}, {Component: oracle.Lim, Ops: []oracle.Op{op, op}}}
	var runs []judge.TraceRun
	if err := p.RunTraces(ts, func(_ int, r judge.TraceRun) { runs = append(runs, r) }); err != nil {
		t.Fatal(err)
	}
	if runs[0].Skipped != "op 0: too big for me" || runs[0].Fault != "" || len(runs[0].Outcome.Results) != 0 {
		t.Errorf("skipped trace: %+v", runs[0])
	}
	if runs[1].Fault != "KeyError: n" || runs[1].FaultOp != 0 || runs[1].Skipped != "" {
		t.Errorf("fault trace: %+v", runs[1])
	}
	if !p.Implements(oracle.Gate) || p.Implements(oracle.Throttle) {
		t.Errorf("Implements does not follow the hello's components")
	}
}

// TestAfterASkipTheCaseRunsToItsClose checks PROTO-15: after a skipped
// op, limcheck still sends the case's remaining ops and its close, and
// the close of an open instance must still be answered with {}.
func TestAfterASkipTheCaseRunsToItsClose(t *testing.T) {
	for _, c := range []struct {
		reason, closeReply string
		breaks             bool
	}{
		{"the close answered with {} ends a skipped case", `"result":{}`, false},
		{"a fault to the close of an open instance breaks the protocol", `"fault":"closed already"`, true},
	} {
		t.Run(c.reason, func(t *testing.T) {
			var (
				mu  sync.Mutex
				got []string
			)
			p, err := fakePort(t, PortOptions{}, func(in *bufio.Scanner, out, _ io.Writer) {
				fmt.Fprintln(out, `{"protocol":"limcheck-port/3","name":"fake","version":"0","components":["lim"]}`)
				for in.Scan() {
					var req struct {
						Seq int64
						Op  string
					}
					json.Unmarshal(in.Bytes(), &req) //nolint:errcheck
					mu.Lock()
					got = append(got, req.Op)
					mu.Unlock()
					switch req.Op {
					case "open":
						fmt.Fprintf(out, `{"seq":%d,"result":{}}`+"\n", req.Seq)
					case "close":
						fmt.Fprintf(out, `{"seq":%d,%s}`+"\n", req.Seq, c.closeReply)
					default:
						fmt.Fprintf(out, `{"seq":%d,"skipped":"not today"}`+"\n", req.Seq)
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close() //nolint:errcheck
			op := oracle.Op{Kind: oracle.LimRel, N: oracle.I(1)}
			ts := []oracle.Trace{{Component: oracle.Lim, Ops: []oracle.Op{op, op, op}}}
			var runs []judge.TraceRun
			err = p.RunTraces(ts, func(_ int, r judge.TraceRun) { runs = append(runs, r) })
			if c.breaks {
				if err == nil {
					t.Fatalf("PROTO-15: RunTraces = nil with a fault to the close, want a break")
				}
				return
			}
			if err != nil {
				t.Fatalf("PROTO-15: RunTraces: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if want := []string{"open", "lim_rel", "lim_rel", "lim_rel", "close"}; !slices.Equal(got, want) {
				t.Errorf("PROTO-15: the port got %q, want %q: every op and the close after the skip", got, want)
			}
			if len(runs) != 1 || runs[0].Skipped == "" {
				t.Errorf("PROTO-15: runs = %+v, want one skipped trace", runs)
			}
		})
	}
}

// TestSpecTranscriptIsWhatTheModelAnswers checks spec.md's worked
// transcript (PROTO-3, PROTO-5, PROTO-15): its requests, sent to Serve over
// the model, get exactly its replies, and its hello and replies are what
// limcheck's reader accepts.
func TestSpecTranscriptIsWhatTheModelAnswers(t *testing.T) {
	spec, err := os.ReadFile("../../spec.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(spec), "\n### Worked transcript\n")
	if !ok {
		t.Fatal("spec.md has no worked transcript")
	}
	_, block, _ := strings.Cut(section, "```\n")
	block, _, _ = strings.Cut(block, "```")
	var requests, replies []string
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		switch {
		case strings.HasPrefix(l, "> "):
			requests = append(requests, l[2:])
		case strings.HasPrefix(l, "< "):
			replies = append(replies, l[2:])
		default:
			t.Fatalf("transcript line %q is neither a request nor a reply", l)
		}
	}
	if len(requests) < 5 || len(replies) != len(requests)+1 {
		t.Fatalf("transcript has %d requests and %d replies, want a hello and one reply each", len(requests), len(replies))
	}
	if _, err := decodeHello([]byte(replies[0])); err != nil {
		t.Errorf("PROTO-2: the transcript's hello: %v", err)
	}
	got := converse(t, requests...)[1:]
	for i, want := range replies[1:] {
		if _, err := decodeReply([]byte(want)); err != nil {
			t.Errorf("PROTO-6: transcript reply %s: %v", want, err)
		}
		if i >= len(got) || got[i] != want {
			t.Errorf("PROTO-5: the model answers %s with %q, the transcript says %s", requests[i], got[min(i, len(got)-1)], want)
		}
	}
}
