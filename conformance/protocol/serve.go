package protocol

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/limcheck/limcheck/oracle"
)

// Serve makes s a port: it writes hello (its Protocol set to Protocol; its
// Components, when empty, the ones s implements), then answers every
// request line of in on out until in ends. A line that is not a request is
// answered with a fault when it carries a seq and ends Serve with an error
// when it does not. Serve flushes out whenever it has no buffered input
// left, as PROTO-7 asks, and holds no reply back longer than 20ms for the
// ones after it, whose ops may block (out is then written from a timer's
// goroutine, never after Serve returns); it returns nil when in ends.
//
// `limcheck serve` is Serve over the project's impl/; any Go
// implementation wrapped as an oracle.Subject becomes a port the same way.
func Serve(in io.Reader, out io.Writer, s oracle.Subject, hello Hello) error {
	hello.Protocol = Protocol
	if len(hello.Components) == 0 {
		for _, c := range oracle.Components() {
			if s.Implements(c) {
				hello.Components = append(hello.Components, c)
			}
		}
	}
	if hello.Name == "" {
		hello.Name = s.Name()
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	br := bufio.NewReaderSize(in, 64<<10)
	hb, err := json.Marshal(hello)
	if err != nil {
		return fmt.Errorf("protocol: serve: hello: %w", err)
	}
	bw.Write(hb) //nolint:errcheck // the flush reports it
	bw.WriteByte('\n')
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("protocol: serve: %w", err)
	}
	sv := server{s: s, insts: map[int64]oracle.Instance{}}
	reps := newReplies(bw)
	for {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return reps.flush()
		}
		if err != nil && !errors.Is(err, io.EOF) {
			reps.flush() //nolint:errcheck // the read error is the news
			return fmt.Errorf("protocol: serve: %w", err)
		}
		rep, err := sv.answer(line)
		if err != nil {
			reps.flush() //nolint:errcheck // the request error is the news
			return err
		}
		// About to block on input: flush first. Else the replies wait at
		// most maxHold, though the next op may block.
		if err := reps.add(rep, br.Buffered() == 0); err != nil {
			reps.flush() //nolint:errcheck // stops the timer; the error is the news
			return fmt.Errorf("protocol: serve: %w", err)
		}
	}
}

// server is Serve's state: the open instances by inst.
type server struct {
	s     oracle.Subject
	insts map[int64]oracle.Instance
	line  []byte // the last result line: reused, each is written before the next
}

// answer returns the reply line to one request line.
//
// spec PROTO-4: "open builds a fresh instance of component from config"
// spec PROTO-5: "close forgets the instance; its result is {}"
func (sv *server) answer(line []byte) ([]byte, error) {
	req, ok := decodeRequestFast(line)
	if ok {
		return sv.apply(req), nil
	}
	if err := strictObject(line, &req); err != nil {
		var seq struct {
			Seq *int64 `json:"seq"`
		}
		if json.Unmarshal(line, &seq) != nil || seq.Seq == nil {
			return nil, fmt.Errorf("protocol: serve: request is not a JSON object with a seq: %v: %s", err, quoteLine(line))
		}
		return faultLine(*seq.Seq, "malformed request: "+err.Error()), nil
	}
	return sv.apply(req), nil
}

// apply answers a decoded request.
func (sv *server) apply(req wireRequest) []byte {
	switch req.Kind {
	case kindOpen:
		return sv.open(req)
	case kindClose:
		delete(sv.insts, req.Inst)
		return resultLine(req.Seq, oracle.Result{})
	}
	inst, ok := sv.insts[req.Inst]
	if !ok {
		return faultLine(req.Seq, fmt.Sprintf("no open instance %d", req.Inst))
	}
	res, err := inst.Do(req.Op)
	switch {
	case errors.Is(err, oracle.ErrUnsupported):
		return skippedLine(req.Seq, err.Error())
	case err != nil:
		return faultLine(req.Seq, err.Error())
	}
	sv.line = appendResultLine(sv.line[:0], req.Seq, &res)
	return sv.line
}

// open answers an open request.
func (sv *server) open(req wireRequest) []byte {
	if !sv.s.Implements(req.Component) {
		return skippedLine(req.Seq, fmt.Sprintf("%s does not implement %q", sv.s.Name(), req.Component))
	}
	var cfg oracle.Config
	if req.Config != nil {
		cfg = *req.Config
	}
	inst, class, err := sv.s.Open(req.Component, cfg)
	switch {
	case errors.Is(err, oracle.ErrUnsupported):
		return skippedLine(req.Seq, err.Error())
	case err != nil:
		return faultLine(req.Seq, err.Error())
	case class != "":
		return resultLine(req.Seq, oracle.Result{Error: class})
	}
	sv.insts[req.Inst] = inst
	return resultLine(req.Seq, oracle.Result{})
}

func resultLine(seq int64, r oracle.Result) []byte {
	return appendResultLine(make([]byte, 0, 96), seq, &r)
}

// appendResultLine appends the reply line of result r to request seq.
func appendResultLine(out []byte, seq int64, r *oracle.Result) []byte {
	out = append(out, `{"seq":`...)
	out = strconv.AppendInt(out, seq, 10)
	out = append(out, `,"result":`...)
	out = appendResultObject(out, r)
	return append(out, '}')
}

func skippedLine(seq int64, why string) []byte { return textLine(seq, "skipped", why) }

func faultLine(seq int64, msg string) []byte { return textLine(seq, "fault", msg) }

func textLine(seq int64, key, text string) []byte {
	t, _ := json.Marshal(text) // a string always marshals
	out := append([]byte(`{"seq":`), strconv.FormatInt(seq, 10)...)
	out = append(out, `,"`+key+`":`...)
	out = append(out, t...)
	return append(out, '}')
}

// ServePipe starts Serve over s in a goroutine and returns a Port talking
// to it through in-memory pipes: the protocol without a process. Closing
// the Port ends Serve.
func ServePipe(s oracle.Subject, hello Hello, opt PortOptions) (*Port, error) {
	reqR, reqW := io.Pipe()
	repR, repW := io.Pipe()
	exited := make(chan exitInfo, 1)
	go func() {
		err := Serve(reqR, repW, s, hello)
		x := exitInfo{ok: err == nil, how: "exit status 0"}
		if err != nil {
			x.how, x.code = err.Error(), -1
		}
		repW.CloseWithError(io.EOF)
		reqR.CloseWithError(io.ErrClosedPipe)
		exited <- x
	}()
	kill := func() {
		reqR.CloseWithError(io.ErrClosedPipe)
		repR.CloseWithError(io.ErrClosedPipe)
	}
	return newPort(transport{stdin: reqW, stdout: repR, kill: kill, exited: exited}, opt)
}
