package protocol

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/limcheck/limcheck/conformance/judge"
	"github.com/limcheck/limcheck/oracle"
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
	s := p.newStream(next, each)
	defer s.stop()
	for {
		s.fill()
		if len(s.queue) == 0 { // every trace sent is done, and next has no more
			return nil
		}
		ev, ok, err := s.wait()
		switch {
		case err != nil:
			return err
		case !ok:
			continue
		}
		if err := s.handle(&ev); err != nil {
			return err
		}
	}
}

// stream is a RunStream in progress: the requests in flight, the traces
// they belong to, where the next request comes from, and the clocks that
// bound the wait for a reply.
type stream struct {
	p       *Port
	next    func() []oracle.Trace
	each    func(int, judge.TraceRun)
	queue   []pending
	running []inFlight // traces base.. of the stream, sent and not done, in order
	base    int
	cur     []oracle.Trace // the slice being sent: traces curAt.. of the stream
	curAt   int
	results []oracle.Result // where the next traces' results are carved from (carve)
	ended   bool            // next returned no trace
	ti, oi  int             // the next request to send: trace ti of the stream, op oi
	side    int             // on the first instance (0) or, in a twin trace, the second (1)
	buf     []byte          // the chunk of requests being written
	// The request timeout counts from progress: the last reply, or the
	// send that found nothing in flight. The timer is not reset on every
	// reply (two timer operations an op, on the fuzzer's hot path): when
	// it fires early it is set again for what is left.
	timer    *time.Timer
	progress time.Time
	late     *time.Timer // the deadline's; nil: none
	deadline <-chan time.Time
	exited   <-chan exitInfo  // the port's exit, until it is seen
	grace    <-chan time.Time // after the exit, the time left to read the replies written before it
}

// newStream starts a stream of next's traces on p.
func (p *Port) newStream(next func() []oracle.Trace, each func(int, judge.TraceRun)) *stream {
	s := &stream{p: p, next: next, each: each, oi: -1, timer: time.NewTimer(p.opt.RequestTimeout), progress: time.Now(), exited: p.tr.exited}
	if !p.opt.Deadline.IsZero() {
		s.late = time.NewTimer(time.Until(p.opt.Deadline))
		s.deadline = s.late.C
	}
	if p.exit != nil {
		s.exited = nil
	}
	return s
}

// stop stops the stream's timers.
func (s *stream) stop() {
	s.timer.Stop()
	if s.late != nil {
		s.late.Stop()
	}
}

// trace returns trace i of the stream, sent and not done.
func (s *stream) trace(i int) *oracle.Trace { return s.running[i-s.base].t }

// fill tops the window up, but only once half of it is answered: the
// requests go in chunks, so the writer and the port wake once a chunk,
// not once an op. It hands the chunk to the writer.
func (s *stream) fill() {
	idle := len(s.queue) == 0
	for topUp := len(s.queue) <= s.p.opt.Window/2; topUp && len(s.queue) < s.p.opt.Window; {
		t := s.nextTrace(idle)
		if t == nil {
			break
		}
		s.request(t)
	}
	if len(s.buf) > 0 {
		s.p.out <- s.buf
		s.buf = nil
		if idle { // the timeout counts from the oldest unanswered request
			s.progress = time.Now()
		}
	}
}

// nextTrace returns the trace of the next request, taking next's next
// slice once the last one is sent; nil when next has no more.
func (s *stream) nextTrace(idle bool) *oracle.Trace {
	if s.ti-s.curAt == len(s.cur) {
		if s.ended {
			return nil
		}
		if s.cur, s.curAt = s.next(), s.ti; len(s.cur) == 0 {
			s.ended = true
			return nil
		}
		s.results = carve(s.cur)
		if !idle { // the time next took is not the port's
			s.progress = time.Now()
		}
	}
	return &s.cur[s.ti-s.curAt]
}

// request adds the next request, of trace t, to the chunk, and moves on
// to the one after it.
func (s *stream) request(t *oracle.Trace) {
	if s.oi == -1 && s.side == 0 {
		s.running = append(s.running, inFlight{t: t, st: traceState{stderr: s.p.stderr.total(), inst: s.p.insts.next()}})
		if k := len(t.Ops); k > 0 { // none stays nil, as before
			s.running[len(s.running)-1].st.results, s.results = s.results[:0:k], s.results[k:]
		}
	}
	if s.buf == nil {
		select {
		case s.buf = <-s.p.free:
		default:
		}
	}
	s.buf = s.p.appendRequest(s.buf, t, s.running[s.ti-s.base].st.inst+int64(s.side), s.oi)
	s.queue = append(s.queue, pending{s.ti, s.oi, s.side})
	// spec VEC-15: "open both, then each op on the first instance and at once on the second"
	if t.Twin && s.side == 0 {
		s.side = 1
	} else if s.side, s.oi = 0, s.oi+1; s.oi > len(t.Ops) {
		s.ti, s.oi = s.ti+1, -1
	}
}

