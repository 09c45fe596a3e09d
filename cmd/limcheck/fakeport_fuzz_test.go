package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/limcheck/limcheck/conformance/protocol"
	"github.com/limcheck/limcheck/oracle"
)

// fuzzModes are the fakeport modes of the fuzz scripts (fuzz_*.txtar),
// each a port that defeats one way limcheck fuzz could lose or misreport
// what it found. N counts replies, ops or opens as each says.
const fuzzModes = `fuzz modes: bigfault-after N (a 1 MiB fault for every op after the
  Nth), skip-after N (skips every open after the Nth)`

// fuzzHostile returns the subject and reply editor (nil: none) of fuzz
// mode mode with argument n, and edits the port's hello.
func fuzzHostile(mode string, n int, hello *protocol.Hello) (oracle.Subject, func(io.Writer, int, []byte)) {
	limOnly := func(s oracle.Subject) oracle.Subject {
		hello.Components = []oracle.Component{oracle.Lim}
		return s
	}
	switch mode {
	case "bigfault-after":
		return limOnly(&faulty{after: n, msg: "out of memory: " + strings.Repeat("x", 1<<20-200)}), nil
	case "skip-after":
		return limOnly(&faulty{after: n, skipOpens: true}), nil
	}
	fail("fakeport: unknown mode " + mode + "\n" + fakeportUsage + "\n" + fuzzModes)
	return nil, nil
}

// faulty is the model that, after its first after ops (or opens, with
// skipOpens), faults every op with msg or skips every open.
type faulty struct {
	oracle.Model
	after      int
	msg        string
	skipOpens  bool
	opens, ops int
}

func (f *faulty) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	if f.opens++; f.skipOpens && f.opens > f.after {
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
