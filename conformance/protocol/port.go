package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
)

// Protocol is the protocol version this client and Serve speak, as a hello
// states it.
//
// spec PROTO-11: "The protocol is versioned by the hello's protocol"
const Protocol = "limcheck-port/3"

// Hello is a port's first line: who it is and what it implements.
//
// spec PROTO-2: "Before reading anything, the port writes one hello line"
type Hello struct {
	Protocol   string             `json:"protocol"`
	Name       string             `json:"name"`
	Version    string             `json:"version"`
	Components []oracle.Component `json:"components"`
}

// PortOptions bound a port's run. The zero value takes every default.
type PortOptions struct {
	// HandshakeTimeout bounds the wait for the hello; 0 means 60s (a JVM,
	// npm run or a version manager's shim on a busy machine can take more
	// than 10s to start; a longer wait costs a healthy port nothing).
	HandshakeTimeout time.Duration
	// RequestTimeout bounds the wait for the oldest unanswered request's
	// reply; 0 means 10s.
	RequestTimeout time.Duration
	// Deadline, if set, bounds the whole conversation: the handshake, the
	// requests and the wait for the port's exit. Reaching it is a
	// *judge.DeadlineError, not a break.
	Deadline time.Time
	// Window is the most requests in flight; 0 (or more than 1024,
	// PROTO-7's bound) means 1024.
	Window int
	// ExitTimeout bounds the wait, once the port's stdin is closed, for
	// the port to exit and its stdout to end; 0 means 5s.
	ExitTimeout time.Duration
}

// The protocol's limits.
//
// spec PROTO-1: "at most 1 MiB"
// spec PROTO-7: "it may send up to 1024 requests before it reads a reply"
const (
	maxLine    = 1 << 20
	maxWindow  = 1024
	stderrKeep = 64 << 10
)

func (o PortOptions) withDefaults() PortOptions {
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = 60 * time.Second
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 10 * time.Second
	}
	if o.Window <= 0 || o.Window > maxWindow {
		o.Window = maxWindow
	}
	if o.ExitTimeout <= 0 {
		o.ExitTimeout = 5 * time.Second
	}
	return o
}

// transport is the port's end of the conversation: a process's pipes, or
// an in-process Serve's.
type transport struct {
	stdin   io.WriteCloser
	stdout  io.Reader
	stderr  io.Reader       // nil: none
	kill    func()          // stops the port (its whole process group) at once; idempotent
	exited  <-chan exitInfo // receives once when the port ends; nil: never
	command string          // the command a process port runs; "" in process
}

// exitInfo is how a port ended.
type exitInfo struct {
	ok   bool   // exit status 0
	how  string // "exit status 3", "signal: killed"
	code int    // the exit status, -1 when a signal ended the port
}

// Port is a conversation with a running port (PROTO-1..PROTO-9). It is a
// judge.Runner. A Port is not safe for concurrent use; once broken (or past its
// deadline) it stays so and every later call returns the same
// *judge.BrokenError (or *judge.DeadlineError).
type Port struct {
	hello   Hello
	opt     PortOptions
	tr      transport
	out     chan []byte   // request chunks, to the writer goroutine
	free    chan []byte   // written chunks, from the writer goroutine, to reuse
	events  chan []event  // replies and the end of stdout, from the reader goroutine, in batches
	evq     []event       // the rest of the last batch received, not yet handled
	evBatch []event       // the batch evq is the rest of, to hand back once handled
	evFree  chan []event  // handled batches, back to the reader to reuse
	stderr  *tail         // the port's stderr
	seq     int64         // the last seq sent
	nextIn  int64         // the seq the next reply must carry
	inst    int64         // the last instance number used
	failed  error         // sticky: the *judge.BrokenError or *judge.DeadlineError that stopped the port
	dead    chan struct{} // closed when the port is killed: the reader stops
	drained chan struct{} // closed when the port's stderr ended
	exit    *exitInfo     // how the port ended, once it did
	closed  bool
}

// maxEvents is the most events the reader sends in one batch.
const maxEvents = 64

// takeEvents returns the first event of a batch from the reader and
// queues the rest for popEvent.
func (p *Port) takeEvents(evs []event) event {
	ev := evs[0]
	p.evq, p.evBatch = evs[1:], evs
	p.recycle()
	return ev
}

