package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/limcheck/limcheck/oracle"
)

// twinSkipper is the model that, after its first after opens, skips an
// open that comes right after another open, with no op between: the
// second instance of a twinned trace (VEC-15), and the first of a trace
// that follows one with no op (it cannot tell them apart: a close never
// reaches a Subject). Every trace run alone passes; instance isolation
// (PROTO-12) is never checked.
type twinSkipper struct {
	oracle.Model
	after, opens int
	lastOpen     bool // the last call was an open that built an instance
}

func (t *twinSkipper) Open(c oracle.Component, cfg oracle.Config) (oracle.Instance, oracle.ErrorClass, error) {
	t.opens++
	second := t.lastOpen
	t.lastOpen = false
	if second && t.opens > t.after {
		return nil, "", fmt.Errorf("%w: one instance at a time", oracle.ErrUnsupported)
	}
	inst, class, err := t.Model.Open(c, cfg)
	if inst != nil {
		t.lastOpen = true // a refused config's trace has no ops, and no twin
		inst = twinSkipperInstance{inst, t}
	}
	return inst, class, err
}

type twinSkipperInstance struct {
	oracle.Instance
	t *twinSkipper
}

func (i twinSkipperInstance) Do(op oracle.Op) (oracle.Result, error) {
	i.t.lastOpen = false
	return i.Instance.Do(op)
}

// longName pads name to FAKEPORT_LONGNAME bytes, when that is set, with
// words and terminal escapes (the spec bounds a hello's name at 4 KiB, and
// limcheck escapes what it shows of one): a long name must not cost the
// counterexample file whose description names the port.
func longName(name string) string {
	n, err := strconv.Atoi(os.Getenv("FAKEPORT_LONGNAME"))
	if err != nil || n <= len(name) {
		return name
	}
	pad := strings.Repeat(" long\x1b[0m name", n/len(" long\x1b[0m name")+1)
	return (name + pad)[:n]
}
