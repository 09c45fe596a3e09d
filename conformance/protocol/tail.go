package protocol

import (
	"io"
	"strconv"
	"sync"
)

// tail keeps the last bytes written to it and counts every byte: a port's
// stderr, drained as it comes so that a flood never blocks the port.
//
// spec PROTO-1: "limcheck reads it as it comes, so a flood never blocks the port, keeps the last 64 KiB"
type tail struct {
	mu    sync.Mutex
	buf   []byte // ring of cap keep
	keep  int
	count int64 // bytes ever written
}

func newTail(keep int) *tail { return &tail{buf: make([]byte, 0, keep), keep: keep} }

// Write implements io.Writer.
func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(b)
	t.count += int64(n)
	if len(b) >= t.keep {
		t.buf = append(t.buf[:0], b[len(b)-t.keep:]...)
		return n, nil
	}
	if over := len(t.buf) + len(b) - t.keep; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, b...)
	return n, nil
}

// drain copies r into t until r ends.
func (t *tail) drain(r io.Reader) { io.Copy(t, r) } //nolint:errcheck // the end of stderr is the end of the port

// total returns the count of bytes ever written.
func (t *tail) total() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.count
}

// since returns what was written after the count was from, at most max
// bytes (the last ones), noting what was dropped.
func (t *tail) since(from int64, limit int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.count - max(from, 0)
	if n <= 0 {
		return ""
	}
	dropped := int64(0)
	if n > int64(len(t.buf)) {
		dropped, n = n-int64(len(t.buf)), int64(len(t.buf))
	}
	if n > int64(limit) {
		dropped, n = dropped+n-int64(limit), int64(limit)
	}
	s := string(t.buf[int64(len(t.buf))-n:])
	if dropped > 0 {
		s = "[" + strconv.FormatInt(dropped, 10) + " earlier bytes dropped]\n" + s
	}
	return s
}

// last returns the last limit bytes.
func (t *tail) last(limit int) string {
	t.mu.Lock()
	from := t.count - int64(limit)
	t.mu.Unlock()
	return t.since(from, limit)
}
