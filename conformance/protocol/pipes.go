package protocol

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

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