// wait returns the next event from the reader. ok is false when a timer
// or the port's exit woke it with no event to handle; err is set when the
// wait ends the conversation: no reply in time, the port exited, or the
// deadline passed.
func (s *stream) wait() (ev event, ok bool, err error) {
	if ev, ok := s.p.popEvent(); ok {
		return ev, true, nil
	}
	in := s.queue[0]
	select {
	case evs := <-s.p.events:
		return s.p.takeEvents(evs), true, nil
	case <-s.timer.C:
		if left := s.p.opt.RequestTimeout - time.Since(s.progress); left > 0 {
			s.timer.Reset(left) // there was progress since it was set
			return event{}, false, nil
		}
		return event{}, false, s.p.breaks(in.trace, in.op, fmt.Sprintf("no reply to %s within %v (hung?)", judge.OpName(*s.trace(in.trace), in.op), s.p.opt.RequestTimeout))
	case x := <-s.exited:
		// Replies written before the exit may still be on their way: read
		// on for a moment before calling the exit early.
		s.p.exit, s.exited, s.grace = &x, nil, time.After(500*time.Millisecond)
		return event{}, false, nil
	case <-s.grace:
		return event{}, false, s.p.exitedEarly(*s.p.exit, in, s.trace(in.trace))
	case <-s.deadline:
		return event{}, false, s.p.deadlinePassed(in.trace, in.op, "the conversation")
	}
}

// handle takes ev, which must be the reply to the oldest request in
// flight, into its trace's run.
func (s *stream) handle(ev *event) error {
	in := s.queue[0]
	if ev.err != nil {
		return s.p.streamEnded(*ev, in, s.trace(in.trace))
	}
	if ev.rep.seq != s.p.nextIn {
		return s.p.breaks(in.trace, in.op, s.p.seqProblem(ev.rep.seq, *s.trace(in.trace), in))
	}
	s.p.nextIn++
	s.queue = s.queue[1:]
	s.progress = time.Now()
	lt := &s.running[in.trace-s.base]
	switch {
	case in.op == len(lt.t.Ops):
		return s.closed(in, lt, &ev.rep)
	case lt.st.dead:
	case in.side == 1:
		lt.st.takeTwin(in.op, ev.rep)
	default:
		lt.st.take(in.op, ev.rep)
	}
	return nil
}

// closed takes the reply r to the close of lt, which in was: the trace is
// done once its last instance is closed, and each gets its run.
func (s *stream) closed(in pending, lt *inFlight, r *reply) error {
	st := &lt.st
	if why := closeProblem(*r); (in.side == 0 && st.open || in.side == 1 && st.twin) && why != "" {
		return s.p.breaks(in.trace, in.op, why)
	}
	if in.side == 0 && lt.t.Twin {
		return nil // the twin's close comes next
	}
	st.run.Stderr = s.p.stderr.since(st.stderr, 4<<10)
	run := st.run
	s.running[0], s.running, s.base = inFlight{}, s.running[1:], s.base+1 // traces end in order: this is running[0]
	s.each(in.trace, run)
	return nil
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
		st.run.Skipped, st.dead = fmt.Sprintf("%s: %s", opName(op), judge.CutText(r.text, maxMessage)), true
	case r.kind == replyFault && r.text == "": // a fault all the same, not a missing result
		st.run.Fault, st.run.FaultOp, st.dead = "the port faulted with an empty message", op, true
	case r.kind == replyFault:
		st.run.Fault, st.run.FaultOp, st.dead = judge.CutText(r.text, maxMessage), op, true
	case r.badJSON != nil:
		st.run.Fault, st.run.FaultOp, st.run.Undecodable, st.dead = r.badJSON.Error(), op, true, true
		st.run.BadField, st.run.BadValue = badField(r.badJSON)
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
		st.run.Skipped, st.dead = fmt.Sprintf("%s %s%s", opName(op), second, judge.CutText(r.text, maxMessage)), true
	case r.kind == replyFault && r.text == "":
		st.run.Fault, st.run.FaultOp, st.dead = second+"the port faulted with an empty message", op, true
	case r.kind == replyFault:
		st.run.Fault, st.run.FaultOp, st.dead = second+judge.CutText(r.text, maxMessage), op, true
	case r.badJSON != nil:
		st.run.Fault, st.run.FaultOp, st.run.Undecodable, st.dead = second+r.badJSON.Error(), op, true, true
		st.run.BadField, st.run.BadValue = badField(r.badJSON)
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
	return appendRequestLine(buf, p.seq, inst, t, op)
}

// badField is the field and value of err's FieldError, if it is one.
func badField(err error) (field, value string) {
	var fe *FieldError
	if errors.As(err, &fe) {
		return fe.Field, fe.Value
	}
	return "", ""
}
