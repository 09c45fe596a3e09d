package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/oracle"
)

// fakeportUsage lists the modes of the fakeport command.
const fakeportUsage = `usage: fakeport MODE [N]
modes: good, lying, shared, skip-gate, stderr-flood, out-of-order, unknown-seq,
  bad-hello, v2-hello, no-hello, exit-nonzero-at-end, crash-after N, hang-after N,
  nonjson-after N, early-exit-after N, pid-then-hang FILE`

// pyTraceback is what crash-after writes on stderr before it dies: a
// crashing Python port's last words, which limcheck must show.
const pyTraceback = `Traceback (most recent call last):
  File "port.py", line 42, in <module>
    main()
  File "port.py", line 17, in main
    reply = handle(req)
ZeroDivisionError: division by zero
`

// fakeportMain is the fakeport command: a port built into the test binary
// that answers as the model does (protocol.Serve over oracle.Model) and
// misbehaves as its MODE says, for the scripts to check limcheck's
// verdicts and diagnoses. It never returns.
func fakeportMain() {
	args := os.Args[1:]
	if len(args) == 0 {
		fail(fakeportUsage)
	}
	mode, n := args[0], -1
	if strings.HasSuffix(mode, "-after") {
		if len(args) != 2 {
			fail(fakeportUsage)
		}
		var err error
		if n, err = strconv.Atoi(args[1]); err != nil || n < 0 {
			fail("fakeport: bad N " + args[1])
		}
	} else if len(args) != 1 && mode != "pid-then-hang" {
		fail(fakeportUsage)
	}
	var s oracle.Subject = oracle.Model{}
	hello := protocol.Hello{Name: "fakeport-" + mode, Version: "1"}
	// edit, when set, sees every reply line (the hello is not one) with
	// its number from 1, and writes what the port sends instead.
	var edit func(w io.Writer, i int, line []byte)
	switch mode {
	case "good":
	case "lying":
		s = lying{}
	case "shared":
		s = &shared{cur: map[oracle.Component]oracle.Instance{}}
	case "stderr-per-case":
		s = stderrPerCase{}
	case "skip-gate":
		hello.Components = []oracle.Component{oracle.Lim, oracle.Throttle}
	case "exit-nonzero-at-end":
		serve(s, hello, nil)
		os.Exit(3)
	case "bad-hello":
		fmt.Println(`{"protocol": "limcheck-port/9", "name": "fakeport-bad-hello", "version": "1", "components": ["lim"]}`)
		io.Copy(io.Discard, os.Stdin) //nolint:errcheck // waits for limcheck to give up
		os.Exit(0)
	case "v2-hello": // a port written for spec 2.0 (PROTO-11)
		fmt.Println(`{"protocol": "limcheck-port/2", "name": "fakeport-v2", "version": "1", "components": ["lim", "gate"]}`)
		io.Copy(io.Discard, os.Stdin) //nolint:errcheck // waits for limcheck to give up
		os.Exit(0)
	case "no-hello":
		time.Sleep(time.Hour)
	case "pid-then-hang": // fakeport pid-then-hang FILE: hello, its pid in FILE, then silence
		fmt.Println(`{"protocol": "limcheck-port/3", "name": "fakeport-hang", "version": "1", "components": ["lim"]}`)
		if len(os.Args) < 3 || os.WriteFile(os.Args[2], []byte(strconv.Itoa(os.Getpid())), 0o644) != nil {
			os.Exit(2)
		}
		time.Sleep(time.Hour)
	case "stderr-flood":
		// 10 MiB of stderr, written as the replies go: a port that blocks
		// on a full stderr pipe stops answering, so the run would break.
		chunk := bytes.Repeat([]byte("debug: noisy port, nothing to see here .........................\n"), 4<<10) // 256 KiB
		left := 40
		edit = func(w io.Writer, _ int, line []byte) {
			if left > 0 {
				left--
				os.Stderr.Write(chunk) //nolint:errcheck // best effort
			}
			w.Write(line) //nolint:errcheck // see lineWriter
		}
	case "out-of-order":
		var held []byte // reply 5, sent after reply 6
		edit = func(w io.Writer, i int, line []byte) {
			switch i {
			case 5:
				held = bytes.Clone(line)
			case 6:
				w.Write(line) //nolint:errcheck // see lineWriter
				w.Write(held) //nolint:errcheck // see lineWriter
			default:
				w.Write(line) //nolint:errcheck // see lineWriter
			}
		}
	case "unknown-seq":
		edit = func(w io.Writer, i int, line []byte) {
			if i == 3 {
				line = bytes.Replace(line, []byte(`{"seq":3,`), []byte(`{"seq":1000003,`), 1)
			}
			w.Write(line) //nolint:errcheck // see lineWriter
		}
	case "crash-after", "hang-after", "nonjson-after", "early-exit-after":
		edit = func(w io.Writer, i int, line []byte) {
			if i <= n {
				w.Write(line) //nolint:errcheck // see lineWriter
				return
			}
			w.(*bytes.Buffer).WriteTo(os.Stdout) //nolint:errcheck // the replies before the misdeed
			switch mode {
			case "crash-after":
				os.Stderr.WriteString(pyTraceback) //nolint:errcheck // best effort
				os.Exit(1)
			case "hang-after":
				for {
					time.Sleep(time.Hour) // alive, silent
				}
			case "nonjson-after":
				fmt.Println("Traceback (most recent call last):")
				io.Copy(io.Discard, os.Stdin) //nolint:errcheck // waits for limcheck to give up
				os.Exit(0)
			default:
				os.Exit(0)
			}
		}
	case "huge":
		hugeMode()
	case "slow-after", "lie-crash-after", "lie-hang-after", "leak-after", "lie-after", "bigfault-after", "evil-after", "skip-after", "skip-twin-after":
		s, edit = fuzzHostile(mode, n, &hello)
	default:
		fail("fakeport: unknown mode " + mode + "\n" + fakeportUsage)
	}
	serve(s, hello, edit)
	os.Exit(0)
}

