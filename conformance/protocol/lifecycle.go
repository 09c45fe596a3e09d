package protocol

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// newPort starts the reader, writer and stderr goroutines over tr and
// reads the hello.
func newPort(tr transport, opt PortOptions) (*Port, error) {
	p := &Port{
		opt:     opt.withDefaults(),
		tr:      tr,
		out:     make(chan []byte, maxWindow+2),
		free:    make(chan []byte, 4),
		events:  make(chan []event, maxWindow+2),
		evFree:  make(chan []event, 4),
		stderr:  newTail(stderrKeep),
		nextIn:  1,
		dead:    make(chan struct{}),
		drained: make(chan struct{}),
	}
	if tr.stderr != nil {
		go func() {
			defer close(p.drained)
			p.stderr.drain(tr.stderr)
		}()
	} else {
		close(p.drained)
	}
	go p.write()
	go p.read()
	if err := p.handshake(); err != nil {
		p.kill()
		return nil, err
	}
	return p, nil
}

// handshake reads and checks the hello. A command that cannot run (sh
// exits 127 or 126 before any output) is a *StartError.
//
// spec PROTO-2: "limcheck refuses a hello with another protocol, a missing or ill-typed field or an unknown component"
func (p *Port) handshake() error {
	wait, late := p.opt.HandshakeTimeout, false
	if d := p.opt.Deadline; !d.IsZero() && time.Until(d) < wait {
		wait, late = max(time.Until(d), 0), true
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var ev event
	select {
	case evs := <-p.events:
		ev = p.takeEvents(evs)
	case <-timer.C:
		if late {
			return p.deadlinePassed(-1, -2, "the handshake")
		}
		return p.breaks(-1, -2, fmt.Sprintf("no hello within %v", wait))
	case x := <-p.tr.exited:
		p.exit = &x
		select { // what it wrote before it exited may still be on its way
		case evs := <-p.events:
			ev = p.takeEvents(evs)
		case <-time.After(time.Second):
			return p.breaks(-1, -2, "exited before its hello ("+x.how+")")
		}
	}
	if ev.err != nil {
		if !errors.Is(ev.err, io.EOF) {
			return p.breaks(-1, -2, "bad hello: "+ev.err.Error())
		}
		if p.exit == nil && p.tr.exited != nil {
			select { // name the exit status when it comes at once
			case x := <-p.tr.exited:
				p.exit = &x
			case <-time.After(500 * time.Millisecond):
			}
		}
		if p.exit != nil && (p.exit.code == 126 || p.exit.code == 127) && p.tr.command != "" {
			return p.cannotRun()
		}
		if p.exit != nil {
			return p.breaks(-1, -2, "exited before its hello ("+p.exit.how+")")
		}
		return p.breaks(-1, -2, "closed its stdout before its hello")
	}
	return p.checkHello(*ev.hello)
}

// checkHello checks the hello h and keeps it, its texts cut.
func (p *Port) checkHello(h Hello) error {
	switch {
	case h.Protocol == "limcheck-port/1":
		return p.breaks(-1, -2, fmt.Sprintf("hello: protocol %q, this limcheck speaks %q: the port is written for spec 1.x, and spec 2.0 changed the gate's config, admit's result and the bucket op, and spec 3.0 the gate's config (seed) and admit's result (PROTO-11)", h.Protocol, Protocol))
	case h.Protocol == "limcheck-port/2":
		// spec PROTO-11: "A runner refuses either older version as a protocol break naming both versions."
		return p.breaks(-1, -2, fmt.Sprintf("hello: protocol %q, this limcheck speaks %q: the port is written for spec 2.0, and spec 3.0 gave the gate's config a seed and admit a limited result with no way (PROTO-11)", h.Protocol, Protocol))
	case h.Protocol != Protocol:
		return p.breaks(-1, -2, fmt.Sprintf("hello: protocol %q, this limcheck speaks %q", h.Protocol, Protocol))
	case h.Name == "":
		return p.breaks(-1, -2, `hello: "name" is missing or empty`)
	case len(h.Components) == 0:
		return p.breaks(-1, -2, `hello: "components" is missing or empty`)
	}
	for i, c := range h.Components {
		if !slices.Contains(oracle.Components(), c) {
			return p.breaks(-1, -2, fmt.Sprintf("hello: unknown component %q (want some of %v)", c, oracle.Components()))
		}
		if slices.Contains(h.Components[:i], c) {
			return p.breaks(-1, -2, fmt.Sprintf("hello: component %q listed twice", c))
		}
	}
	h.Name, h.Version = judge.CutText(h.Name, maxMessage), judge.CutText(h.Version, maxMessage)
	p.hello = h
	return nil
}

// cannotRun is the *StartError of a command sh could not find or run:
// its last line on stderr says why.
func (p *Port) cannotRun() error {
	p.kill()
	p.waitStderr()
	why := strings.TrimSpace(p.stderr.last(4 << 10))
	if i := strings.LastIndexByte(why, '\n'); i >= 0 {
		why = why[i+1:]
	}
	if why == "" {
		why = "sh " + p.exit.how + " before any output"
	}
	err := &StartError{Command: p.tr.command, Why: why}
	p.failed = err
	return err
}

// breaks records that the port broke the protocol, kills it and returns
// the error.
//
// spec PROTO-9: "limcheck then kills the port's process group at once"
func (p *Port) breaks(trace, op int, what string) error {
	if p.failed == nil {
		p.kill()
		p.waitStderr() // what a crashing port wrote last is the most useful
		p.failed = &judge.BrokenError{What: what, Trace: trace, Op: op, Stderr: p.stderr.last(4 << 10)}
	}
	return p.failed
}

// deadlinePassed records that the deadline passed while during waited,
// kills the port and returns the *judge.DeadlineError.
func (p *Port) deadlinePassed(trace, op int, during string) error {
	if p.failed == nil {
		p.kill()
		p.failed = &judge.DeadlineError{Deadline: p.opt.Deadline, During: during, Trace: trace, Op: op}
	}
	return p.failed
}

// waitStderr waits a moment for the port's stderr to end: the port was
// killed, so it ends at once unless a process outside its group holds it.
func (p *Port) waitStderr() {
	select {
	case <-p.drained:
	case <-time.After(time.Second):
	}
}

// kill stops the port: its whole process group, its pipes and the writer.
func (p *Port) kill() {
	select {
	case <-p.dead:
	default:
		close(p.dead)
	}
	if p.tr.kill != nil {
		p.tr.kill()
	}
	p.closeStdin()
}

// closeStdin makes the writer goroutine close the port's stdin once the
// requests queued are written.
func (p *Port) closeStdin() {
	if !p.closed {
		p.closed = true
		close(p.out)
	}
}

// Close ends the conversation: it closes the port's stdin, waits for the
// port to exit and its stdout to end (ExitTimeout, bounded by Deadline),
// and then kills the port's process group, always, so that no helper it
// started outlives it. It returns a *judge.BrokenError when the port exits with
// a status other than 0, writes anything after its last reply, or must be
// killed; a *judge.DeadlineError when the deadline cut the wait short; or the
// error that stopped the port earlier.
//
// spec PROTO-8: "When it has no more requests limcheck closes the port's stdin; the port then exits with status 0"
// spec PROTO-8: "waits for the exit at most 5 s (less when the overall deadline comes first), then kills the port's process group, always"
func (p *Port) Close() error {
	if p.failed != nil {
		p.kill()
		return p.failed
	}
	p.closeStdin()
	err := p.finish()
	p.kill()
	return err
}

// finish waits for the port to exit and for the end of its stdout, and
// checks that nothing came there after the last reply: the reader reads
// on past it, at most one line (1 MiB) before this sees it.
//
// spec PROTO-9: "writes anything on stdout after its last reply"
func (p *Port) finish() error {
	wait, late := p.opt.ExitTimeout, false
	if d := p.opt.Deadline; !d.IsZero() && time.Until(d) < wait {
		wait, late = max(time.Until(d), 0), true
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	exited := p.tr.exited
	if p.exit != nil {
		exited = nil
	}
	for eof := false; !eof || exited != nil; {
		ev, ok := p.popEvent()
		if !ok {
			select {
			case evs := <-p.events:
				ev = p.takeEvents(evs)
			case x := <-exited:
				p.exit, exited = &x, nil
				continue
			case <-timer.C:
				switch {
				case late:
					return p.deadlinePassed(-1, -2, "the port's exit")
				case exited != nil:
					return p.breaks(-1, -2, fmt.Sprintf("still running %v after its stdin was closed", wait))
				}
				return p.breaks(-1, -2, fmt.Sprintf("exited, but its stdout was still open %v after its stdin was closed (a process outside its group holds it?)", wait))
			}
		}
		if !errors.Is(ev.err, io.EOF) {
			return p.breaks(-1, -2, "wrote after its last reply: "+p.eventText(ev))
		}
		eof = true
	}
	if p.exit != nil && !p.exit.ok {
		return p.breaks(-1, -2, "exited with "+p.exit.how+" after its last reply")
	}
	return nil
}

// eventText describes what the port wrote on stdout when no reply was due.
func (p *Port) eventText(ev event) string {
	if ev.err != nil {
		return ev.err.Error()
	}
	return fmt.Sprintf("stdout line %d is a reply with seq %d, %s", ev.line, ev.rep.seq, p.seqWhich(ev.rep.seq))
}