// popEvent returns the next queued event, if any: every wait for an event
// takes the queued ones first.
func (p *Port) popEvent() (event, bool) {
	if len(p.evq) == 0 {
		return event{}, false
	}
	ev := p.evq[0]
	p.evq = p.evq[1:]
	p.recycle()
	return ev, true
}

// recycle hands the last batch back to the reader once every event of it
// was taken.
func (p *Port) recycle() {
	if len(p.evq) > 0 || p.evBatch == nil {
		return
	}
	select {
	case p.evFree <- p.evBatch[:0]:
	default:
	}
	p.evq, p.evBatch = nil, nil
}

// event is one thing the reader goroutine saw on the port's stdout.
type event struct {
	line  int    // the line number on stdout
	hello *Hello // the first line
	rep   reply  // a reply
	err   error  // a line that is not a reply, or the end of stdout (io.EOF)
}

// reply is a decoded reply line.
type reply struct {
	seq     int64
	kind    replyKind
	result  oracle.Result
	text    string // skipped's reason or fault's message
	badJSON error  // result is an object whose fields do not decode
}

type replyKind uint8

const (
	replyResult replyKind = iota
	replySkipped
	replyFault
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

// Hello returns the port's hello.
func (p *Port) Hello() Hello { return p.hello }

// Name implements judge.Runner: the hello's name and version.
func (p *Port) Name() string {
	if p.hello.Version == "" {
		return p.hello.Name
	}
	return p.hello.Name + " " + p.hello.Version
}

// Implements implements judge.Runner: the components the hello claims.
func (p *Port) Implements(c oracle.Component) bool { return slices.Contains(p.hello.Components, c) }

// lastStderr returns the last bytes the port wrote on stderr.
func (p *Port) lastStderr() string { return p.stderr.last(stderrKeep) }

// WroteStderr reports whether the port has written anything on its stderr.
// After Close it counts all of it: Close kills the port's group, so its
// stderr ends as soon as the reader has read what is left, and when
// nothing was counted yet this waits for that end (at most ExitTimeout,
// for a process outside the group that holds the stream open). Before
// Close, stderr is read as it comes, so lines the port wrote may not be
// counted yet.
func (p *Port) WroteStderr() bool {
	if p.stderr.total() == 0 && p.closed {
		select {
		case <-p.drained:
		case <-time.After(p.opt.ExitTimeout):
		}
	}
	return p.stderr.total() > 0
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
	h := *ev.hello
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
	h.Name, h.Version = CutText(h.Name, maxMessage), CutText(h.Version, maxMessage)
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

// write is the writer goroutine: it writes request chunks, flushing when
// no chunk waits, and closes the port's stdin when out is closed. A write
// error (the port closed its stdin) drops the rest: the reader sees the
// consequence.
func (p *Port) write() {
	bw := bufio.NewWriterSize(p.tr.stdin, 64<<10)
	failed := false
	for chunk := range p.out {
		if failed {
			continue
		}
		if _, err := bw.Write(chunk); err != nil {
			failed = true
			continue
		}
		select { // done with it: RunTraces may write the next chunk into it
		case p.free <- chunk[:0]:
		default:
		}
		if len(p.out) == 0 && bw.Flush() != nil {
			failed = true
		}
	}
	if !failed {
		bw.Flush()
	}
	p.tr.stdin.Close()
}

// read is the reader goroutine: it decodes every stdout line and sends it
// as an event; the end of stdout is an event with io.EOF. It sends the
// events in batches, each as soon as no further complete line is buffered
// (so a reply never waits for the port's next write), at most maxEvents.
func (p *Port) read() {
	br := bufio.NewReaderSize(p.tr.stdout, 64<<10)
	var batch []event
	add := func(ev event) {
		if batch == nil {
			select {
			case batch = <-p.evFree:
			default:
				batch = make([]event, 0, maxEvents)
			}
		}
		if batch = append(batch, ev); len(batch) == maxEvents || !lineBuffered(br) {
			p.send(batch)
			batch = nil
		}
	}
	end := func(ev event) {
		p.send(append(batch, ev))
	}
	for n := 1; ; n++ {
		line, err := readLine(br)
		if err != nil {
			if errors.Is(err, io.EOF) && len(line) == 0 {
				end(event{line: n, err: io.EOF})
			} else if errors.Is(err, io.EOF) {
				end(event{line: n, err: fmt.Errorf("stdout line %d has no newline at the end of stdout: %s", n, quoteLine(line))})
			} else {
				end(event{line: n, err: fmt.Errorf("stdout line %d: %w", n, err)})
			}
			return
		}
		if n == 1 {
			h, err := decodeHello(line)
			if err != nil {
				end(event{line: n, err: fmt.Errorf("stdout line 1 is not a hello object: %v: %s", err, quoteLine(line))})
				return
			}
			add(event{line: n, hello: &h})
			continue
		}
		rep, err := decodeReply(line)
		if err != nil {
			end(event{line: n, err: fmt.Errorf("stdout line %d is not a reply: %v: %s", n, err, quoteLine(line))})
			return
		}
		add(event{line: n, rep: rep})
	}
}

// lineBuffered reports whether br holds a whole line (the next read does
// not wait for the port).
func lineBuffered(br *bufio.Reader) bool {
	b, _ := br.Peek(br.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// send hands a batch of events to RunTraces, or drops it once the port is
// dead.
func (p *Port) send(evs []event) {
	select {
	case p.events <- evs:
	case <-p.dead:
	}
}

// errLong is the error of a line longer than maxLine.
var errLong = fmt.Errorf("longer than %d bytes", maxLine)

// readLine reads one line without its newline, refusing one over maxLine.
func readLine(br *bufio.Reader) ([]byte, error) {
	var long []byte
	for {
		frag, err := br.ReadSlice('\n')
		if err == nil && long == nil {
			return frag[:len(frag)-1], nil
		}
		if len(long)+len(frag) > maxLine+1 {
			return nil, errLong
		}
		long = append(long, frag...)
		switch {
		case err == nil:
			return long[:len(long)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return long, err
		}
	}
}

// quoteLine renders the start of a bad line for a diagnosis.
func quoteLine(b []byte) string {
	const max = 120
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "..."
	}
	return strconv.Quote(string(b))
}

// strictObject decodes a JSON object line into v.
func strictObject(line []byte, v any) error {
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 || bytes.TrimSpace(line)[0] != '{' {
		return errors.New("not a JSON object")
	}
	return json.Unmarshal(line, v)
}

// decodeReply decodes a reply line. A line that is not a reply object is
// an error; a result object whose fields do not decode is a reply with
// badJSON set (the case fails, the port has not broken the protocol).
//
// spec PROTO-6: "A reply has the seq of its request and exactly one of: result ... skipped ... or fault"
func decodeReply(line []byte) (reply, error) {
	if r, ok := decodeReplyFast(line); ok {
		return r, nil
	}
	return decodeReplySlow(line)
}

// decodeReplySlow is decodeReply through encoding/json: the definition
// decodeReplyFast must agree with.
func decodeReplySlow(line []byte) (reply, error) {
	m, err := members(bytes.TrimRight(line, "\r"))
	if err != nil {
		return reply{}, err
	}
	var r reply
	if err := member(m, "seq", &r.seq); err != nil {
		return reply{}, err
	}
	res, hasRes := m["result"]
	_, hasSkip := m["skipped"]
	_, hasFault := m["fault"]
	has := 0
	for _, set := range []bool{hasRes, hasSkip, hasFault} {
		if set {
			has++
		}
	}
	if has != 1 {
		return reply{}, fmt.Errorf(`it has %d of "result", "skipped", "fault", want exactly 1`, has)
	}
	switch {
	case hasSkip:
		r.kind = replySkipped
		err = member(m, "skipped", &r.text)
	case hasFault:
		r.kind = replyFault
		err = member(m, "fault", &r.text)
	default:
		if t := bytes.TrimSpace(res); len(t) == 0 || t[0] != '{' {
			return reply{}, errors.New(`"result" is not an object`)
		}
		r.badJSON = decodeResult(res, &r.result)
	}
	if err != nil {
		return reply{}, err
	}
	return r, nil
}

// wireRequest is a request line as JSON: an op of the operations table
// with seq and inst, or open (with component and config) or close.
//
// spec PROTO-3: "Every request has seq, a JSON integer ... and op"
type wireRequest struct {
	Seq       int64            `json:"seq"`
	Inst      int64            `json:"inst"`
	Component oracle.Component `json:"component,omitempty"`
	Config    *oracle.Config   `json:"config,omitempty"`
	oracle.Op
}

// Request kinds beyond the operations table.
const (
	kindOpen  oracle.Kind = "open"
	kindClose oracle.Kind = "close"
)

// pending is a request in flight: its trace and its op (-1 open,
// len(ops) close), on the trace's first instance or (side 1) its twin.
type pending struct{ trace, op, side int }

// traceState is a trace's run while its replies come in.
type traceState struct {
	run judge.TraceRun
	// dead: open refused, skipped or faulted, or an op skipped or faulted:
	// later replies are disregarded, but the close of an open instance
	// is still checked.
	//
	// spec PROTO-15: "limcheck still sends the case's remaining ops and its close ... and the port answers each one"
	dead   bool
	open   bool  // open's result was {}: the instance is open until its close
	twin   bool  // the same for the second instance of a twin trace
	inst   int64 // the inst of the first instance; its twin's is inst+1
	stderr int64
	// results is where run.Outcome.Results grows (newTraceStates); the
	// run's results stay nil until the first one.
	results []oracle.Result
}

// RunTraces implements judge.Runner: it pipelines every trace's open, ops and
// close (PROTO-7) and checks every reply's seq (PROTO-9). It is RunStream
// of ts alone.
func (p *Port) RunTraces(ts []oracle.Trace, each func(int, judge.TraceRun)) error {
	return p.RunStream(once(ts), each)
}

// once returns a stream's next that yields ts, then nothing.
func once(ts []oracle.Trace) func() []oracle.Trace {
	return func() []oracle.Trace {
		t := ts
		ts = nil
		return t
	}
}

// inFlight is a trace of a stream sent and not yet done.
type inFlight struct {
	t  *oracle.Trace
	st traceState
}

// RunStream implements judge.Streamer: the window runs on from one slice of
// traces into the next, so the port is never idle between them.
func (p *Port) RunStream(next func() []oracle.Trace, each func(int, judge.TraceRun)) error {
	if p.failed != nil {
		return p.failed
	}
	if p.closed {
		return errors.New("protocol: RunStream on a closed port")
	}
	var (
		queue   []pending
		running []inFlight // traces base.. of the stream, sent and not done, in order
		base    = 0
		cur     []oracle.Trace // the slice being sent: traces curAt.. of the stream
		curAt   = 0
		results []oracle.Result // where the next traces' results are carved from (carve)
		ended   = false         // next returned no trace
		ti, oi  = 0, -1         // the next request to send: trace ti of the stream, op oi
		side    = 0             // on the first instance (0) or, in a twin trace, the second (1)
		buf     []byte
		timer   = time.NewTimer(p.opt.RequestTimeout)
		// The request timeout counts from progress: the last reply, or the
		// send that found nothing in flight. The timer is not reset on
		// every reply (two timer operations an op, on the fuzzer's hot
		// path): when it fires early it is set again for what is left.
		progress = time.Now()
	)
	defer timer.Stop()
	var deadline <-chan time.Time
	if !p.opt.Deadline.IsZero() {
		d := time.NewTimer(time.Until(p.opt.Deadline))
		defer d.Stop()
		deadline = d.C
	}
	exited := p.tr.exited
	var grace <-chan time.Time
	if p.exit != nil {
		exited = nil
	}
	trace := func(i int) *oracle.Trace { return running[i-base].t }
	for {
		idle := len(queue) == 0
		// Top the window up only once half of it is answered: the requests
		// go in chunks, so the writer and the port wake once a chunk, not
		// once an op.
		for topUp := len(queue) <= p.opt.Window/2; topUp && len(queue) < p.opt.Window; {
			if ti-curAt == len(cur) {
				if ended {
					break
				}
				if cur, curAt = next(), ti; len(cur) == 0 {
					ended = true
					break
				}
				results = carve(cur)
				if !idle { // the time next took is not the port's
					progress = time.Now()
				}
			}
			t := &cur[ti-curAt]
			if oi == -1 && side == 0 {
				running = append(running, inFlight{t: t, st: traceState{stderr: p.stderr.total(), inst: p.inst + 1}})
				if k := len(t.Ops); k > 0 { // none stays nil, as before
					running[len(running)-1].st.results, results = results[:0:k], results[k:]
				}
			}
			if buf == nil {
				select {
				case buf = <-p.free:
				default:
				}
			}
			buf = p.appendRequest(buf, t, running[ti-base].st.inst+int64(side), oi)
			queue = append(queue, pending{ti, oi, side})
			// spec VEC-15: "open both, then each op on the first instance and at once on the second"
			if t.Twin && side == 0 {
				side = 1
			} else if side, oi = 0, oi+1; oi > len(t.Ops) {
				ti, oi = ti+1, -1
			}
		}
		if len(buf) > 0 {
			p.out <- buf
			buf = nil
			if idle { // the timeout counts from the oldest unanswered request
				progress = time.Now()
			}
		}
		if len(queue) == 0 { // every trace sent is done, and next has no more
			return nil
		}
		in := queue[0]
		ev, ok := p.popEvent()
		if !ok {
			select {
			case evs := <-p.events:
				ev = p.takeEvents(evs)
			case <-timer.C:
				if left := p.opt.RequestTimeout - time.Since(progress); left > 0 {
					timer.Reset(left) // there was progress since it was set
					continue
				}
				return p.breaks(in.trace, in.op, fmt.Sprintf("no reply to %s within %v (hung?)", judge.OpName(*trace(in.trace), in.op), p.opt.RequestTimeout))
			case x := <-exited:
				// Replies written before the exit may still be on their way:
				// read on for a moment before calling the exit early.
				p.exit, exited, grace = &x, nil, time.After(500*time.Millisecond)
				continue
			case <-grace:
				return p.exitedEarly(*p.exit, in, trace(in.trace))
			case <-deadline:
				return p.deadlinePassed(in.trace, in.op, "the conversation")
			}
		}
		if ev.err != nil {
			return p.streamEnded(ev, in, trace(in.trace))
		}
		if ev.rep.seq != p.nextIn {
			return p.breaks(in.trace, in.op, p.seqProblem(ev.rep.seq, *trace(in.trace), in))
		}
		p.nextIn++
		queue = queue[1:]
		progress = time.Now()
		lt := &running[in.trace-base]
		st := &lt.st
		if in.op == len(lt.t.Ops) { // the close: the trace is done
			if why := closeProblem(ev.rep); (in.side == 0 && st.open || in.side == 1 && st.twin) && why != "" {
				return p.breaks(in.trace, in.op, why)
			}
			if in.side == 0 && lt.t.Twin {
				continue // the twin's close comes next
			}
			st.run.Stderr = p.stderr.since(st.stderr, 4<<10)
			run := st.run
			running[0], running, base = inFlight{}, running[1:], base+1 // traces end in order: this is running[0]
			each(in.trace, run)
			continue
		}
		switch {
		case st.dead:
		case in.side == 1:
			st.takeTwin(in.op, ev.rep)
		default:
			st.take(in.op, ev.rep)
		}
	}
}

// carve returns one array for the results of every trace of ts (an append
// per op, on the fuzzer's hot path, no longer allocates).
func carve(ts []oracle.Trace) []oracle.Result {
	n := 0
	for i := range ts {
		n += len(ts[i].Ops)
	}
	return make([]oracle.Result, n)
}

// take records the reply to op of the trace (-1: open).
func (st *traceState) take(op int, r reply) {
	switch {
	case r.kind == replySkipped:
		st.run.Skipped, st.dead = fmt.Sprintf("%s: %s", opName(op), CutText(r.text, maxMessage)), true
	case r.kind == replyFault && r.text == "": // a fault all the same, not a missing result
		st.run.Fault, st.run.FaultOp, st.dead = "the port faulted with an empty message", op, true
	case r.kind == replyFault:
		st.run.Fault, st.run.FaultOp, st.dead = CutText(r.text, maxMessage), op, true
	case r.badJSON != nil:
		st.run.Fault, st.run.FaultOp, st.run.Undecodable, st.dead = r.badJSON.Error(), op, true, true
	case op == -1:
		switch r.result {
		case oracle.Result{}:
			st.open = true
		case oracle.Result{Error: oracle.ErrConfig}:
			st.run.Outcome.Open, st.dead = oracle.ErrConfig, true
		default:
			st.run.Fault, st.run.FaultOp, st.dead = fmt.Sprintf(`open's result is %s, want {} or {"error":"config"}`, appendResultObject(nil, &r.result)), -1, true
		}
	default:
		if st.run.Outcome.Results == nil {
			st.run.Outcome.Results = st.results
		}
		st.run.Outcome.Results = append(st.run.Outcome.Results, boundResult(r.result))
	}
}

// takeTwin records the reply to op (-1: open) of the second instance of a
// twin trace, whose first instance opened.
//
// spec PROTO-12: "two instances open at once, of the same component and config, are independent"
func (st *traceState) takeTwin(op int, r reply) {
	const second = "on the second instance of the same config, open beside the first: "
	switch {
	case r.kind == replySkipped:
		st.run.Skipped, st.dead = fmt.Sprintf("%s %s%s", opName(op), second, CutText(r.text, maxMessage)), true
	case r.kind == replyFault && r.text == "":
		st.run.Fault, st.run.FaultOp, st.dead = second+"the port faulted with an empty message", op, true
	case r.kind == replyFault:
		st.run.Fault, st.run.FaultOp, st.dead = second+CutText(r.text, maxMessage), op, true
	case r.badJSON != nil:
		st.run.Fault, st.run.FaultOp, st.run.Undecodable, st.dead = second+r.badJSON.Error(), op, true, true
	case op == -1 && r.result == oracle.Result{}:
		st.twin = true
	case op == -1:
		st.run.Fault, st.run.FaultOp, st.dead = fmt.Sprintf(`%sopen's result is %s, want {} as the first's`, second, appendResultObject(nil, &r.result)), -1, true
	default:
		if st.run.Twin == nil {
			st.run.Twin = make([]oracle.Result, 0, cap(st.results))
		}
		st.run.Twin = append(st.run.Twin, boundResult(r.result))
	}
}

// closeProblem says what is wrong with a reply to the close of an open
// instance, or "" when it is the result {}.
//
// spec PROTO-5: "close forgets the instance; its result is {}"
func closeProblem(r reply) string {
	switch {
	case r.kind == replySkipped:
		return "skipped the close of an open instance (" + quoteLine([]byte(r.text)) + "); a close's result is {}"
	case r.kind == replyFault:
		return "faulted on the close of an open instance (" + quoteLine([]byte(r.text)) + "); a close's result is {}"
	case r.badJSON != nil || r.result != oracle.Result{}:
		return "answered the close of an open instance with a result other than {}"
	}
	return ""
}

func opName(op int) string {
	if op == -1 {
		return "open"
	}
	return fmt.Sprintf("op %d", op)
}

// seqProblem explains a reply whose seq is not the next one expected.
func (p *Port) seqProblem(got int64, t oracle.Trace, in pending) string {
	if got >= p.nextIn && got <= p.seq {
		return fmt.Sprintf("reply with seq %d out of order (want %d, the reply to %s, first)", got, p.nextIn, judge.OpName(t, in.op))
	}
	return fmt.Sprintf("reply with seq %d, %s (want %d, the reply to %s)", got, p.seqWhich(got), p.nextIn, judge.OpName(t, in.op))
}

// seqWhich says what a seq that no reply is due for is: one already
// answered, or one no request has (0, negative, or beyond the last sent).
func (p *Port) seqWhich(seq int64) string {
	if seq >= 1 && seq < p.nextIn {
		return "already answered"
	}
	return "which no request has"
}

// streamEnded diagnoses the end of stdout or a bad line.
func (p *Port) streamEnded(ev event, in pending, t *oracle.Trace) error {
	if !errors.Is(ev.err, io.EOF) {
		return p.breaks(in.trace, in.op, ev.err.Error())
	}
	// The port closed stdout: give it a moment to report how it ended.
	how := ""
	if p.exit == nil && p.tr.exited != nil {
		select {
		case x := <-p.tr.exited:
			p.exit = &x
		case <-time.After(2 * time.Second):
		}
	}
	if p.exit != nil {
		how = " and exited (" + p.exit.how + ")"
	}
	return p.breaks(in.trace, in.op, fmt.Sprintf("closed its stdout%s before replying to %s", how, judge.OpName(*t, in.op)))
}

// exitedEarly diagnoses a port that exited with requests unanswered; the
// replies it wrote before exiting are not lost, they were read, so what
// remains is truly unanswered.
func (p *Port) exitedEarly(x exitInfo, in pending, t *oracle.Trace) error {
	return p.breaks(in.trace, in.op, fmt.Sprintf("exited (%s) before replying to %s", x.how, judge.OpName(*t, in.op)))
}

// appendRequest appends the request for op of t (-1 open, len(ops) close)
// on instance inst as a line.
func (p *Port) appendRequest(buf []byte, t *oracle.Trace, inst int64, op int) []byte {
	p.seq++
	p.inst = max(p.inst, inst)
	return appendRequestLine(buf, p.seq, inst, t, op)
}