// serve runs protocol.Serve on stdin and stdout, passing every reply
// line through edit when it is set.
func serve(s oracle.Subject, hello protocol.Hello, edit func(io.Writer, int, []byte)) {
	var out io.Writer = os.Stdout
	hello.Name = longName(hello.Name)
	if edit != nil {
		out = &lineWriter{edit: edit}
	}
	if err := protocol.Serve(os.Stdin, out, s, hello); err != nil {
		fail("fakeport: " + err.Error())
	}
}

// lineWriter splits what Serve writes into lines and hands each reply
// line (with its newline) to edit, which writes to a buffer; the buffer
// goes to stdout at the end of every Write, that is whenever Serve flushes.
type lineWriter struct {
	edit    func(w io.Writer, i int, line []byte)
	partial []byte
	lines   int // lines seen, the hello included
	buf     bytes.Buffer
}

func (lw *lineWriter) Write(b []byte) (int, error) {
	lw.partial = append(lw.partial, b...)
	for {
		i := bytes.IndexByte(lw.partial, '\n')
		if i < 0 {
			break
		}
		line := lw.partial[:i+1]
		if lw.lines++; lw.lines == 1 {
			lw.buf.Write(line)
		} else {
			lw.edit(&lw.buf, lw.lines-1, line)
		}
		lw.partial = lw.partial[i+1:]
	}
	lw.partial = bytes.Clone(lw.partial)
	_, err := lw.buf.WriteTo(os.Stdout)
	return len(b), err
}

// lying is the model with one lie: every lim_take that answers a non-zero
// retry answers it one tick off.
type lying struct{ oracle.Model }

func (l lying) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	inst, class, err := l.Model.Open(c, cfg)
	if inst != nil && c == oracle.Lim {
		inst = lyingLim{inst}
	}
	return inst, class, err
}

type lyingLim struct{ oracle.Instance }

func (l lyingLim) Do(op oracle.Op) (oracle.Result, error) {
	res, err := l.Instance.Do(op)
	if r, ok := res.Retry.Int64(); err == nil && op.Kind == oracle.LimTake && ok && r != 0 {
		if r == math.MaxInt64 {
			r -= 2
		}
		res.Retry = oracle.I(r + 1)
	}
	return res, err
}

// fail ends the fakeport with status 2 after printing msg.
func fail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(2)
}

// shared is the model with state shared between instances (PROTO-12): an
// open replaces its component's one live instance, and every instance's
// ops go to that one. A trace alone runs as on the model; a twin trace's
// two instances (VEC-15) share one state, as a port with a process-wide
// store does.
type shared struct {
	cur map[oracle.Component]oracle.Instance
}

func (*shared) Name() string                     { return "shared" }
func (*shared) Implements(oracle.Component) bool { return true }

func (s *shared) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	inst, class, err := oracle.Model{}.Open(c, cfg)
	if err != nil || class != "" {
		return inst, class, err
	}
	s.cur[c] = inst
	return sharedInstance{s, c}, "", nil
}

type sharedInstance struct {
	s *shared
	c oracle.Component
}

func (i sharedInstance) Do(op oracle.Op) (oracle.Result, error) { return i.s.cur[i.c].Do(op) }
