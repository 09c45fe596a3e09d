package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/oracle"
)

// fuzzModes are the fakeport modes of the fuzz scripts (fuzz_*.txtar),
// each a port that defeats one way limcheck fuzz could lose or misreport
// what it found. N counts replies, ops or opens as each says.
const fuzzModes = `fuzz modes: slow-after N (every reply after the Nth 20ms late),
  lie-crash-after N, lie-hang-after N (lying, then crash or hang at open N+1),
  leak-after N (lies on every instance after its Nth open), lie-after N (lies on
  every lim_take after its Nth op), bigfault-after N (a 1 MiB fault for every op
  after the Nth), evil-after N (controls in its hello, in its faults after N ops,
  and in its stderr as it crashes at open 6), skip-after N (skips every open
  after the Nth), skip-twin-after N (after its Nth open, skips an open that comes
  right after an open: the second instance of a twinned trace)

The environment: FAKEPORT_PIDS=FILE (each port adds its pid to FILE),
FAKEPORT_HUNG=FILE (lie-hang-after writes FILE as it starts to hang),
FAKEPORT_LONGNAME=N (the hello's name padded to N bytes, escapes in it).`

// fuzzHostile returns the subject and reply editor (nil: none) of fuzz
// mode mode with argument n, and edits the port's hello.
//
// When FAKEPORT_PIDS names a file, the port adds its pid to it, a line,
// for the script to check with gone that no port outlived limcheck.
func fuzzHostile(mode string, n int, hello *protocol.Hello) (oracle.Subject, func(io.Writer, int, []byte)) {
	if file := os.Getenv("FAKEPORT_PIDS"); file != "" {
		f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fail("fakeport: " + err.Error())
		}
		fmt.Fprintln(f, os.Getpid())
		f.Close()
	}
	limOnly := func(s oracle.Subject) oracle.Subject {
		hello.Components = []oracle.Component{oracle.Lim}
		return s
	}
	switch mode {
	case "slow-after":
		return oracle.Model{}, func(w io.Writer, i int, line []byte) {
			if i > n {
				time.Sleep(20 * time.Millisecond)
			}
			w.Write(line) //nolint:errcheck // see lineWriter
		}
	case "lie-crash-after", "lie-hang-after":
		return limOnly(&leaky{breakAfter: n, hang: mode == "lie-hang-after"}), nil
	case "leak-after":
		return limOnly(&leaky{afterOpens: n}), nil
	case "lie-after":
		return limOnly(&leaky{afterOps: n}), nil
	case "bigfault-after":
		return limOnly(&faulty{after: n, msg: "out of memory: " + strings.Repeat("x", 1<<20-200)}), nil
	case "evil-after":
		hello.Name, hello.Version = "evil\x1b]0;owned\x07\r\nPASS   forged", "1\x1b[2J"
		return limOnly(&faulty{after: n, msg: "boom\x1b[31m\r\nPASS   lim-forged-001 \u202eexe.txt", crashAt: 6, stderr: "warn\x1b[2J\rFAIL forged\n"}), nil
	case "skip-after":
		return limOnly(&faulty{after: n, skipOpens: true}), nil
	case "skip-twin-after":
		return &twinSkipper{after: n}, nil
	}
	fail("fakeport: unknown mode " + mode + "\n" + fakeportUsage + "\n" + fuzzModes)
	return nil, nil
}

// leaky is the lying lim whose lies start on the instances opened after
// its first afterOpens opens, once it has seen afterOps ops: its state
// outlives every instance, as a port's that keeps state across instances.
// With breakAfter, it crashes (or hangs) at open breakAfter+1.
type leaky struct {
	oracle.Model
	afterOpens, afterOps, breakAfter int
	hang                             bool
	opens, ops                       int
}

func (l *leaky) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	if l.opens++; l.breakAfter > 0 && l.opens > l.breakAfter {
		if l.hang {
			if file := os.Getenv("FAKEPORT_HUNG"); file != "" {
				os.WriteFile(file, []byte("hung\n"), 0o644) //nolint:errcheck // the script waits for it
			}
			time.Sleep(time.Hour) // alive, silent
		}
		os.Stderr.WriteString(pyTraceback) //nolint:errcheck // best effort
		os.Exit(1)
	}
	inst, class, err := l.Model.Open(c, cfg)
	if inst != nil && l.opens > l.afterOpens {
		inst = &leakyLim{inst, l}
	}
	return inst, class, err
}

type leakyLim struct {
	oracle.Instance
	l *leaky
}

func (i *leakyLim) Do(op oracle.Op) (oracle.Result, error) {
	if i.l.ops++; i.l.ops <= i.l.afterOps {
		return i.Instance.Do(op)
	}
	return lyingLim{i.Instance}.Do(op)
}

// faulty is the model that, after its first after ops (or opens, with
// skipOpens), faults every op with msg or skips every open; with crashAt,
// it writes stderr on stderr and exits 1 at that open.
type faulty struct {
	oracle.Model
	after, crashAt int
	msg, stderr    string
	skipOpens      bool
	opens, ops     int
}

func (f *faulty) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	if f.opens++; f.opens == f.crashAt {
		os.Stderr.WriteString(f.stderr) //nolint:errcheck // best effort
		os.Exit(1)
	}
	if f.skipOpens && f.opens > f.after {
		return nil, "", fmt.Errorf("%w: not today", oracle.ErrUnsupported)
	}
	inst, class, err := f.Model.Open(c, cfg)
	if inst != nil {
		inst = faultyInstance{inst, f}
	}
	return inst, class, err
}

type faultyInstance struct {
	oracle.Instance
	f *faulty
}

func (i faultyInstance) Do(op oracle.Op) (oracle.Result, error) {
	if i.f.ops++; i.f.skipOpens || i.f.ops <= i.f.after {
		return i.Instance.Do(op)
	}
	return oracle.Result{}, errors.New(i.f.msg)
}
