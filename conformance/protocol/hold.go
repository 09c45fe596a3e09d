package protocol

import (
	"bufio"
	"sync"
	"time"
)

// maxHold is the longest Serve holds a reply back to write it with the
// replies after it. A subject's op may block (a Redis store that lost its
// server waits out its timeout on each): the replies before it must not
// wait for it, or a port whose every op takes its store's timeout says
// nothing until the whole window is answered, and limcheck counts the time
// from its last reply (PROTO-9's hang).
const maxHold = 20 * time.Millisecond

// replies is Serve's output. Replies are buffered and written together
// when Serve is about to block on its input (PROTO-7), or maxHold after
// the oldest one held, whichever comes first: the second by a timer, while
// Serve may be inside a subject's op. Its methods are safe for concurrent
// use with that timer.
type replies struct {
	mu    sync.Mutex
	bw    *bufio.Writer
	held  bool        // some reply is buffered and not written
	timer *time.Timer // writes the held replies maxHold after the oldest
	err   error       // the first write error
}

func newReplies(bw *bufio.Writer) *replies {
	r := &replies{bw: bw}
	r.timer = time.AfterFunc(time.Hour, r.tick)
	r.timer.Stop()
	return r
}

// add buffers the reply line rep and writes what is held when flush is
// set; else it makes sure the timer writes it within maxHold.
func (r *replies) add(rep []byte, flush bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bw.Write(rep) //nolint:errcheck // the flush reports it
	r.bw.WriteByte('\n')
	switch {
	case flush:
		return r.flushLocked()
	case !r.held:
		r.held = true
		r.timer.Reset(maxHold)
	}
	return r.err
}

// flush writes what is held and stops the timer: Serve is returning.
func (r *replies) flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timer.Stop()
	return r.flushLocked()
}

func (r *replies) tick() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held {
		r.flushLocked() //nolint:errcheck // kept in r.err for Serve
	}
}

func (r *replies) flushLocked() error {
	r.held = false
	if err := r.bw.Flush(); err != nil && r.err == nil {
		r.err = err
	}
	return r.err
}
